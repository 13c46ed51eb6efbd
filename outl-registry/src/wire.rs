//! The registry on the MCP wire: `tools/list` and the replies of `tools/call` (RFC 0276).
//!
//! A projection is a place to drop what the reader can re-derive, never the only copy: a
//! success drops what the server's [`Server::success_json`](crate::Server::success_json) drops and, for markdown
//! tools, the fields the caller already has; an error drops nothing.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::{Annotations, Payload, Registry, Reply, Server, ToolEntry, ToolError};

/// `tools/list`: every registered tool in registry order. No tool declares an
/// `outputSchema` (RFC 0276: a declared schema would oblige `structuredContent` on every
/// success).
pub fn tool_definitions<S: Server>(registry: &Registry<S>) -> Vec<Tool> {
    registry.tools().iter().map(tool_definition).collect()
}

fn tool_definition<S: Server>(tool: &ToolEntry<S>) -> Tool {
    let spec = &tool.spec;
    Tool::new(
        spec.name,
        spec.description,
        Arc::new(tool.input_schema().clone()),
    )
    .with_annotations(hints(spec.annotations))
}

/// A tool's annotations as `tools/list` sends them: only the hints that differ from MCP's
/// defaults (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
/// `openWorldHint` true), and neither `destructiveHint` nor `idempotentHint` on a read-only
/// tool, for which the spec gives them no meaning. `openWorldHint: false` is always sent (see
/// [`Annotations`]).
fn hints(annotations: Annotations) -> ToolAnnotations {
    let mut hints = ToolAnnotations::new().open_world(false);
    if annotations.read_only {
        hints = hints.read_only(true);
    } else {
        if !annotations.destructive {
            hints = hints.destructive(false);
        }
        if annotations.idempotent {
            hints = hints.idempotent(true);
        }
    }
    hints
}

/// A success reply: content only, no `structuredContent` (no tool declares an output
/// schema, so none is owed). `content[0].text` is the output as its server's
/// [`Server::success_json`](crate::Server::success_json) writes it, or for a markdown tool the raw markdown of its
/// field, followed, when the markdown is a slice cut short, by its `cut` field as compact JSON
/// in `content[1].text`. An output that cannot be serialized (a handler bug) is sent as the
/// error it is.
pub fn tool_success_payload<E: ToolError>(reply: &Reply<E>) -> CallToolResult {
    match success_texts(reply) {
        Ok(texts) => {
            let content = texts.into_iter().map(ContentBlock::text).collect();
            let mut result = CallToolResult::success(content);
            // `isError` defaults to false; leaving it out keeps every success reply minimal.
            result.is_error = None;
            result
        }
        Err(err) => tool_error_payload(&err),
    }
}

fn success_texts<E: ToolError>(reply: &Reply<E>) -> Result<Vec<String>, E> {
    let Payload::Markdown { field, cut } = reply.payload else {
        return Ok(vec![reply.success_json()?]);
    };
    let mut data = reply.data()?;
    let Some(Value::String(markdown)) = data.get_mut(field) else {
        // The macro checks that the field is a String, so this is a handler bug; sending the
        // whole payload keeps every field the caller could need.
        tracing::error!(
            field,
            "markdown payload field missing from the reply; sending JSON"
        );
        return Ok(vec![reply.success_json()?]);
    };
    let mut texts = vec![std::mem::take(markdown)];
    if let Some(cut) = cut
        .and_then(|cut| data.get(cut))
        .filter(|cut| !cut.is_null())
    {
        texts.push(cut.to_string());
    }
    Ok(texts)
}

/// An error reply keeps its envelope: `structuredContent` is the only machine-readable copy
/// of `error.data` (RFC 0276 decision 3); the text is a one-line `CODE: message` summary.
pub fn tool_error_payload<E: ToolError>(err: &E) -> CallToolResult {
    let summary = format!("{}: {}", err.code(), one_line(err.message()));
    let mut result = CallToolResult::error(vec![ContentBlock::text(summary)]);
    result.structured_content = Some(json!({
        "ok": false,
        "error": { "code": err.code(), "message": err.message(), "data": err.data() },
    }));
    result
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_say_only_what_differs_from_the_spec_defaults() {
        let hints_of = |read_only, destructive, idempotent| {
            serde_json::to_value(hints(Annotations {
                read_only,
                destructive,
                idempotent,
            }))
            .expect("annotations serialize")
        };
        // destructiveHint and idempotentHint mean nothing for a read-only tool.
        let read_only = json!({"readOnlyHint": true, "openWorldHint": false});
        assert_eq!(hints_of(true, false, true), read_only);
        assert_eq!(hints_of(true, false, false), read_only);
        assert_eq!(
            hints_of(false, true, false),
            json!({"openWorldHint": false})
        );
        assert_eq!(
            hints_of(false, true, true),
            json!({"idempotentHint": true, "openWorldHint": false})
        );
        assert_eq!(
            hints_of(false, false, false),
            json!({"destructiveHint": false, "openWorldHint": false})
        );
        assert_eq!(
            hints_of(false, false, true),
            json!({"destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
        );
    }
}
