//! Decoding a `tools/call`'s arguments: every problem at once, each with a JSON pointer
//! (SEP-1303), so a model can fix its call in one round trip instead of one per mistake.
//!
//! The arguments are first checked against the tool's `inputSchema`, which is what the model
//! was shown, then decoded by serde; a serde error that the schema did not foresee (a custom
//! deserializer's own rule) is reported with the path where it happened.
//!
//! Every string argument has a length limit: the `maxLength` its schema states, else
//! [`MAX_STRING_CHARS`] (names, ids, dates, cursors, queries), so that no argument is longer
//! than what the tool can use.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::ToolError;

/// The longest string argument, in characters, where the schema states no `maxLength`: a
/// name, id, key, date, cursor or search query.
pub const MAX_STRING_CHARS: usize = 1_000;

/// One thing wrong with the arguments, at `pointer` (RFC 6901; `""` is the arguments object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub pointer: String,
    pub message: String,
}

/// Decode `args` against the tool's `schema`. `null` (arguments left out) means `{}`.
/// The error is [`ToolError::invalid_arguments`] with `data.problems` listing each problem.
pub fn decode_args<A: DeserializeOwned, E: ToolError>(
    schema: &Map<String, Value>,
    args: Value,
) -> Result<A, E> {
    let args = if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    };
    let root = Schema { root: schema };
    let mut problems = Vec::new();
    root.validate(schema, &args, &mut String::new(), &mut problems);
    if problems.is_empty() {
        match serde_path_to_error::deserialize::<_, A>(args) {
            Ok(decoded) => return Ok(decoded),
            Err(e) => problems.push(Problem {
                pointer: pointer_of(e.path()),
                message: e.into_inner().to_string(),
            }),
        }
    }
    Err(invalid_arguments(problems))
}

/// [`ToolError::invalid_arguments`] listing `problems` in `data.problems`; handlers use it for
/// what the schema cannot say (two arguments that exclude each other, a malformed date).
pub fn invalid_arguments<E: ToolError>(problems: Vec<Problem>) -> E {
    let summary = problems
        .iter()
        .map(|p| {
            if p.pointer.is_empty() {
                p.message.clone()
            } else {
                format!("{}: {}", p.pointer, p.message)
            }
        })
        .collect::<Vec<_>>()
        .join("; ");
    E::invalid_arguments(summary, json!({ "problems": problems }))
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => push_token(&mut pointer, &index.to_string()),
            Segment::Map { key } | Segment::Enum { variant: key } => push_token(&mut pointer, key),
            Segment::Unknown => {}
        }
    }
    pointer
}

fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    pointer.push_str(&token.replace('~', "~0").replace('/', "~1"));
}

/// The subset of JSON Schema that schemars emits for Rust types: `type`, `enum`, `const`,
/// object and array keywords, numeric and length bounds, `anyOf`/`oneOf`/`allOf` and local
/// `$ref`s. `format` and `pattern` are left to serde, whose error carries the path. An object
/// takes no property its schema does not list unless `additionalProperties` allows it.
struct Schema<'a> {
    root: &'a Map<String, Value>,
}

