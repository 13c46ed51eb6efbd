//! `#[tool]`, `registry!` and `#[derive(ToolFields)]`: the MCP tool registry of outl, with the
//! reply rules of RFC 0276 and the `tools.toml` wire contract enforced by the compiler.
//!
//! Each macro parses its input into a small AST (`attr.rs`, `ast.rs`), validates it and
//! collects every error of the item before failing (`check.rs`, `ctxt.rs`), compares it with
//! `tools.toml` (`contract.rs`) and expands (`expand.rs`). Checks that need the fields of a
//! type declared elsewhere are emitted as `const` items that fail compilation with a message
//! (see `outl_registry::checks`).
//!
//! Generated code names the runtime crate `outl-registry` as `::outl_registry`; each macro takes
//! `crate = "path"` to name it otherwise, as serde's `#[serde(crate = "...")]` does:
//! `#[tool(crate = "...")]`, `#[tool_fields(crate = "...")]` beside the derive, and
//! `#[registry(crate = "...")]` on the static of `registry!`.

mod ast;
mod attr;
mod check;
mod contract;
mod ctxt;
mod expand;

use proc_macro::TokenStream;

/// Declare a handler as an MCP tool.
///
/// ```ignore
/// /// Render a page as markdown, block refs resolved.
/// #[tool(read_only, payload = markdown(md), drops(slug = arg))]
/// pub fn outl_page_render(ws: &Workspace, args: PageRef) -> Result<PageMarkdown, Error>
/// ```
///
/// The first parameter borrows the context the tool runs in, the error type of the `Result` is
/// the tool's (a `ToolError`): the tool is one of every `Server` that names these two. Keys: `name = "..."` (default: the fn name),
/// `payload = json | markdown(FIELD)` (required), `drops(FIELD = arg | "where else", ...)`
/// (markdown only), the flags `read_only`, `destructive`, `idempotent`, and `crate = "..."`.
/// The doc comment is the description. See the README.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let source = source_file();
    expand::tool(attr.into(), item.into(), source.as_deref()).into()
}

/// Collect the handlers of a `Server` into a `Registry`, in this order:
///
/// ```ignore
/// outl_macros::registry! {
///     /// Every tool of the server.
///     pub static TOOLS: Registry<Outl> = [pages::outl_page_list, pages::outl_page_get];
/// }
/// ```
///
/// Refuses two tools with one name, a `tools.toml` entry that no listed handler has, and a
/// handler whose context or error is not the server's.
#[proc_macro]
pub fn registry(input: TokenStream) -> TokenStream {
    let source = source_file();
    expand::registry(input.into(), source.as_deref()).into()
}

/// List a struct's fields (wire names, types as written) for the compile-time checks of
/// `#[tool]`: on every argument type, and on the return type of a markdown tool.
#[proc_macro_derive(ToolFields, attributes(tool_fields))]
pub fn derive_tool_fields(input: TokenStream) -> TokenStream {
    expand::tool_fields(input.into()).into()
}

/// The file the macro is invoked in, from which `tools.toml` is looked up.
fn source_file() -> Option<std::path::PathBuf> {
    proc_macro::Span::call_site().local_file()
}
