//! The reply of a successful `tools/call` as outl sent it before RFC 0276: the measurement
//! baseline of `outl-bench replies`, never a wire the server produces.
//!
//! Before the RFC a success carried its payload twice: `structuredContent` held the CLI's
//! `{ok, data, error}` envelope around the whole handler output (outline nodes with `tokens`,
//! `collapsed` and `properties` intact), and `content[0].text` held the same data again as
//! pretty-printed JSON, except for the four markdown-first tools, whose text was the raw
//! markdown of their `md` field.

use serde_json::{Value, json};

use outl_server::cli::Envelope;

/// The tools whose pre-RFC text was their `md` field rather than a JSON copy of the data.
pub const MARKDOWN_FIRST: [&str; 4] = [
    "outl_page_render",
    "outl_export_md",
    "outl_daily_today",
    "outl_daily_get",
];

/// The whole `result` object of the pre-RFC reply to `tool` for this handler output.
pub fn pre_rfc_result(tool: &str, data: &Value) -> Value {
    let markdown = MARKDOWN_FIRST
        .contains(&tool)
        .then(|| data.get("md").and_then(Value::as_str))
        .flatten();
    let text = match markdown {
        Some(md) => md.to_owned(),
        // Serializing a `Value` cannot fail.
        None => serde_json::to_string_pretty(data).unwrap_or_default(),
    };
    let result: Result<Value, outl_workspace::Error> = Ok(data.clone());
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": Envelope::of(&result),
        "isError": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payload_went_out_twice_with_the_gui_fields() {
        let data = json!({"blocks": [{"id": "a1", "text": "hi", "collapsed": false, "todo": null, "properties": {}, "tokens": [{"t": "text", "s": "hi"}], "children": []}]});
        let sent = pre_rfc_result("outl_page_get", &data);
        assert_eq!(
            sent["structuredContent"],
            json!({"ok": true, "data": data, "error": null})
        );
        let text = sent["content"][0]["text"].as_str().expect("text content");
        assert!(
            text.contains("\n  \"blocks\""),
            "not pretty-printed: {text}"
        );
        let copy: Value = serde_json::from_str(text).expect("the text is JSON");
        assert_eq!(copy, data);
        assert_eq!(sent["isError"], json!(false));
    }

    #[test]
    fn the_four_markdown_first_tools_sent_their_md_as_text() {
        let data = json!({"date": "2026-11-30", "outline": [], "md": "- hello\n"});
        for tool in MARKDOWN_FIRST {
            let sent = pre_rfc_result(tool, &data);
            assert_eq!(sent["content"][0]["text"], "- hello\n");
            assert_eq!(sent["structuredContent"]["data"], data);
        }
        let other = pre_rfc_result("outl_page_get", &data);
        assert_ne!(other["content"][0]["text"], "- hello\n");
    }
}
