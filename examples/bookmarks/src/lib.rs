//! A reading list served over MCP, five tools on `outl-macros` and its runtime `outl-registry`:
//! a server of its own, with its own context ([`Library`]), error ([`Error`]) and `tools.toml`.

mod library;
mod tools;

pub use library::{Bookmark, Error, Library};
pub use tools::TOOLS;
