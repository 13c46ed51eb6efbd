//! The runtime half of the tool registry. `#[outl_macros::tool]` implements [`Tool`] for each
//! handler and `outl_macros::registry!` collects them into a [`Registry`]; nothing here is
//! written by hand per tool.
//!
//! The compile-time rules (RFC 0276's droppability test, the `tools.toml` contract) are
//! evaluated by `const` items that the macros generate; the `const fn`s they call live in
//! [`checks`].

mod args;
#[doc(hidden)]
pub mod checks;

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::Deserialize;
pub use serde_json::{Map, Value};

pub use self::args::{
    MAX_MARKDOWN_CHARS, MAX_STRING_CHARS, MAX_TEXT_CHARS, Problem, decode_args, invalid_arguments,
};
use crate::workspace::Workspace;
use crate::{Error, ErrorCode};

/// The arguments that mean the same in every tool that takes them (a page, a block, markdown to
/// write, a slice's size, where it continues, the reply's size), described once, in the server's instructions
/// (`mcp::server::INSTRUCTIONS`), instead of in each `inputSchema`: an argument field of one
/// of these names has no doc comment, and every other one has (checked at compile time).
pub const SHARED_ARGS: [&str; 6] = ["slug", "id", "md", "limit", "cursor", "budget"];

/// How a success reply is projected onto the MCP wire (RFC 0276 decision 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// The whole handler output as compact JSON, outline nodes pruned of GUI fields.
    Json,
    /// Only this `String` field of the handler output, as raw markdown; every other field is
    /// listed in the tool's `drops` with where the caller gets it instead, but `cut`: the
    /// field that says where a slice cut short continues, sent after the markdown as a second
    /// text content, compact JSON, when it is not null.
    Markdown {
        field: &'static str,
        cut: Option<&'static str>,
    },
}

/// Why a markdown payload may leave a field out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Justification {
    /// The caller sent it: the argument type has a field of the same name and, checked in
    /// debug builds, the handler returned the value the caller sent.
    Arg,
    /// Where else the caller can get it, in words.
    Elsewhere(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drop {
    pub field: &'static str,
    pub why: Justification,
}

/// MCP tool annotations. `openWorldHint` is always false: outl touches only its workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
}

/// Everything about a tool's wire shape that is fixed at compile time.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    pub name: &'static str,
    /// The handler's doc comment.
    pub description: &'static str,
    pub payload: Payload,
    pub drops: &'static [Drop],
    pub annotations: Annotations,
    /// The argument type's fields, as `tools.toml` lists them under `params`.
    pub params: &'static [Field],
}

impl ToolSpec {
    /// The tool's table in `tools.toml`, exactly as the build asks for it.
    pub fn contract_table(&self) -> String {
        let mut table = checks::Msg::new();
        table.push_contract_table(self);
        table.as_str().to_owned()
    }
}

/// A successful call before projection. The handler's output stays typed until a surface
/// serializes it, so that each serializes it once and only as far as it sends it: the CLI
/// prints all of it ([`Reply::data`]), the MCP projection leaves out what RFC 0276 prunes
/// without computing it (`mcp::payload`).
pub struct Reply {
    pub payload: Payload,
    /// The tool that produced it, for the message of an output that is not JSON.
    tool: &'static str,
    output: Box<dyn Output>,
}

/// A handler output of any type, serialized on demand in the two ways there are.
trait Output: Send {
    fn to_value(&self) -> serde_json::Result<Value>;
    fn to_pruned_json(&self) -> serde_json::Result<String>;
}

impl<T: serde::Serialize + Send> Output for T {
    fn to_value(&self) -> serde_json::Result<Value> {
        serde_json::to_value(self)
    }

    fn to_pruned_json(&self) -> serde_json::Result<String> {
        crate::mcp::payload::pruned_json(self)
    }
}

impl Reply {
    pub fn new(
        tool: &'static str,
        payload: Payload,
        output: impl serde::Serialize + Send + 'static,
    ) -> Reply {
        Reply {
            payload,
            tool,
            output: Box::new(output),
        }
    }

    /// The handler's whole output as JSON, exactly as the CLI prints it.
    pub fn data(&self) -> Result<Value, Error> {
        self.output.to_value().map_err(|e| not_json(self.tool, e))
    }

    /// The handler's output as compact JSON without what RFC 0276 prunes, written straight
    /// from its own type (`mcp::payload` owns the pruning).
    pub(crate) fn pruned_json(&self) -> Result<String, Error> {
        self.output
            .to_pruned_json()
            .map_err(|e| not_json(self.tool, e))
    }
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("tool", &self.tool)
            .field("payload", &self.payload)
            .field("data", &self.data())
            .finish()
    }
}

