//! The MCP server handler: `tools/list` and `tools/call` straight from the generated
//! [`Registry`], every reply projected by the registry runtime and outl's [`Outl`] server.
//!
//! The server answers before its workspace is open: nothing in `initialize`, `ping` or
//! `tools/list` needs the workspace (the tool list is generated at compile time), while opening
//! reads every page and builds the index, seconds on a large workspace. A [`SharedWorkspace`]
//! opens it on a thread of its own; a `tools/call` waits for it, and only the calls wait.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use outl_registry::{
    Registry, ToolEntry, tool_definitions, tool_error_payload, tool_success_payload,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::sync::{oneshot, watch};

use outl_tools::Outl;
use outl_workspace::{Error, ErrorCode};
use outl_workspace::{Session, Workspace, new_session};

/// The protocol revisions outl serves. 2026-07-28 has no `initialize`: rmcp serves it per
/// request from `_meta`, and a client that names it (or any unknown version) in `initialize`
/// is answered with [`ProtocolVersion::LATEST_WITH_INITIALIZE`].
pub const SUPPORTED_PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// The workspace a server serves: opening, open, or failed to open. Cheap to clone; every
/// clone (every session of Streamable HTTP) shares the one opening.
#[derive(Clone)]
pub struct SharedWorkspace {
    /// `None` while opening, then the outcome of the open, which never changes again.
    state: watch::Receiver<Option<Result<Arc<Workspace>, Error>>>,
}

impl SharedWorkspace {
    /// A workspace that is already open.
    pub fn ready(workspace: Arc<Workspace>) -> Self {
        let (_, state) = watch::channel(Some(Ok(workspace)));
        SharedWorkspace { state }
    }

    /// Starts opening the workspace at `root` on a thread of its own and returns at once. The
    /// outcome is logged: how long the open took, or its error, once. Once open, the
    /// outside-edit watcher looks for files changed outside outl
    /// ([`Workspace::watch_outside_edits`]), so that no call waits for that look. The threads
    /// are not joined: a process that ends while they run leaves the workspace as a crash
    /// would, which the next open repairs.
    pub fn open_in_background(root: PathBuf) -> std::io::Result<Self> {
        let (outcome, state) = watch::channel(None);
        std::thread::Builder::new()
            .name("outl-open".to_owned())
            .spawn(move || {
                let begun = Instant::now();
                let opened = Workspace::open(&root).map(Arc::new);
                match &opened {
                    Ok(workspace) => {
                        tracing::info!(
                            root = %workspace.root().display(),
                            elapsed = ?begun.elapsed(),
                            "workspace open"
                        );
                        workspace.watch_outside_edits();
                    }
                    Err(err) => tracing::error!(
                        root = %root.display(),
                        error = %err,
                        "the workspace failed to open; every tools/call returns this error"
                    ),
                }
                outcome.send_replace(Some(opened));
            })?;
        Ok(SharedWorkspace { state })
    }

    /// The open workspace, or the error its open failed with; waits while it opens.
    pub async fn get(&self) -> Result<Arc<Workspace>, Error> {
        let mut state = self.state.clone();
        match state.wait_for(Option::is_some).await.as_deref() {
            Ok(Some(outcome)) => outcome.clone(),
            // The opening thread ended without an outcome: it panicked, and the panic hook
            // has printed why on stderr.
            _ => Err(Error::new(
                ErrorCode::Internal,
                "opening the workspace failed unexpectedly (the server's stderr says why)",
            )),
        }
    }
}

/// One workspace served over MCP to one session (a stdio connection, a Streamable HTTP
/// session): the writes its calls make are that session's.
/// [`for_new_session`](Self::for_new_session) is cheap: Streamable HTTP makes one per session.
pub struct OutlServer {
    registry: &'static Registry<Outl>,
    workspace: SharedWorkspace,
    tools: Arc<[Tool]>,
    session: Session,
}

impl OutlServer {
    pub fn new(registry: &'static Registry<Outl>, workspace: SharedWorkspace) -> Self {
        OutlServer {
            registry,
            workspace,
            tools: tool_definitions(registry).into(),
            session: new_session(),
        }
    }

    /// The same workspace served to another session.
    pub fn for_new_session(&self) -> Self {
        OutlServer {
            registry: self.registry,
            workspace: self.workspace.clone(),
            tools: self.tools.clone(),
            session: new_session(),
        }
    }

