//! Between the outline format (`crate::outline`) and the workspace model: markdown to blocks
//! and back.

use crate::outline::{self, Document, OutlineNode, Properties};

use super::model::Block;

/// Page properties and blocks (ids empty) of a markdown page.
pub fn parse(md: &str) -> (Properties, Vec<Block>) {
    let doc = outline::parse(md);
    (
        doc.properties,
        doc.blocks.into_iter().map(block_of).collect(),
    )
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

/// The markdown of a page: its properties, then its blocks. Ids are never written.
pub fn render(properties: &Properties, blocks: &[Block]) -> String {
    outline::serialize(&Document {
        properties: properties.clone(),
        blocks: blocks.iter().map(node_of).collect(),
    })
}
