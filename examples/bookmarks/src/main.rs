//! `bookmarks [FILE]`: serves the reading list in FILE (default `bookmarks.json`) over MCP on
//! stdio, its tools from the generated registry and its replies by the registry runtime.

use std::sync::Arc;

use bookmarks::{Error, Library, TOOLS};
use outl_registry::{tool_definitions, tool_error_payload, tool_success_payload};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

struct BookmarksServer {
    library: Arc<Library>,
}

impl ServerHandler for BookmarksServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("bookmarks", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tool_definitions(&TOOLS)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = TOOLS.get(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        };
        let args = Value::Object(request.arguments.unwrap_or_default());
        let library = self.library.clone();
        // Handlers write the file and fsync it: off the async threads.
        let result = tokio::task::spawn_blocking(move || match tool.call(&library, args) {
            Ok(reply) => tool_success_payload(&reply),
            Err(err) => tool_error_payload(&err),
        })
        .await
        .unwrap_or_else(|panic| {
            tool_error_payload(&Error::new(
                "INTERNAL",
                format!("{} failed: {panic}", tool.name()),
            ))
        });
        Ok(result.into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os()
        .nth(1)
        .unwrap_or_else(|| "bookmarks.json".into());
    let library = Arc::new(Library::open(path).map_err(|e| format!("{}: {}", e.code, e.message))?);
    let server = BookmarksServer { library }
        .serve(rmcp::transport::stdio())
        .await?;
    server.waiting().await?;
    Ok(())
}
