//! The handler-layer outline: RFC 0276's `OutlineNode` (the one with block ids, unlike the
//! parser AST's), page metadata, and the conversions from the workspace model that every
//! read returning blocks shares.

use chrono::{DateTime, SecondsFormat};
use compact_str::CompactString;
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};
use serde_json::json;

use super::slices::{self, Cut, SliceNode, Visit, Window};
use outl_format::{self as outline, MAX_DEPTH, Properties, Syntax, TaskMarker, Token};
use outl_workspace::{Block, GraphConfig, Page, Workspace};
use outl_workspace::{Error, ErrorCode};

/// Properties that are structure rather than content: `collapsed` becomes the node's flag,
/// `id` is the node's id.
const STRUCTURAL_PROPERTIES: [&str; 2] = ["collapsed", "id"];

/// One block of a page as handlers return it. `outl call` shows it as an object with every
/// field, `tokens` (`text` tokenized for renderers; their sources, joined, are `text`) among
/// them. On the MCP wire it is an array, `[id, text, fields, children]`, that leaves out what
/// a model does not need: `tokens`, and the fields at their defaults (`todo: null`,
/// `collapsed: false`, empty `properties`, no `parent`, planning or omitted children) in the
/// `fields` object, which is left out when none remains, as `children` is when empty. Member
/// names and braces were a fifth of a page read; the array says the same in fewer tokens, and
/// each value is still sent once. The array is the node's compact form, written for a
/// serializer that is not human-readable, as the MCP projection's is ([`crate::Outl`]); neither
/// `tokens` nor a default field is computed for it.
#[derive(Debug, Clone, PartialEq)]
pub struct OutlineNode {
    /// The block id: what every block-targeting tool takes.
    pub id: CompactString,
    /// The parent block's id, on a block that tops a slice without its parent, which came in
    /// an earlier slice (not serialized when absent).
    pub parent: Option<CompactString>,
    /// The block text without its leading task marker, property lines, planning lines and
    /// logbook not included.
    pub text: String,
    /// The task marker the text starts with, if any.
    pub todo: Option<TaskMarker>,
    /// The block's planning and logbook (not serialized when absent).
    pub planning: PlanningFields,
    /// `collapsed:: true` on the block.
    pub collapsed: bool,
    /// The block's properties, without `collapsed` and `id`.
    pub properties: Properties,
    pub children: Vec<OutlineNode>,
    /// How many children a `depth` limit left out (`children` is empty then; not serialized
    /// when zero).
    pub children_omitted: usize,
}

impl OutlineNode {
    /// The node of `block` with `levels` levels of blocks, itself included (at least one).
    pub fn of(block: &Block, levels: usize) -> OutlineNode {
        let mut node = OutlineNode::alone(block);
        if levels > 1 {
            node.children = outline_levels(&block.children, levels - 1);
        } else {
            node.children_omitted = block.children.len();
        }
        node
    }

    /// The node of `block` without its children, none of them counted as omitted.
    pub fn alone(block: &Block) -> OutlineNode {
        let (shown, planning) = outline::split_planning(&block.text);
        let (todo, text) = match outline::task_marker(&shown) {
            Some((marker, rest)) => (Some(marker), rest.to_string()),
            None => (None, shown.into_owned()),
        };
        OutlineNode {
            id: block.id.clone(),
            parent: None,
            text,
            todo,
            planning: PlanningFields::of(&planning),
            collapsed: is_collapsed(block),
            properties: content_properties(&block.properties),
            children: Vec::new(),
            children_omitted: 0,
        }
    }

    /// `text` tokenized for renderers.
    pub fn tokens(&self) -> Vec<Token> {
        outline::tokenize(&self.text)
    }
}

impl Serialize for OutlineNode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !serializer.is_human_readable() {
            let fields = WireFields(self).len() != 0;
            let children = !self.children.is_empty();
            let len = 2 + usize::from(fields) + usize::from(children);
            let mut node = serializer.serialize_seq(Some(len))?;
            node.serialize_element(&self.id)?;
            node.serialize_element(&self.text)?;
            if fields {
                node.serialize_element(&WireFields(self))?;
            }
            if children {
                node.serialize_element(&self.children)?;
            }
            return node.end();
        }
        let omitted = self.children_omitted != 0;
        let optional = [
            self.parent.is_some(),
            self.planning.scheduled.is_some(),
            self.planning.deadline.is_some(),
            !self.planning.logbook.is_empty(),
            omitted,
        ];
        let len = 7 + optional.iter().filter(|&&field| field).count();
        let mut node = serializer.serialize_struct("OutlineNode", len)?;
        node.serialize_field("id", &self.id)?;
        if let Some(parent) = &self.parent {
            node.serialize_field("parent", parent)?;
        }
        node.serialize_field("text", &self.text)?;
        node.serialize_field("todo", &self.todo)?;
        self.planning.serialize_into(&mut node)?;
        node.serialize_field("collapsed", &self.collapsed)?;
        node.serialize_field("properties", &self.properties)?;
        node.serialize_field("tokens", &self.tokens())?;
        node.serialize_field("children", &self.children)?;
        if omitted {
            node.serialize_field("children_omitted", &self.children_omitted)?;
        }
        node.end()
    }
}