impl Schema<'_> {
    fn validate(
        &self,
        schema: &Map<String, Value>,
        value: &Value,
        at: &mut String,
        out: &mut Vec<Problem>,
    ) {
        if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
            match self.resolve(target) {
                Some(sub) => self.validate_value(sub, value, at, out),
                None => out.push(Problem {
                    pointer: at.clone(),
                    message: format!("the schema refers to {target}, which it does not define"),
                }),
            }
        }
        self.validate_keywords(schema, value, at, out)
    }

    fn validate_keywords(
        &self,
        schema: &Map<String, Value>,
        value: &Value,
        at: &mut String,
        out: &mut Vec<Problem>,
    ) {
        if let Some(expected) = schema.get("type")
            && !type_matches(expected, value)
        {
            out.push(Problem {
                pointer: at.clone(),
                message: format!(
                    "expected {}, got {}",
                    describe_type(expected),
                    json_type(value)
                ),
            });
            return;
        }
        if let Some(Value::Array(allowed)) = schema.get("enum")
            && !allowed.contains(value)
        {
            out.push(Problem {
                pointer: at.clone(),
                message: format!("expected one of {}", list(allowed)),
            });
            return;
        }
        if let Some(expected) = schema.get("const")
            && expected != value
        {
            out.push(Problem {
                pointer: at.clone(),
                message: format!("expected {expected}"),
            });
            return;
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = schema.get(keyword) {
                self.validate_alternatives(branches, value, at, out);
            }
        }
        if let Some(Value::Array(all)) = schema.get("allOf") {
            for sub in all {
                self.validate_value(sub, value, at, out);
            }
        }
        match value {
            Value::Object(object) => self.validate_object(schema, object, at, out),
            Value::Array(items) => self.validate_array(schema, items, at, out),
            Value::String(s) => {
                let length = s.chars().count();
                bound(
                    schema,
                    "minLength",
                    at,
                    out,
                    |min| length as f64 >= min,
                    |min| format!("expected at least {min} characters"),
                );
                let max = schema
                    .get("maxLength")
                    .and_then(Value::as_u64)
                    .map_or(MAX_STRING_CHARS, |max| max as usize);
                if length > max {
                    out.push(Problem {
                        pointer: at.clone(),
                        message: format!(
                            "{length} characters, over the limit of {max} for this argument"
                        ),
                    });
                }
            }
            Value::Number(n) => {
                let Some(n) = n.as_f64() else { return };
                bound(
                    schema,
                    "minimum",
                    at,
                    out,
                    |min| n >= min,
                    |min| format!("expected a number >= {min}"),
                );
                bound(
                    schema,
                    "maximum",
                    at,
                    out,
                    |max| n <= max,
                    |max| format!("expected a number <= {max}"),
                );
                bound(
                    schema,
                    "exclusiveMinimum",
                    at,
                    out,
                    |min| n > min,
                    |min| format!("expected a number > {min}"),
                );
                bound(
                    schema,
                    "exclusiveMaximum",
                    at,
                    out,
                    |max| n < max,
                    |max| format!("expected a number < {max}"),
                );
            }
            Value::Null | Value::Bool(_) => {}
        }
    }

    fn validate_value(
        &self,
        schema: &Value,
        value: &Value,
        at: &mut String,
        out: &mut Vec<Problem>,
    ) {
        match schema {
            Value::Object(schema) => self.validate(schema, value, at, out),
            Value::Bool(false) => out.push(Problem {
                pointer: at.clone(),
                message: "no value is allowed here".into(),
            }),
            _ => {}
        }
    }

    fn validate_object(
        &self,
        schema: &Map<String, Value>,
        object: &Map<String, Value>,
        at: &mut String,
        out: &mut Vec<Problem>,
    ) {
        let empty = Map::new();
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = match schema.get("required") {
            Some(Value::Array(required)) => required.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for &name in &required {
            if !object.contains_key(name) {
                let len = at.len();
                push_token(at, name);
                out.push(Problem {
                    pointer: at.clone(),
                    message: "missing required property".into(),
                });
                at.truncate(len);
            }
        }
        for (name, value) in object {
            let len = at.len();
            push_token(at, name);
            match (properties.get(name), schema.get("additionalProperties")) {
                // An optional argument sent as `null` is one left out: the schema does not say
                // `null` (see `lean_schema`), and serde decodes it as `None`, or refuses it with
                // its path where the field has no null.
                (Some(_), _) if value.is_null() && !required.contains(&name.as_str()) => {}
                (Some(sub), _) => self.validate_value(sub, value, at, out),
                (None, Some(Value::Bool(true))) => {}
                (None, Some(extra @ Value::Object(_))) => {
                    self.validate_value(extra, value, at, out)
                }
                // Closed unless the schema says otherwise: every argument type refuses unknown
                // fields, and its schema leaves `additionalProperties: false` unsaid (see
                // `lean_schema`).
                (None, _) => out.push(Problem {
                    pointer: at.clone(),
                    message: if properties.is_empty() {
                        "unknown property: this tool takes no arguments".into()
                    } else {
                        format!(
                            "unknown property; the properties are {}",
                            properties.keys().cloned().collect::<Vec<_>>().join(", ")
                        )
                    },
                }),
            }
            at.truncate(len);
        }
    }

    fn validate_array(
        &self,
        schema: &Map<String, Value>,
        items: &[Value],
        at: &mut String,
        out: &mut Vec<Problem>,
    ) {
        let count = items.len() as f64;
        bound(
            schema,
            "minItems",
            at,
            out,
            |min| count >= min,
            |min| format!("expected at least {min} items"),
        );
        bound(
            schema,
            "maxItems",
            at,
            out,
            |max| count <= max,
            |max| format!("expected at most {max} items"),
        );
        let prefix = schema
            .get("prefixItems")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        for (index, item) in items.iter().enumerate() {
            let len = at.len();
            push_token(at, &index.to_string());
            match prefix.get(index) {
                Some(sub) => self.validate_value(sub, item, at, out),
                None => {
                    if let Some(sub) = schema.get("items") {
                        self.validate_value(sub, item, at, out);
                    }
                }
            }
            at.truncate(len);
        }
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
            for (index, item) in items.iter().enumerate() {
                if items[..index].contains(item) {
                    let len = at.len();
                    push_token(at, &index.to_string());
                    out.push(Problem {
                        pointer: at.clone(),
                        message: "duplicate item: the items must be unique".into(),
                    });
                    at.truncate(len);
                }
            }
        }
    }

    /// `anyOf`/`oneOf` as schemars emits them: an `Option` (a branch plus `null`), an enum's
    /// variants. When no branch accepts the value, the problems of the one branch whose type
    /// fits are the useful ones; failing that, the allowed constants, or one summary.
    fn validate_alternatives(
        &self,
        branches: &[Value],
        value: &Value,
        at: &mut String,
        out: &mut Vec<Problem>,
    ) {
        let mut fitting = Vec::new();
        for branch in branches {
            let mut problems = Vec::new();
            self.validate_value(branch, value, at, &mut problems);
            if problems.is_empty() {
                return;
            }
            if branch_type_fits(branch, value) {
                fitting.push(problems);
            }
        }
        if fitting.len() == 1 {
            out.extend(fitting.pop().into_iter().flatten());
            return;
        }
        let constants: Option<Vec<Value>> = branches
            .iter()
            .map(|b| b.get("const").cloned().or_else(|| b.get("enum").cloned()))
            .collect::<Option<Vec<_>>>()
            .map(|values| {
                values
                    .into_iter()
                    .flat_map(|v| if let Value::Array(a) = v { a } else { vec![v] })
                    .collect()
            });
        let message = match constants {
            Some(values) => format!("expected one of {}", list(&values)),
            None => format!("{} matches none of the allowed shapes", json_type(value)),
        };
        out.push(Problem {
            pointer: at.clone(),
            message,
        });
    }

    fn resolve(&self, target: &str) -> Option<&Value> {
        let pointer = target.strip_prefix('#')?;
        let mut segments = pointer
            .split('/')
            .skip(1)
            .map(|s| s.replace("~1", "/").replace("~0", "~"));
        let first = segments.next()?;
        segments.try_fold(self.root.get(&first)?, |node, segment| match node {
            Value::Object(map) => map.get(&segment),
            Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        })
    }
}

