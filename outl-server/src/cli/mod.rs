//! The `outl` command line: the MCP transports (`mcp`, `serve`) and the un-projected surface
//! for scripts (`call`, `tools`).

mod envelope;
mod serve;
mod tools;

use std::io::Read;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};

pub use self::envelope::Envelope;
pub use self::serve::run_stdio;
use outl_tools::REGISTRY;
use outl_workspace::{Error, ErrorCode, STATE_DIR, Session, Workspace};

/// Exit status of a command that ran and reported an error (a tool error, an unopenable
/// workspace, a transport failure).
const EXIT_FAILED: u8 = 1;
/// Exit status of a command used wrongly: bad flags, an unknown tool, arguments the tool
/// refuses (INVALID_ARGUMENTS), no workspace.
const EXIT_USAGE: u8 = 2;
/// The session every `outl call` writes as.
const CLI_SESSION: &str = "cli";

#[derive(Debug, Parser)]
#[command(
    name = "outl",
    version,
    about = "An MCP server for outliner (Logseq-style) markdown workspaces."
)]
pub struct Cli {
    /// Log filter for stderr (e.g. `info`, `outl_workspace=debug`); RUST_LOG is used when absent.
    #[arg(long, global = true, value_name = "FILTER")]
    log_level: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve MCP over stdio, for hosts that spawn the server.
    Mcp(WorkspaceArg),
    /// Serve MCP over Streamable HTTP at /mcp.
    Serve(ServeArgs),
    /// Run one tool and print the {ok, data, error} envelope, un-projected.
    Call(CallArgs),
    /// Print the tool registry: the tools/list result, the tools.toml contract, or docs/tools.md.
    Tools(tools::ToolsArgs),
}

#[derive(Debug, Args)]
pub struct WorkspaceArg {
    /// The workspace folder. Falls back to OUTL_WORKSPACE, then to the current directory if it
    /// already holds pages/, journals/ or .outl/.
    #[arg(long, short = 'w', env = "OUTL_WORKSPACE", value_name = "DIR")]
    workspace: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    workspace: WorkspaceArg,
    /// The address to bind. Anything but loopback exposes the workspace to the network.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// The port to bind; 0 picks a free one (the URL printed on stderr names it).
    #[arg(long, default_value_t = 8808)]
    port: u16,
    /// Require `Authorization: Bearer <TOKEN>` on every request.
    #[arg(long, env = "OUTL_TOKEN", value_name = "TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Also accept this Host header (e.g. a LAN name); repeatable. Loopback names are always accepted.
    #[arg(long = "allow-host", value_name = "HOST")]
    allow_hosts: Vec<String>,
    /// Also accept requests from this browser origin (scheme, host and port, as a browser
    /// sends it in `Origin`); repeatable. Loopback origins are always accepted.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool name, as in `outl tools`.
    tool: String,
    /// The arguments as a JSON object; `-` reads them from stdin.
    #[arg(long, default_value = "{}", value_name = "JSON")]
    args: String,
    #[command(flatten)]
    workspace: WorkspaceArg,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.log_level.as_deref());
    match cli.command {
        Command::Mcp(args) => serve::over_stdio(&args),
        Command::Serve(args) => serve::over_http(&args),
        Command::Call(args) => call(&args),
        Command::Tools(args) => tools::run(&args),
    }
}

/// Logs go to stderr only: on stdio, stdout is the protocol.
fn init_logging(filter: Option<&str>) {
    let filter = match filter {
        Some(filter) => tracing_subscriber::EnvFilter::new(filter),
        None => tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn call(args: &CallArgs) -> ExitCode {
    let (result, status) = run_call(args);
    write_stdout(&format!("{}\n", Envelope::of(&result).to_pretty_json()));
    ExitCode::from(status)
}

/// Writes a command's result to stdout. A reader that stopped early (`outl call ... | head`)
/// is not an error of the command, so a closed pipe is ignored instead of panicking as
/// `print!` would.
pub(crate) fn write_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

fn run_call(args: &CallArgs) -> (Result<Value, Error>, u8) {
    let Some(tool) = REGISTRY.get(&args.tool) else {
        let err = Error::new(
            ErrorCode::UnknownTool,
            format!("unknown tool: {} (see `outl tools`)", args.tool),
        )
        .with_data(json!({ "tool": args.tool }));
        return (Err(err), EXIT_USAGE);
    };
    let arguments = match parse_arguments(&args.args) {
        Ok(arguments) => arguments,
        Err(err) => return (Err(err), EXIT_USAGE),
    };
    let workspace = match open_workspace(&args.workspace) {
        // The calls of `outl call` are one session across processes, so that a script's
        // `outl call outl_undo` reverts its own last write.
        Ok(workspace) => workspace.in_session(&Session::from(CLI_SESSION)),
        Err((err, status)) => return (Err(err), status),
    };
    match tool.call(&workspace, arguments) {
        Ok(reply) => match reply.data() {
            Ok(data) => (Ok(data), 0),
            Err(err) => (Err(err), EXIT_FAILED),
        },
        Err(err) if err.code == ErrorCode::InvalidArguments => (Err(err), EXIT_USAGE),
        Err(err) => (Err(err), EXIT_FAILED),
    }
}

fn parse_arguments(raw: &str) -> Result<Value, Error> {
    let text = if raw == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            Error::new(
                ErrorCode::InvalidArguments,
                format!("cannot read --args from stdin: {e}"),
            )
        })?;
        text
    } else {
        raw.to_owned()
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => Err(Error::new(
            ErrorCode::InvalidArguments,
            format!("--args must be a JSON object, got {}", json_kind(&other)),
        )),
        Err(e) => Err(Error::new(
            ErrorCode::InvalidArguments,
            format!("--args is not JSON: {e}"),
        )),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn open_workspace(args: &WorkspaceArg) -> Result<Workspace, (Error, u8)> {
    let root = workspace_root(args)?;
    Workspace::open(&root).map_err(|err| (err, EXIT_FAILED))
}

/// The explicit folder (flag or OUTL_WORKSPACE), which is created if missing, or else the
/// current directory, but only if it already is a workspace: outl never scatters `.outl/`
/// state into whatever directory a host happened to start it in.
fn workspace_root(args: &WorkspaceArg) -> Result<PathBuf, (Error, u8)> {
    match &args.workspace {
        Some(root) => Ok(root.clone()),
        None => match std::env::current_dir() {
            Ok(cwd) if looks_like_workspace(&cwd) => Ok(cwd),
            _ => {
                let err = Error::new(
                    ErrorCode::WorkspaceUnavailable,
                    "no workspace: pass --workspace DIR or set OUTL_WORKSPACE (the current directory \
                     is used only if it already holds pages/, journals/ or .outl/)",
                );
                Err((err, EXIT_USAGE))
            }
        },
    }
}

fn looks_like_workspace(dir: &Path) -> bool {
    ["pages", "journals", STATE_DIR]
        .iter()
        .any(|sub| dir.join(sub).is_dir())
}
