//! The runtime of the tool registry that `outl-macros` generates: what the expansion of
//! `#[tool]`, `registry!` and `#[derive(ToolFields)]` names, and what a server built on it calls
//! to list its tools and answer `tools/call` with RFC 0276's replies. `#[tool]` implements
//! [`Tool`] and [`CallTool`] for each handler and `registry!` collects them into a
//! [`Registry`]; nothing here is written by hand per tool.
//!
//! A server names its tools' two types in a [`Server`]: the context its handlers borrow and the
//! error they return (a [`ToolError`], which gives its code, message and data to the error
//! reply), with how a success is written and which arguments need no description.
//!
//! The compile-time rules (RFC 0276's droppability test, the `tools.toml` contract) are
//! evaluated by `const` items that the macros generate; the `const fn`s they call live in
//! [`checks`].

mod args;
#[doc(hidden)]
pub mod checks;
pub mod json;
mod wire;

use std::marker::PhantomData;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::Deserialize;
pub use serde_json::{Map, Value};

pub use self::args::{MAX_STRING_CHARS, Problem, decode_args, invalid_arguments};
pub use self::wire::{tool_definitions, tool_error_payload, tool_success_payload};

/// A server's tools as one set: what every handler borrows as its first parameter, the error
/// it returns, and what holds for every tool of the set. A server implements it on a type of
/// its own (a unit struct will do) and names that type in `registry!`, so the context and the
/// error may be types of any crate: a store's, `Arc<State>`, a connection pool.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool server",
    label = "a registry and its entries are of a `Server`, which names the tools' context and error",
    note = "implement `Server` for `{Self}`: the context its handlers borrow and the error they return"
)]
pub trait Server: 'static {
    /// What every handler borrows as its first parameter.
    type Context: ?Sized;
    /// What every handler returns as its error.
    type Error: ToolError;

    /// The arguments that mean the same in every tool that takes them, described once in the
    /// server's instructions instead of in each `inputSchema`: an argument field of one of
    /// these names has no doc comment, and every other one has (checked at compile time).
    const SHARED_ARGS: &'static [&'static str] = &[];

    /// The text of a success reply of a JSON payload: compact JSON of the handler's output.
    /// This is the projection hook: a server that drops more of its own types (RFC 0276 lets a
    /// projection drop what the reader can re-derive, never the only copy) writes them here.
    fn success_json<T: serde::Serialize + ?Sized>(output: &T) -> serde_json::Result<String> {
        serde_json::to_string(output)
    }
}

/// The error a handler returns, as the error reply carries it: a stable code a caller can
/// branch on, a message, and data a caller can act on. The runtime makes its own errors through
/// the two constructors.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool error",
    label = "the handler's error type",
    note = "implement `ToolError` for `{Self}`: the error reply sends its code, message and data"
)]
pub trait ToolError: Sized {
    fn code(&self) -> &str;
    fn message(&self) -> &str;
    fn data(&self) -> Option<&Value>;
    /// Arguments that do not fit the tool's input schema; `data` lists each problem (SEP-1303).
    fn invalid_arguments(message: String, data: Value) -> Self;
    /// A bug the runtime catches: a handler output that is not JSON.
    fn internal(message: String) -> Self;
}

/// How a success reply is projected onto the MCP wire (RFC 0276 decision 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// The whole handler output as compact JSON, written by [`Server::success_json`].
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

/// A field a markdown payload leaves out, and why it may.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DroppedField {
    pub field: &'static str,
    pub why: Justification,
}

/// MCP tool annotations. `openWorldHint` is always false: a tool of the registry touches only
/// what its server holds.
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
    pub drops: &'static [DroppedField],
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
/// serializes it, so that each serializes it once and only as far as it sends it: a command
/// line prints all of it ([`Reply::data`]), the MCP reply ([`tool_success_payload`]) writes
/// it through its server's [`Server::success_json`]. `E` is the tool's error type.
pub struct Reply<E> {
    pub payload: Payload,
    /// The tool that produced it, for the message of an output that is not JSON.
    tool: &'static str,
    output: Box<dyn Output>,
    error: PhantomData<fn() -> E>,
}

/// A handler output of any type, serialized on demand in the two ways there are.
trait Output: Send {
    fn to_value(&self) -> serde_json::Result<Value>;
    fn to_success_json(&self) -> serde_json::Result<String>;
}

/// An output with the projection of the server whose tool computed it.
struct Projected<T> {
    output: T,
    success_json: fn(&T) -> serde_json::Result<String>,
}

impl<T: serde::Serialize + Send> Output for Projected<T> {
    fn to_value(&self) -> serde_json::Result<Value> {
        serde_json::to_value(&self.output)
    }

    fn to_success_json(&self) -> serde_json::Result<String> {
        (self.success_json)(&self.output)
    }
}

