use outl_macros::ToolFields;
use serde::{Deserialize, Serialize};

#[derive(Serialize, ToolFields)]
enum Shape {
    Json,
    Markdown,
}

#[derive(Serialize, ToolFields)]
struct Pair(String, String);

#[derive(Serialize, Deserialize, ToolFields)]
struct Mixed {
    #[serde(flatten)]
    meta: std::collections::BTreeMap<String, String>,
    #[serde(rename(serialize = "md", deserialize = "markdown"))]
    md: String,
    #[serde(skip_serializing)]
    cache: String,
}

fn main() {}
