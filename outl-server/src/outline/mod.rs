//! The markdown outline format: the parser AST, its serializer, and the inline tokenizer.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// Ordered `key:: value` properties, as written.
pub type Properties = IndexMap<String, String>;

/// One block of the parser AST. `properties` deliberately has no `#[serde(default)]`:
/// `outl_export_json` returns this type and must deserialize back into it (RFC 0276).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OutlineNode {
    pub text: String,
    pub properties: Properties,
    pub children: Vec<OutlineNode>,
}

/// A whole page: the properties before the first bullet, then the top-level blocks.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Document {
    pub properties: Properties,
    pub blocks: Vec<OutlineNode>,
}
