//! Serving MCP (`outl mcp`, `outl serve`). The server answers at once and opens the workspace
//! in the background (see [`SharedWorkspace`]); only the checks that take no time and catch a
//! folder outl cannot use run first, and stop the command as they always did.

use std::net::SocketAddr;
use std::process::ExitCode;

use rmcp::service::ServerInitializeError;

use super::{EXIT_FAILED, ServeArgs, WorkspaceArg, workspace_root};
use outl_mcp::http::{self, HttpOptions};
use outl_mcp::server::{OutlServer, SUPPORTED_PROTOCOL_VERSIONS, SharedWorkspace};
use outl_mcp::stdio;
use outl_tools::REGISTRY;
use outl_workspace::Workspace;

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
    if let Err(err) = Workspace::prepare(&root) {
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