/// The `fields` of a node's wire array: its members that are not at their default.
struct WireFields<'n>(&'n OutlineNode);

impl WireFields<'_> {
    /// How many members are not at their default; none leaves the object out of the array.
    fn len(&self) -> usize {
        let node = self.0;
        [
            node.parent.is_some(),
            node.todo.is_some(),
            node.planning.scheduled.is_some(),
            node.planning.deadline.is_some(),
            !node.planning.logbook.is_empty(),
            node.collapsed,
            !node.properties.is_empty(),
            node.children_omitted != 0,
        ]
        .iter()
        .filter(|&&field| field)
        .count()
    }
}

impl Serialize for WireFields<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let node = self.0;
        let mut fields = serializer.serialize_struct("OutlineNodeFields", self.len())?;
        if let Some(parent) = &node.parent {
            fields.serialize_field("parent", parent)?;
        }
        if let Some(todo) = &node.todo {
            fields.serialize_field("todo", todo)?;
        }
        node.planning.serialize_into(&mut fields)?;
        if node.collapsed {
            fields.serialize_field("collapsed", &node.collapsed)?;
        }
        if !node.properties.is_empty() {
            fields.serialize_field("properties", &node.properties)?;
        }
        if node.children_omitted != 0 {
            fields.serialize_field("children_omitted", &node.children_omitted)?;
        }
        fields.end()
    }
}

/// What Logseq reads beside a block's text: `SCHEDULED:` and `DEADLINE:` timestamps (inside
/// their `<>`) and the lines of its `:LOGBOOK:` drawer. Each is serialized only when the
/// block has it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanningFields {
    pub scheduled: Option<String>,
    pub deadline: Option<String>,
    pub logbook: Vec<String>,
}

impl PlanningFields {
    pub fn of(planning: &outline::Planning<'_>) -> PlanningFields {
        PlanningFields {
            scheduled: planning.scheduled.map(str::to_string),
            deadline: planning.deadline.map(str::to_string),
            logbook: planning
                .logbook
                .iter()
                .map(|line| line.to_string())
                .collect(),
        }
    }

    /// Writes the fields the block has into `into`, a struct being serialized.
    pub fn serialize_into<S: SerializeStruct>(&self, into: &mut S) -> Result<(), S::Error> {
        if let Some(scheduled) = &self.scheduled {
            into.serialize_field("scheduled", scheduled)?;
        }
        if let Some(deadline) = &self.deadline {
            into.serialize_field("deadline", deadline)?;
        }
        if !self.logbook.is_empty() {
            into.serialize_field("logbook", &self.logbook)?;
        }
        Ok(())
    }
}

/// The slice of the outline of `blocks`, `depth` levels deep (1: these blocks only; the
/// whole tree when `None`, the format nesting at most [`MAX_DEPTH`] levels), that `window`
/// holds in a reply whose other fields take `spent` bytes, each block taking `extra` bytes
/// more beside its node (see [`slices::slice_tree`]).
pub fn outline_slice(
    blocks: &[Block],
    depth: Option<u32>,
    window: Window,
    spent: usize,
    extra: impl Fn(usize) -> usize,
) -> (Vec<OutlineNode>, Option<Cut>) {
    let levels = depth.map_or(MAX_DEPTH, |d| (d as usize).min(MAX_DEPTH));
    let node = |visit: Visit<'_, Block>| {
        let mut node = OutlineNode::alone(visit.block);
        node.parent = visit.parent.map(|(parent, _)| parent.id.clone());
        node.children_omitted = visit.children_omitted;
        node
    };
    slices::slice_tree(blocks, levels, window, spent, node, extra)
}

fn outline_levels(blocks: &[Block], levels: usize) -> Vec<OutlineNode> {
    if levels == 0 {
        return Vec::new();
    }
    blocks.iter().map(|b| OutlineNode::of(b, levels)).collect()
}

/// Whether the block has `collapsed:: true`.
pub fn is_collapsed(block: &Block) -> bool {
    block
        .properties
        .iter()
        .any(|(key, value)| key == "collapsed" && value.trim().eq_ignore_ascii_case("true"))
}