impl<E: ToolError> Reply<E> {
    /// The reply of a handler of the server `S`, whose projection writes it.
    pub fn new<S: Server, T: serde::Serialize + Send + 'static>(
        tool: &'static str,
        payload: Payload,
        output: T,
    ) -> Reply<E> {
        Reply {
            payload,
            tool,
            output: Box::new(Projected {
                output,
                success_json: S::success_json::<T>,
            }),
            error: PhantomData,
        }
    }

    /// The handler's whole output as JSON, exactly as a command line prints it.
    pub fn data(&self) -> Result<Value, E> {
        self.output.to_value().map_err(|e| not_json(self.tool, e))
    }

    /// The handler's output as the text of a JSON success reply, written by its server's
    /// [`Server::success_json`].
    pub fn success_json(&self) -> Result<String, E> {
        self.output
            .to_success_json()
            .map_err(|e| not_json(self.tool, e))
    }
}

impl<E> std::fmt::Debug for Reply<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("tool", &self.tool)
            .field("payload", &self.payload)
            .field("data", &self.output.to_value())
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

/// A registered tool's wire shape. Implemented by `#[tool]` on a unit struct named like the
/// handler.
pub trait Tool {
    const SPEC: ToolSpec;
    /// Whether this is what `#[tool]` puts in place of an item it refused, so that the
    /// registry listing it adds no error of its own to the item's.
    #[doc(hidden)]
    const STAND_IN: bool = false;
    /// The JSON Schema of the arguments (see [`input_schema_for`]), built once.
    fn input_schema() -> &'static Map<String, Value>;
}

/// A registered tool's call, as a tool of the server `S`: its handler borrows `S::Context` and
/// fails with `S::Error`. Implemented by `#[tool]` beside [`Tool`], for every server whose
/// context and error are the handler's.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool of the server `{S}`",
    label = "its handler's context or error is not the one `{S}` names",
    note = "a handler of `{S}` borrows `<{S} as Server>::Context` and returns `<{S} as Server>::Error`"
)]
pub trait CallTool<S: Server>: Tool {
    /// Evaluated when a registry lists the tool, where the server is known: the checks that
    /// read what the server says of every tool ([`Server::SHARED_ARGS`]).
    #[doc(hidden)]
    const CHECKED: () = ();
    /// Decode the arguments, run the handler, keep its output typed in the reply.
    fn call(cx: &S::Context, args: Value) -> CallResult<S>;
}

/// What a call of a tool of the server `S` returns: its reply, or its error.
pub type CallResult<S> = Result<Reply<<S as Server>::Error>, <S as Server>::Error>;

/// A [`Tool`] of the server `S` as a value, so that tools of different types share one list.
pub struct ToolEntry<S: Server> {
    pub spec: ToolSpec,
    input_schema: fn() -> &'static Map<String, Value>,
    call: fn(&S::Context, Value) -> CallResult<S>,
}

// Not derived: a derive would ask `S` to be `Clone` too.
impl<S: Server> Clone for ToolEntry<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Server> Copy for ToolEntry<S> {}

impl<S: Server> ToolEntry<S> {
    pub const fn of<T: CallTool<S>>() -> Self {
        // The server's checks of the tool fail the build here, at the registry listing it.
        let () = T::CHECKED;
        ToolEntry {
            spec: T::SPEC,
            input_schema: T::input_schema,
            call: T::call,
        }
    }

    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    pub fn input_schema(&self) -> &'static Map<String, Value> {
        (self.input_schema)()
    }

    /// Run the tool; the reply carries its projection kind with the output.
    pub fn call(&self, cx: &S::Context, args: Value) -> CallResult<S> {
        (self.call)(cx, args)
    }
}

impl<S: Server> std::fmt::Debug for ToolEntry<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEntry")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

/// Every tool of a server, in the order `registry!` lists them (which is the order of
/// `tools/list`). Names are unique: `registry!` refuses a duplicate at compile time.
pub struct Registry<S: Server> {
    tools: &'static [ToolEntry<S>],
}

impl<S: Server> Registry<S> {
    pub const fn new(tools: &'static [ToolEntry<S>]) -> Self {
        Registry { tools }
    }

    pub fn tools(&self) -> &'static [ToolEntry<S>] {
        self.tools
    }

    pub fn get(&self, name: &str) -> Option<&'static ToolEntry<S>> {
        self.tools.iter().find(|tool| tool.spec.name == name)
    }

    /// `None` when no tool has that name (JSON-RPC -32602 on the MCP wire).
    pub fn call(&self, cx: &S::Context, name: &str, args: Value) -> Option<CallResult<S>> {
        self.get(name).map(|tool| tool.call(cx, args))
    }
}

impl<S: Server> std::fmt::Debug for Registry<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tools)
            .finish()
    }
}

/// The arguments of a tool that takes none: `{}` (or no arguments at all), nothing else.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

impl ToolFields for NoArgs {
    const FIELDS: &'static [Field] = &[];
}

/// The `inputSchema` of an argument type: JSON Schema 2020-12 with an object root, subschemas
/// inlined (only a recursive type keeps `$defs`), and only what a model needs to call the tool
/// (see `lean_schema`). The root's `$schema`, `title` and `description` are left out: MCP's
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
pub fn output_to_value<T: serde::Serialize, E: ToolError>(
    tool: &str,
    output: &T,
) -> Result<Value, E> {
    serde_json::to_value(output).map_err(|e| not_json(tool, e))
}

fn not_json<E: ToolError>(tool: &str, e: impl std::fmt::Display) -> E {
    E::internal(format!("{tool}: the handler's output is not JSON: {e}"))
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
