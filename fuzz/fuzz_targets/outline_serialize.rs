//! The serializer on any document, not only those the parser makes: what it writes parses
//! back to the document as markdown can hold it (`Document::normalized`).

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use outl_format::{Document, ParsedBlock, parse, serialize};

#[derive(Debug, Arbitrary)]
struct Node {
    text: String,
    properties: Vec<(String, String)>,
    children: Vec<Node>,
}

#[derive(Debug, Arbitrary)]
struct Page {
    properties: Vec<(String, String)>,
    blocks: Vec<Node>,
}

impl Node {
    fn into_outline(self) -> ParsedBlock {
        ParsedBlock {
            text: self.text,
            properties: self.properties.into_iter().collect(),
            children: self.children.into_iter().map(Node::into_outline).collect(),
        }
    }
}

fuzz_target!(|page: Page| {
    let document = Document {
        front_matter: None,
        properties: page.properties.into_iter().collect(),
        blocks: page.blocks.into_iter().map(Node::into_outline).collect(),
    };
    let normalized = document.normalized();
    assert_eq!(
        parse(&serialize(&document)),
        normalized,
        "parse(serialize(doc)) == doc.normalized()"
    );
    assert_eq!(
        normalized.normalized(),
        normalized,
        "normalizing twice changes nothing"
    );
});