/// Whether a branch is about this kind of value, so its problems are worth reporting. A
/// `$ref` branch (a recursive type) is given the benefit of the doubt.
fn branch_type_fits(branch: &Value, value: &Value) -> bool {
    match branch.get("type") {
        Some(expected) => type_matches(expected, value),
        None => {
            branch.get("$ref").is_some()
                || (branch.get("properties").is_some() && value.is_object())
        }
    }
}

fn bound(
    schema: &Map<String, Value>,
    keyword: &str,
    at: &str,
    out: &mut Vec<Problem>,
    holds: impl Fn(f64) -> bool,
    message: impl Fn(&Value) -> String,
) {
    if let Some(limit) = schema.get(keyword)
        && let Some(n) = limit.as_f64()
        && !holds(n)
    {
        out.push(Problem {
            pointer: at.to_owned(),
            message: message(limit),
        });
    }
}

fn type_matches(expected: &Value, value: &Value) -> bool {
    let one = |name: &str| match name {
        "integer" => value.is_i64() || value.is_u64(),
        other => other == json_type(value),
    };
    match expected {
        Value::String(name) => one(name),
        Value::Array(names) => names.iter().filter_map(Value::as_str).any(one),
        _ => true,
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn describe_type(expected: &Value) -> String {
    match expected {
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        Value::String(name) => name.clone(),
        other => other.to_string(),
    }
}

fn list(values: &[Value]) -> String {
    values
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)] // `name` is decoded to be refused
    struct Args {
        name: String,
        #[schemars(length(max = 5))]
        text: Option<String>,
    }

    /// An error that keeps what the runtime gives it.
    #[derive(Debug)]
    struct Refusal {
        data: Option<Value>,
    }

    impl ToolError for Refusal {
        fn code(&self) -> &str {
            "REFUSED"
        }
        fn message(&self) -> &str {
            ""
        }
        fn data(&self) -> Option<&Value> {
            self.data.as_ref()
        }
        fn invalid_arguments(_message: String, data: Value) -> Self {
            Refusal { data: Some(data) }
        }
        fn internal(_message: String) -> Self {
            Refusal { data: None }
        }
    }

    fn problems(args: Value) -> Vec<Value> {
        let schema = crate::input_schema_for::<Args>();
        let error = decode_args::<Args, Refusal>(&schema, args).expect_err("refused");
        let data = error.data.expect("data");
        data["problems"].as_array().expect("problems").clone()
    }

    #[test]
    fn an_optional_argument_sent_as_null_is_one_left_out() {
        let schema = crate::input_schema_for::<Args>();
        assert_eq!(schema["properties"]["text"]["type"], "string");
        let decoded: Args = decode_args::<_, Refusal>(&schema, json!({"name": "n", "text": null}))
            .expect("null is absent");
        assert_eq!(decoded.text, None);
        // A required argument has no null to stand for it.
        let found = problems(json!({"name": null}));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0]["pointer"], "/name");
        // Nor does an unknown one, which is refused though the schema does not say so.
        assert!(!schema.contains_key("additionalProperties"));
        let found = problems(json!({"name": "n", "other": null}));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0]["pointer"], "/other");
        assert_eq!(
            found[0]["message"],
            "unknown property; the properties are name, text"
        );
    }

    #[test]
    fn strings_over_their_limit_are_refused_naming_the_argument_and_the_limit() {
        let found = problems(json!({"name": "n".repeat(MAX_STRING_CHARS + 1), "text": "123456"}));
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0]["pointer"], "/name");
        assert_eq!(
            found[0]["message"],
            "1001 characters, over the limit of 1000 for this argument"
        );
        assert_eq!(found[1]["pointer"], "/text");
        assert_eq!(
            found[1]["message"],
            "6 characters, over the limit of 5 for this argument"
        );
        // Characters, not bytes.
        let schema = crate::input_schema_for::<Args>();
        let at_limit = json!({"name": "é".repeat(MAX_STRING_CHARS), "text": "ééééé"});
        assert!(decode_args::<Args, Refusal>(&schema, at_limit).is_ok());
    }
}