/// A block's properties without the structural ones (`collapsed`, `id`).
pub fn content_properties(properties: &Properties) -> Properties {
    properties
        .iter()
        .filter(|(key, _)| !STRUCTURAL_PROPERTIES.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// What a page is, apart from its blocks: what a reader needs to act on it. Its file and last
/// change are not needed for that, and were most of a short page's reply besides its blocks;
/// they come with each page of `outl_page_list` when it is asked for `details`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageMeta {
    /// The name as written (`title::` when the page has one). Left out for a journal day,
    /// whose name is its date: the reply's `slug` or `date`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A journal day's title in the graph's format (`Nov 30th, 2026`), which links to the day
    /// may use as well as its date. A page has a `name` or a `title`, never both, and so says
    /// whether it is a journal day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `org` for an org page (read only); left out for markdown, the default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<Syntax>,
    /// Page properties: the `key:: value` lines before the first bullet, but for `id::`, the
    /// id Logseq gives the page's properties block and hides (a UUID); left out when there
    /// are none.
    #[serde(skip_serializing_if = "Properties::is_empty")]
    pub properties: Properties,
}

impl PageMeta {
    pub fn of(page: &Page, config: &GraphConfig) -> PageMeta {
        PageMeta {
            name: page.date().is_none().then(|| page.name.clone()),
            title: page.date().map(|date| config.journal_title_of(date)),
            format: Some(Syntax::of_file(&page.file)).filter(|s| *s == Syntax::Org),
            properties: content_properties(&page.properties),
        }
    }
}

/// Unix milliseconds as RFC 3339 in UTC, to the second.
pub fn timestamp(unix_ms: i64) -> String {
    DateTime::from_timestamp_millis(unix_ms)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The page's markdown exactly as stored in its file.
pub fn stored_markdown(ws: &Workspace, page: &Page) -> Result<String, Error> {
    let path = ws.resolve_path(&page.file)?;
    std::fs::read_to_string(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::new(
            ErrorCode::PageNotFound,
            format!("{} was deleted outside outl", page.file),
        )
        .with_data(json!({ "slug": page.slug, "path": page.file })),
        _ => Error::new(ErrorCode::Io, format!("cannot read {}: {e}", page.file))
            .with_data(json!({ "path": page.file })),
    })
}

impl SliceNode for OutlineNode {
    fn adopt(&mut self, child: Self) {
        self.children.push(child);
    }

    /// A leaf is sent without its children's array, so its first child brings the array
    /// with it.
    fn adoption_bytes(&self) -> usize {
        if self.children.is_empty() {
            ",[]".len()
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(id: &str, text: &str, children: Vec<Block>) -> Block {
        Block {
            children: children.into(),
            ..Block::new(id, text)
        }
    }

    #[test]
    fn nodes_split_the_task_marker_and_structural_properties() {
        let mut b = block("a1", "TODO call [[Bob]]", vec![]);
        b.properties.insert("collapsed".into(), "true".into());
        b.properties.insert("id".into(), "a1".into());
        b.properties.insert("owner".into(), "[[Priya]]".into());
        let node = OutlineNode::of(&b, 1);
        assert_eq!(node.text, "call [[Bob]]");
        assert_eq!(node.todo, Some(TaskMarker::Todo));
        assert!(node.collapsed);
        assert_eq!(node.properties.keys().collect::<Vec<_>>(), ["owner"]);
        assert_eq!(outline::source(&node.tokens()), node.text);
    }

    #[test]
    fn depth_cuts_the_tree_and_says_where() {
        let tree = vec![block(
            "a",
            "top",
            vec![block("b", "mid", vec![block("c", "leaf", vec![])])],
        )];
        let all = Window::of(None, None, None).unwrap();
        let (cut, _) = outline_slice(&tree, Some(2), all, 0, |_| 0);
        assert_eq!(cut[0].children[0].id, "b");
        assert!(cut[0].children[0].children.is_empty());
        assert_eq!(cut[0].children[0].children_omitted, 1);
        assert_eq!(cut[0].children_omitted, 0);
        assert_eq!(cut[0], OutlineNode::of(&tree[0], 2));
        let (whole, _) = outline_slice(&tree, None, all, 0, |_| 0);
        assert_eq!(whole[0].children[0].children[0].id, "c");
        let json = serde_json::to_value(&whole[0]).unwrap();
        assert!(json.get("children_omitted").is_none() && json.get("parent").is_none());
        let from_c = Window::of(None, Some("2"), None).unwrap();
        let (rest, _) = outline_slice(&tree, None, from_c, 0, |_| 0);
        assert_eq!(serde_json::to_value(&rest[0]).unwrap()["parent"], "b");
    }
}