    /// Runs a tool on a blocking thread (handlers do file I/O) once the workspace is open, and
    /// projects its reply there too (serializing a large reply takes a while). A workspace
    /// that failed to open gives its open's error. A panic in the handler or its projection
    /// becomes an INTERNAL error result; the server keeps serving.
    pub async fn call(
        &self,
        tool: &'static ToolEntry<Outl>,
        args: Value,
    ) -> rmcp::model::CallToolResult {
        let workspace = match self.workspace.get().await {
            Ok(workspace) => workspace.in_session(&self.session),
            Err(err) => return tool_error_payload(&err),
        };
        let (projected, result) = oneshot::channel();
        let handler = tokio::task::spawn_blocking(move || {
            let reply = tool.call(&workspace, args);
            let result = match &reply {
                Ok(reply) => tool_success_payload(reply),
                Err(err) => tool_error_payload(err),
            };
            // The call is answered before the handler's output (a page's worth of outline
            // nodes) is freed, not after.
            let _ = projected.send(result);
            drop(reply);
        });
        if let Ok(result) = result.await {
            return result;
        }
        // The thread ended without a result: it panicked.
        let why = match handler.await {
            Err(join_error) => panic_message(join_error),
            Ok(()) => "the handler ended without a reply".to_owned(),
        };
        tracing::error!(tool = tool.name(), %why, "tool handler panicked");
        tool_error_payload(&Error::new(
            ErrorCode::Internal,
            format!("{} failed unexpectedly: {why}", tool.name()),
        ))
    }
}

fn panic_message(join_error: tokio::task::JoinError) -> String {
    match join_error.try_into_panic() {
        Ok(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the handler panicked".to_owned()),
        Err(join_error) => join_error.to_string(),
    }
}

impl ServerHandler for OutlServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
            .with_server_info(Implementation::new("outl", env!("CARGO_PKG_VERSION")))
            .with_instructions(outl_tools::INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(SUPPORTED_PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.registry.get(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", outl_workspace::excerpt(&request.name)),
                Some(json!({ "tool": outl_workspace::excerpt(&request.name) })),
            ));
        };
        let args = Value::Object(request.arguments.unwrap_or_default());
        tokio::select! {
            reply = self.call(tool, args) => Ok(reply.into()),
            // The client cancelled the call, or the session or server is ending: rmcp sends
            // no answer now, so a call waiting for the workspace stops waiting instead of
            // holding the shutdown. A handler already running finishes on its own thread.
            () = context.ct.cancelled() => Err(ErrorData::internal_error(
                format!("{} was cancelled", tool.name()),
                None,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use serde_json::Map;

    use super::*;
    use outl_registry::{
        Annotations, CallTool, NoArgs, Payload, Reply, Tool as RegisteredTool, ToolSpec,
    };
    use outl_tools::REGISTRY;

    #[test]
    fn no_tool_declares_an_output_schema() {
        let listed =
            serde_json::to_value(ListToolsResult::with_all_items(tool_definitions(&REGISTRY)))
                .expect("tools/list serializes");
        let tools = listed["tools"].as_array().expect("a tool array");
        assert_eq!(tools.len(), REGISTRY.tools().len());
        for tool in tools {
            assert!(
                tool.get("outputSchema").is_none(),
                "{} declares an outputSchema",
                tool["name"]
            );
            assert!(
                tool.get("title").is_none(),
                "{} sends a title",
                tool["name"]
            );
            assert_eq!(tool["annotations"]["openWorldHint"], false);
            assert_eq!(tool["inputSchema"]["type"], "object");
        }
    }

    /// A tool whose handler panics on every call.
    struct Panics;

    impl RegisteredTool for Panics {
        const SPEC: ToolSpec = ToolSpec {
            name: "test_panics",
            description: "Panics.",
            payload: Payload::Json,
            drops: &[],
            annotations: Annotations {
                read_only: true,
                destructive: false,
                idempotent: true,
            },
            params: &[],
        };

        fn input_schema() -> &'static Map<String, Value> {
            static SCHEMA: OnceLock<Map<String, Value>> = OnceLock::new();
            outl_registry::cached_input_schema::<NoArgs>(&SCHEMA)
        }
    }

    impl CallTool<Outl> for Panics {
        fn call(_ws: &Workspace, _args: Value) -> Result<Reply<Error>, Error> {
            panic!("boom")
        }
    }

    #[tokio::test]
    async fn a_failed_open_fails_every_get_with_its_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("notes.md");
        std::fs::write(&file, "- not a folder\n").expect("write a file");
        let expected = Workspace::open(&file)
            .err()
            .expect("a file is no workspace");
        let workspace = SharedWorkspace::open_in_background(file).expect("start the open");
        for _ in 0..2 {
            assert_eq!(workspace.get().await.err(), Some(expected.clone()));
        }
    }

    static PANICKING: Registry<Outl> = Registry::new(&[ToolEntry::of::<Panics>()]);

    #[tokio::test]
    async fn a_panicking_handler_is_an_internal_error_and_the_server_goes_on() {
        let dir = tempfile::tempdir().expect("temp dir");
        let workspace = Workspace::open(dir.path()).expect("open workspace");
        let server = OutlServer::new(&PANICKING, SharedWorkspace::ready(Arc::new(workspace)));
        let tool = PANICKING.get("test_panics").expect("registered");
        for _ in 0..2 {
            let wire =
                serde_json::to_value(server.call(tool, json!({})).await).expect("serializes");
            assert_eq!(wire["isError"], true);
            assert_eq!(wire["structuredContent"]["error"]["code"], "INTERNAL");
            let message = wire["structuredContent"]["error"]["message"]
                .as_str()
                .unwrap_or_default();
            assert!(
                message.contains("test_panics") && message.contains("boom"),
                "{message}"
            );
        }
    }
}
