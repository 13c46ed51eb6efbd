//! Between the outline format (`crate::outline`) and the workspace model: markdown to blocks
//! and back.

use crate::outline::{self, Document, OutlineNode, Properties, Syntax};

use super::model::Block;

/// A page file's content: its front matter as written, its page properties (the front
/// matter's included) and its blocks (ids empty).
pub struct Parsed {
    pub front_matter: Option<String>,
    pub properties: Properties,
    pub blocks: Vec<Block>,
}

/// A markdown page's content.
pub fn parse(md: &str) -> Parsed {
    parse_as(Syntax::Markdown, md)
}

/// A page's content in `syntax`.
pub fn parse_as(syntax: Syntax, text: &str) -> Parsed {
    let doc = syntax.parse(text);
    Parsed {
        front_matter: doc.front_matter,
        properties: doc.properties,
        blocks: doc.blocks.into_iter().map(block_of).collect(),
    }
}

fn block_of(node: OutlineNode) -> Block {
    Block {
        id: Default::default(),
        text: node.text,
        properties: node.properties,
        children: node.children.into_iter().map(block_of).collect(),
    }
}

fn node_of(block: &Block) -> OutlineNode {
    OutlineNode {
        text: block.text.clone(),
        properties: block.properties.clone(),
        children: block.children.iter().map(node_of).collect(),
    }
}

/// The markdown of a page: its front matter (as written, but for the values that changed),
/// its other properties, then its blocks. Ids are never written.
pub fn render(front_matter: Option<&str>, properties: &Properties, blocks: &[Block]) -> String {
    outline::serialize(&Document {
        front_matter: front_matter.map(str::to_owned),
        properties: properties.clone(),
        blocks: blocks.iter().map(node_of).collect(),
    })
}
