//! A reading list served over MCP, five tools on `outl-macros` and its runtime `outl-registry`:
//! a server of its own ([`Bookmarks`]), with its own context ([`Library`]), error ([`Error`]) and
//! `tools.toml`.

mod library;
mod tools;

pub use library::{Bookmark, Error, Library};
pub use tools::{Bookmarks, TOOLS};