/// One field of a [`ToolFields`] type, as the compile-time checks see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The name on the wire, after `#[serde(rename)]` / `rename_all`.
    pub name: &'static str,
    /// The Rust type as written in the struct, as `tools.toml` records parameters.
    pub ty: &'static str,
    /// Whether the type is written `String`, the only type a markdown payload can be.
    pub is_string: bool,
    /// Whether the field has a doc comment (or `#[schemars(description)]`), which becomes
    /// its description in `inputSchema`.
    pub documented: bool,
}

/// The fields of an argument or return type, listed by `#[derive(outl_macros::ToolFields)]`
/// so that `#[tool]` can check `markdown(..)`, `drops(..)` and the `tools.toml` parameters
/// at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not list its fields for the tool registry",
    label = "`#[tool]` checks this type's fields at compile time",
    note = "add `#[derive(outl_macros::ToolFields)]` to `{Self}`"
)]
pub trait ToolFields {
    const FIELDS: &'static [Field];
}

/// A registered tool. Implemented by `#[tool]` on a unit struct named like the handler.
pub trait Tool {
    const SPEC: ToolSpec;
    /// The JSON Schema of the arguments (see [`input_schema_for`]), built once.
    fn input_schema() -> &'static Map<String, Value>;
    /// Decode the arguments, run the handler, serialize its whole output.
    fn call(ws: &Workspace, args: Value) -> Result<Value, Error>;
    /// [`Tool::call`] with the output kept typed, for a surface that sends only part of it
    /// (`#[tool]` implements it; by default it holds what `call` returns).
    fn reply(ws: &Workspace, args: Value) -> Result<Reply, Error> {
        let data = Self::call(ws, args)?;
        Ok(Reply::new(Self::SPEC.name, Self::SPEC.payload, data))
    }
}

/// A [`Tool`] as a value, so that tools of different types share one list.
#[derive(Clone, Copy)]
pub struct ToolEntry {
    pub spec: ToolSpec,
    input_schema: fn() -> &'static Map<String, Value>,
    call: fn(&Workspace, Value) -> Result<Reply, Error>,
}

impl ToolEntry {
    pub const fn of<T: Tool>() -> Self {
        ToolEntry {
            spec: T::SPEC,
            input_schema: T::input_schema,
            call: T::reply,
        }
    }

    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    pub fn input_schema(&self) -> &'static Map<String, Value> {
        (self.input_schema)()
    }

    /// Run the tool; the reply carries its projection kind with the output.
    pub fn call(&self, ws: &Workspace, args: Value) -> Result<Reply, Error> {
        (self.call)(ws, args)
    }
}

impl std::fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEntry")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

/// Every tool of the server, in the order `registry!` lists them (which is the order of
/// `tools/list`). Names are unique: `registry!` refuses a duplicate at compile time.
#[derive(Debug)]
pub struct Registry {
    tools: &'static [ToolEntry],
}

impl Registry {
    pub const fn new(tools: &'static [ToolEntry]) -> Self {
        Registry { tools }
    }

    pub fn tools(&self) -> &'static [ToolEntry] {
        self.tools
    }

    pub fn get(&self, name: &str) -> Option<&'static ToolEntry> {
        self.tools.iter().find(|tool| tool.spec.name == name)
    }

    /// `None` when no tool has that name (JSON-RPC -32602 on the MCP wire).
    pub fn call(&self, ws: &Workspace, name: &str, args: Value) -> Option<Result<Reply, Error>> {
        self.get(name).map(|tool| tool.call(ws, args))
    }
}

/// The arguments of a tool that takes none: `{}` (or no arguments at all), nothing else.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema, outl_macros::ToolFields,
)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// The `inputSchema` of an argument type: JSON Schema 2020-12 with an object root, subschemas
/// inlined (only a recursive type keeps `$defs`), and only what a model needs to call the tool
/// (see [`lean_schema`]). The root's `$schema`, `title` and `description` are left out: MCP's
/// default dialect is 2020-12, the title is the Rust type name, and the type's doc comment is
/// written for Rust readers while the tool's description already speaks to the model.
pub fn input_schema_for<A: JsonSchema>() -> Map<String, Value> {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    let schema = settings.into_generator().into_root_schema_for::<A>();
    let mut map = match schema.to_value() {
        Value::Object(map) => map,
        // `true`/`false` schemas: an argument type derives ToolFields, so this is a struct.
        _ => Map::new(),
    };
    map.remove("title");
    map.remove("description");
    lean_schema(&mut map);
    map.insert("type".into(), Value::from("object"));
    map
}

