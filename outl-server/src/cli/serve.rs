//! Serving MCP (`outl mcp`, `outl serve`). The server answers at once and opens the workspace
//! in the background (see [`SharedWorkspace`]); only the checks that take no time and catch a
//! folder outl cannot use run first, and stop the command as they always did.

use std::fs::OpenOptions;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;

use rmcp::service::ServerInitializeError;
use serde_json::json;

use super::{EXIT_FAILED, ServeArgs, WorkspaceArg, workspace_root};
use crate::actions::REGISTRY;
use crate::mcp::http::{self, HttpOptions};
use crate::mcp::server::{OutlServer, SUPPORTED_PROTOCOL_VERSIONS, SharedWorkspace};
use crate::mcp::stdio;
use crate::workspace::STATE_DIR;
use crate::{Error, ErrorCode};

/// `outl mcp`: one session on stdin/stdout, until stdin ends.
pub(super) fn over_stdio(args: &WorkspaceArg) -> ExitCode {
    serve_with(args, |server| async move {
        let (reader, writer) = rmcp::transport::stdio_pipes();
        let reader = tokio::io::BufReader::new(reader);
        run_stdio(server, reader, writer).await
    })
}

/// `outl serve`: Streamable HTTP, until Ctrl-C or SIGTERM.
pub(super) fn over_http(args: &ServeArgs) -> ExitCode {
    serve_with(&args.workspace, |server| {
        let options = HttpOptions {
            addr: SocketAddr::new(args.host, args.port),
            token: args.token.clone().filter(|token| !token.is_empty()),
            extra_hosts: args.allow_hosts.clone(),
            extra_origins: args.allow_origins.clone(),
        };
        http::serve(server, options)
    })
}

/// Checks the folder, starts opening the workspace, starts a runtime and runs one transport
/// until it ends. The transport does not wait for the open: it answers `initialize` and
/// `tools/list` at once, and each `tools/call` waits for the workspace on its own.
fn serve_with<F, Fut>(args: &WorkspaceArg, transport: F) -> ExitCode
where
    F: FnOnce(OutlServer) -> Fut,
    Fut: Future<Output = std::io::Result<()>>,
{
    let root = match workspace_root(args) {
        Ok(root) => root,
        Err((err, status)) => {
            eprintln!("outl: {err}");
            return ExitCode::from(status);
        }
    };
    if let Err(err) = check_folder(&root) {
        eprintln!("outl: {err}");
        return ExitCode::from(EXIT_FAILED);
    }
    let workspace = match SharedWorkspace::open_in_background(root) {
        Ok(workspace) => workspace,
        Err(e) => {
            eprintln!("outl: cannot start opening the workspace: {e}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("outl: cannot start the async runtime: {e}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let server = OutlServer::new(&REGISTRY, workspace);
    match runtime.block_on(transport(server)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("outl: {e}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// The checks `Workspace::open` makes before it reads anything, made before serving so that a
/// folder outl cannot use (a file, unreadable, not writable, `pages/` leading outside) stops
/// the command at once instead of failing every `tools/call` later. Like the open, it creates a
/// missing folder with its `pages/`, `journals/` and `.outl/`. The codes and messages are the
/// open's own, which makes the same checks again; tests/mcp_startup.rs holds the two to
/// agreement.
fn check_folder(root: &Path) -> Result<(), Error> {
    let unavailable = |at: &Path, why: String| {
        Error::new(ErrorCode::WorkspaceUnavailable, why)
            .with_data(json!({ "root": at.display().to_string() }))
    };
    match std::fs::metadata(root) {
        Ok(meta) if !meta.is_dir() => {
            return Err(unavailable(
                root,
                format!("{} is a file, not a folder", root.display()),
            ));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::create_dir_all(root)
            .map_err(|e| unavailable(root, format!("cannot create {}: {e}", root.display())))?,
        Err(e) => {
            return Err(unavailable(
                root,
                format!("cannot open {}: {e}", root.display()),
            ));
        }
    }
    let root = root
        .canonicalize()
        .map_err(|e| unavailable(root, format!("cannot open {}: {e}", root.display())))?;
    std::fs::read_dir(&root)
        .map_err(|e| unavailable(&root, format!("cannot read {}: {e}", root.display())))?;
    for dir in ["pages", "journals", STATE_DIR] {
        let path = root.join(dir);
        std::fs::create_dir_all(&path)
            .map_err(|e| unavailable(&root, format!("cannot create {}: {e}", path.display())))?;
        let real = path
            .canonicalize()
            .map_err(|e| unavailable(&root, format!("cannot open {}: {e}", path.display())))?;
        if !real.starts_with(&root) {
            return Err(Error::new(
                ErrorCode::PathOutsideWorkspace,
                format!(
                    "{dir}/ is a symlink to {} outside the workspace",
                    real.display()
                ),
            )
            .with_data(json!({ "path": dir })));
        }
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(root.join(STATE_DIR).join("lock"))
        .map_err(|e| unavailable(&root, format!("cannot create the lock file: {e}")))?;
    Ok(())
}

/// Serves one MCP session over a line-delimited reader and writer until the reader ends.
pub async fn run_stdio<R, W>(server: OutlServer, reader: R, writer: W) -> std::io::Result<()>
where
    R: tokio::io::AsyncBufRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let screen = stdio::Screen::new(SUPPORTED_PROTOCOL_VERSIONS);
    let (transport, writer_task) = stdio::StdioTransport::new(reader, writer, screen);
    let ended = match rmcp::serve_server(server, transport).await {
        Ok(service) => service
            .waiting()
            .await
            .map(|reason| tracing::info!(?reason, "MCP session ended"))
            .map_err(|e| std::io::Error::other(format!("MCP session failed: {e}"))),
        // Input that ends before any session began is a finished session, not a failure.
        Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(e) => Err(std::io::Error::other(format!(
            "MCP session failed to start: {e}"
        ))),
    };
    // The transport is gone either way, so the writer drains what is queued and stops.
    writer_task
        .await
        .map_err(|e| std::io::Error::other(format!("stdout writer failed: {e}")))?;
    ended
}
