//! The `{ok, data, error}` envelope the CLI prints: the un-projected surface. Scripts get the
//! handler output exactly as computed, with `tokens`, `collapsed` and `properties` intact.

use serde::Serialize;
use serde_json::Value;

use outl_workspace::Error;

#[derive(Debug, Serialize)]
pub struct Envelope<'a> {
    pub ok: bool,
    pub data: Option<&'a Value>,
    pub error: Option<&'a Error>,
}

impl<'a> Envelope<'a> {
    pub fn of(result: &'a Result<Value, Error>) -> Self {
        match result {
            Ok(data) => Envelope {
                ok: true,
                data: Some(data),
                error: None,
            },
            Err(error) => Envelope {
                ok: false,
                data: None,
                error: Some(error),
            },
        }
    }

    /// Pretty-printed: the CLI's readers are people and scripts, not a token budget.
    pub fn to_pretty_json(&self) -> String {
        // Every part is a `Value` or a plain struct with string keys: serializing cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use outl_workspace::ErrorCode;
    use serde_json::json;

    #[test]
    fn success_and_error_share_one_shape() {
        let ok: Result<Value, Error> =
            Ok(json!({"id": "a1", "text": "x", "tokens": [], "children": []}));
        let sent: Value = serde_json::from_str(&Envelope::of(&ok).to_pretty_json()).unwrap();
        assert_eq!(
            sent,
            json!({"ok": true, "data": {"id": "a1", "text": "x", "tokens": [], "children": []}, "error": null})
        );

        let failed: Result<Value, Error> =
            Err(Error::new(ErrorCode::PageNotFound, "no page x").with_data(json!({"slug": "x"})));
        let sent: Value = serde_json::from_str(&Envelope::of(&failed).to_pretty_json()).unwrap();
        assert_eq!(
            sent,
            json!({
                "ok": false,
                "data": null,
                "error": {"code": "PAGE_NOT_FOUND", "message": "no page x", "data": {"slug": "x"}},
            })
        );
    }
}