/// Leaves out of a schema, and of every subschema in it, what schemars writes for Rust rather
/// than for a caller, since `tools/list` is paid for in tokens at the start of every session:
///
/// - `null` as a type, an `enum` value or an `anyOf`/`oneOf` branch, which is how schemars
///   writes an `Option`: an optional argument is one that `required` does not list, and
///   decoding takes an explicit `null` for it as left out (see `args`);
/// - a number's `format` (`uint32`, `int64`, ...), its Rust width: decoding refuses a number
///   too large for it anyway, naming the argument (an unsigned number keeps its `minimum: 0`,
///   so that a negative one is reported with the other problems of the call);
/// - `additionalProperties: false`: decoding refuses a property the schema does not list
///   whatever the schema says (see `args`), and saying so in every tool's schema cost about
///   200 tokens, a twentieth of what `tools/list` may take;
/// - the line breaks of wrapped doc comments, which become spaces (a blank line stays a
///   paragraph break).
fn lean_schema(schema: &mut Map<String, Value>) {
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        schema.remove("additionalProperties");
    }
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        types.retain(|ty| *ty != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            schema.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = schema.get_mut(keyword) else {
            continue;
        };
        branches.retain(|branch| branch.get("type").is_none_or(|ty| *ty != "null"));
        if let [Value::Object(_)] = branches.as_slice()
            && let Some(Value::Array(mut branches)) = schema.remove(keyword)
            && let Some(Value::Object(only)) = branches.pop()
        {
            for (key, value) in only {
                schema.entry(key).or_insert(value);
            }
        }
    }
    if schema
        .get("type")
        .is_some_and(|ty| *ty == "integer" || *ty == "number")
    {
        schema.remove("format");
    }
    if let Some(Value::String(description)) = schema.get_mut("description") {
        *description = unwrapped(description);
    }
    for keyword in ["properties", "$defs"] {
        if let Some(Value::Object(subschemas)) = schema.get_mut(keyword) {
            subschemas.values_mut().for_each(lean_subschema);
        }
    }
    for keyword in ["items", "additionalProperties"] {
        if let Some(subschema) = schema.get_mut(keyword) {
            lean_subschema(subschema);
        }
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(subschemas)) = schema.get_mut(keyword) {
            subschemas.iter_mut().for_each(lean_subschema);
        }
    }
}

fn lean_subschema(schema: &mut Value) {
    if let Value::Object(schema) = schema {
        lean_schema(schema);
    }
}

/// A doc comment's text with its wrapped lines joined by spaces, paragraphs kept.
fn unwrapped(text: &str) -> String {
    text.split("\n\n")
        .map(|paragraph| {
            paragraph
                .split('\n')
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The cached `inputSchema` of a tool; `#[tool]` gives each tool its own cell.
pub fn cached_input_schema<A: JsonSchema>(
    cell: &'static OnceLock<Map<String, Value>>,
) -> &'static Map<String, Value> {
    cell.get_or_init(input_schema_for::<A>)
}

/// Serialize a handler's whole output; a type that cannot be JSON is a bug, reported as one.
pub fn output_to_value<T: serde::Serialize>(tool: &str, output: &T) -> Result<Value, Error> {
    serde_json::to_value(output).map_err(|e| not_json(tool, e))
}

fn not_json(tool: &str, e: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::Internal,
        format!("{tool}: the handler's output is not JSON: {e}"),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)] // only its schema is read
    struct Args {
        /// A description wrapped
        /// over two lines.
        ///
        /// A second paragraph.
        name: String,
        #[schemars(range(min = 1))]
        limit: Option<u32>,
        seq: Option<u64>,
        kind: Option<Kind>,
        /// How: its own words win over those of its type.
        mode: Option<Mode>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        Page,
        Journal,
    }

    /// Variants with doc comments, which schemars writes as `oneOf` branches, in an `anyOf`
    /// with `null` when optional.
    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        /// Make it.
        Create,
        /// Add to it.
        Append,
    }

    #[test]
    fn input_schemas_say_what_a_caller_needs_and_no_more() {
        let schema = Value::Object(input_schema_for::<Args>());
        let expected = json!({
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "description": "A description wrapped over two lines.\n\nA second paragraph."
                },
                "limit": {"type": "integer", "minimum": 1},
                "seq": {"type": "integer", "minimum": 0},
                "kind": {"type": "string", "enum": ["page", "journal"]},
                "mode": {
                    "description": "How: its own words win over those of its type.",
                    "oneOf": [
                        {"type": "string", "const": "create", "description": "Make it."},
                        {"type": "string", "const": "append", "description": "Add to it."}
                    ]
                }
            },
            "required": ["name"]
        });
        assert_eq!(schema, expected, "{schema:#}");
    }
}
