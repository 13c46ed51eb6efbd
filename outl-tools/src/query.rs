//! Query tools: full-text search, tasks, tags, properties, a page's outgoing links and the
//! recently changed pages, all answered from the workspace index.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use outl_macros::{ToolFields, tool};
use outl_registry::{Problem, invalid_arguments};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use super::lookup;
use super::outline::{PlanningFields, timestamp};
use super::paging;
use crate::{MAX_TEXT_CHARS, one_of_words};
use outl_format::{self as outline, TaskMarker};
use outl_workspace::Error;
use outl_workspace::{Block, BlockList, Graph, Holder, Page, Workspace};

/// Where a query found something: a block (its id and its text as written, task marker
/// included, planning and logbook as fields of their own), or a page through its own
/// properties (no id).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// The page's slug.
    pub page: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduled: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<String>,
}

impl Hit {
    /// The hit of an index holder, its block's text read from `graph`.
    pub fn of(graph: &Graph, holder: &Holder) -> Hit {
        let block = holder.block.as_deref().and_then(|id| graph.block_alone(id));
        Hit::with_text(holder.slug.clone(), holder.block.clone(), block.as_ref())
    }

    fn block(page: &Page, block: &Block) -> Hit {
        Hit::with_text(page.slug.clone(), Some(block.id.to_string()), Some(block))
    }

    fn with_text(page: String, id: Option<String>, block: Option<&Block>) -> Hit {
        let (text, planning) = block.map_or_else(Default::default, |block| {
            let (shown, planning) = outline::split_planning(&block.text);
            (Some(shown.into_owned()), PlanningFields::of(&planning))
        });
        Hit {
            page,
            id,
            text,
            scheduled: planning.scheduled,
            deadline: planning.deadline,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Arguments

/// A full-text search.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words, each in any form; "quoted words" as written, in order; Chinese, Japanese or Korean
    /// by any two characters.
    pub query: String,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// Which tasks to list: "open", "all", or the tasks of one state, in any of its spellings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
pub enum TaskFilter {
    #[default]
    #[serde(rename = "open")]
    Open,
    #[serde(rename = "all")]
    All,
    #[serde(untagged)]
    Marker(TaskMarker),
}

impl TaskFilter {
    /// The markers listed: a state's filter lists both spellings of it (`WAIT` and
    /// `WAITING`, `CANCELED` and `CANCELLED`).
    fn markers(self) -> Vec<TaskMarker> {
        match self {
            TaskFilter::Open => TaskMarker::ALL
                .into_iter()
                .filter(|m| m.is_open())
                .collect(),
            TaskFilter::All => TaskMarker::ALL.to_vec(),
            TaskFilter::Marker(marker) => std::iter::once(marker)
                .chain(marker.other_spelling())
                .collect(),
        }
    }
}

/// `open`, `all`, then the markers.
impl JsonSchema for TaskFilter {
    fn schema_name() -> Cow<'static, str> {
        "TaskFilter".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        one_of_words(
            ["open", "all"]
                .into_iter()
                .chain(TaskMarker::ALL.map(TaskMarker::as_str)),
        )
    }
}

/// Which tasks, where.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct TasksArgs {
    /// A state (WAIT and WAITING, CANCELED and CANCELLED go together), `open` (the default: not
    /// DONE nor canceled) or `all`.
    pub state: Option<TaskFilter>,
    /// Only this page's tasks.
    pub page: Option<String>,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// A slice of a list.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// A tag.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct TagArgs {
    /// With or without `#`.
    pub tag: String,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// A property, and maybe its value.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct PropertyQueryArgs {
    /// The key, in any case.
    pub key: String,
    /// Only this value.
    #[schemars(length(max = MAX_TEXT_CHARS))]
    pub value: Option<String>,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// A page.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct LinksArgs {
    pub slug: String,
}

/// How many pages.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct RecentArgs {
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
}

// ---------------------------------------------------------------------------------------------
// Outputs

/// One search result: a block, or a page whose name or alias matched (no id).
#[derive(Debug, Serialize)]
pub struct SearchHit {
    /// The page's slug.
    pub page: String,
    /// The block's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The block text around the first match, `…` where cut; for a page, the name or alias
    /// that matched.
    pub snippet: String,
}

/// Search results, best first.
#[derive(Debug, Serialize)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    pub total: usize,
    /// Pass as `cursor` for more; absent at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Hits of a query, in page and document order.
#[derive(Debug, Serialize)]
pub struct Hits {
    pub hits: Vec<Hit>,
    pub total: usize,
    /// Pass as `cursor` for more; absent at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A tag and how often it is used.
#[derive(Debug, Serialize)]
pub struct TagCount {
    /// The tag's page slug.
    pub tag: String,
    /// Blocks and pages carrying it.
    pub count: usize,
}

/// Tags, most used first.
#[derive(Debug, Serialize)]
pub struct Tags {
    pub tags: Vec<TagCount>,
    pub total: usize,
    /// Pass as `cursor` for more; absent at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A block or page with a property, and its value there.
#[derive(Debug, Serialize)]
pub struct PropertyHit {
    #[serde(flatten)]
    pub hit: Hit,
    pub value: String,
}

/// Blocks and pages with a property.
#[derive(Debug, Serialize)]
pub struct PropertyHits {
    pub hits: Vec<PropertyHit>,
    pub total: usize,
    /// Pass as `cursor` for more; absent at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A page another page links to.
#[derive(Debug, Serialize)]
pub struct Link {
    /// The target's slug, as the link names it.
    pub page: String,
    /// Whether the link leads to a page, by its name or an alias (a link may name a page
    /// not written yet).
    pub exists: bool,
    /// The slug of the page the link leads to through that page's `alias::`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias_of: Option<String>,
}

/// A page's outgoing links.
#[derive(Debug, Serialize)]
pub struct Links {
    /// The page's slug.
    pub page: String,
    /// In order of first appearance.
    pub links: Vec<Link>,
}

/// A page and when it last changed.
#[derive(Debug, Serialize)]
pub struct Changed {
    /// The page's slug.
    pub page: String,
    /// RFC 3339, UTC.
    pub updated: String,
}

/// Pages, most recently changed first.
#[derive(Debug, Serialize)]
pub struct Recent {
    pub pages: Vec<Changed>,
}

// ---------------------------------------------------------------------------------------------
// Tools

/// Full-text search: the pages whose name or alias holds every word (no id), then the blocks
/// holding them all, best first, each with a `snippet` for its text.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_search(ws: &Workspace, args: SearchArgs) -> Result<SearchResults, Error> {
    if !args.query.chars().any(char::is_alphanumeric) {
        return Err(invalid_arguments(vec![Problem {
            pointer: "/query".into(),
            message: "the query has no word to search for (letters or digits)".into(),
        }]));
    }
    let start = paging::position(args.cursor.as_deref())?;
    let graph = ws.snapshot();
    let found = graph.search_page(&args.query, start, paging::limit(args.limit));
    let hits = found
        .hits
        .into_iter()
        .map(|hit| SearchHit {
            page: hit.slug,
            id: hit.block,
            snippet: hit.snippet,
        })
        .collect();
    let slice = paging::window(hits, start, found.total);
    Ok(SearchResults {
        hits: slice.items,
        total: slice.total,
        next_cursor: slice.next_cursor,
    })
}

/// Task blocks, in page and document order.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_tasks(ws: &Workspace, args: TasksArgs) -> Result<Hits, Error> {
    let graph = ws.snapshot();
    let only = match &args.page {
        Some(name) => Some(lookup::page(&graph, name)?.slug.clone()),
        None => None,
    };
    let mut by_page: BTreeMap<String, HashSet<String>> = BTreeMap::new();
    for marker in args.state.unwrap_or_default().markers() {
        for holder in graph.index().tasks(marker) {
            if only.as_ref().is_none_or(|slug| *slug == holder.slug)
                && let Some(id) = holder.block
            {
                by_page.entry(holder.slug).or_default().insert(id);
            }
        }
    }
    // The index counts the tasks; only the pages the slice shows are read.
    let start = paging::position(args.cursor.as_deref())?;
    let limit = paging::limit(args.limit);
    let total = by_page.values().map(HashSet::len).sum();
    let mut skip = start;
    let mut hits = Vec::new();
    for (slug, ids) in &by_page {
        if hits.len() == limit {
            break;
        }
        if skip >= ids.len() {
            skip -= ids.len();
            continue;
        }
        let Some(page) = graph.page(slug) else {
            continue;
        };
        let blocks = page.blocks();
        let wanted = limit - hits.len();
        hits.extend(
            blocks
                .preorder()
                .into_iter()
                .filter(|block| ids.contains(block.id.as_str()))
                .skip(std::mem::take(&mut skip))
                .take(wanted)
                .map(|block| Hit::block(page, block)),
        );
    }
    let slice = paging::window(hits, start, total);
    Ok(Hits {
        hits: slice.items,
        total: slice.total,
        next_cursor: slice.next_cursor,
    })
}

/// The tags in use (`#tag`, `#[[tag]]`, `tags::`), most used first, with how many blocks and
/// pages carry each.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_tags(ws: &Workspace, args: ListArgs) -> Result<Tags, Error> {
    let graph = ws.snapshot();
    let tags = graph
        .index()
        .tags()
        .into_iter()
        .map(|(tag, count)| TagCount {
            tag: tag.to_string(),
            count,
        });
    let slice = paging::slice(tags, args.limit, args.cursor.as_deref())?;
    Ok(Tags {
        tags: slice.items,
        total: slice.total,
        next_cursor: slice.next_cursor,
    })
}

/// The blocks carrying a tag, and the pages tagged by `tags::`.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_tag_get(ws: &Workspace, args: TagArgs) -> Result<Hits, Error> {
    let graph = ws.snapshot();
    let tag = tag_name(&args.tag);
    let holders = graph.index().tagged(&graph.config().link_slug(tag));
    let slice =
        paging::slice(&holders, args.limit, args.cursor.as_deref())?.map(|h| Hit::of(&graph, h));
    Ok(Hits {
        hits: slice.items,
        total: slice.total,
        next_cursor: slice.next_cursor,
    })
}

/// The blocks and pages with a property, each with its `value`.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_property_query(ws: &Workspace, args: PropertyQueryArgs) -> Result<PropertyHits, Error> {
    let graph = ws.snapshot();
    let holders = graph
        .index()
        .with_property(&args.key, args.value.as_deref());
    // The index holds each holder with the property: only the slice's values are read.
    let slice =
        paging::slice(&holders, args.limit, args.cursor.as_deref())?.map(|holder| PropertyHit {
            hit: Hit::of(&graph, holder),
            value: property_value(&graph, holder, &args.key).unwrap_or_default(),
        });
    Ok(PropertyHits {
        hits: slice.items,
        total: slice.total,
        next_cursor: slice.next_cursor,
    })
}

/// The pages a page links to, in order, each saying whether it exists.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_links(ws: &Workspace, args: LinksArgs) -> Result<Links, Error> {
    let graph = ws.snapshot();
    let page = lookup::page(&graph, &args.slug)?;
    let links = graph
        .index()
        .links(&page.slug)
        .into_iter()
        .map(|target| {
            let named = graph.named(target);
            let alias_of = match named {
                Some(_) => None,
                None => graph.aliased(target).map(|aliased| aliased.slug.clone()),
            };
            Link {
                exists: named.is_some() || alias_of.is_some(),
                page: target.to_string(),
                alias_of,
            }
        })
        .collect();
    Ok(Links {
        page: page.slug.clone(),
        links,
    })
}

/// The pages and journal days changed last, newest first, with when.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_recent(ws: &Workspace, args: RecentArgs) -> Result<Recent, Error> {
    let graph = ws.snapshot();
    let mut pages: Vec<&Page> = graph.pages().collect();
    pages.sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| a.slug.cmp(&b.slug)));
    let pages = pages
        .into_iter()
        .take(paging::limit(args.limit))
        .map(|page| Changed {
            page: page.slug.clone(),
            updated: timestamp(page.updated),
        })
        .collect();
    Ok(Recent { pages })
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// A tag as a caller may write it (`#launch`, `#[[customer feedback]]`, `[[x]]`), bare.
fn tag_name(tag: &str) -> &str {
    let tag = tag.trim();
    let tag = tag.strip_prefix('#').unwrap_or(tag);
    tag.strip_prefix("[[")
        .and_then(|t| t.strip_suffix("]]"))
        .unwrap_or(tag)
}

/// The value of `key` (any case) on the holder's block, or on its page for a page holder.
fn property_value(graph: &Graph, holder: &Holder, key: &str) -> Option<String> {
    let block;
    let properties = match &holder.block {
        Some(id) => {
            block = graph.block_alone(id)?;
            &block.properties
        }
        None => &graph.page(&holder.slug)?.properties,
    };
    properties
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_read_bare_however_written() {
        for written in [
            "launch",
            "#launch",
            " #launch ",
            "#[[launch]]",
            "[[launch]]",
        ] {
            assert_eq!(tag_name(written), "launch", "{written}");
        }
        assert_eq!(tag_name("#[[customer feedback]]"), "customer feedback");
    }

    #[test]
    fn open_tasks_are_every_state_but_done_and_canceled() {
        let open = TaskFilter::Open.markers();
        assert_eq!(open.len(), 8);
        for closed in [
            TaskMarker::Done,
            TaskMarker::Canceled,
            TaskMarker::Cancelled,
        ] {
            assert!(!open.contains(&closed), "{closed}");
        }
        assert_eq!(TaskFilter::All.markers().len(), 11);
        assert_eq!(
            TaskFilter::Marker(TaskMarker::Waiting).markers(),
            [TaskMarker::Waiting, TaskMarker::Wait]
        );
        assert_eq!(
            TaskFilter::Marker(TaskMarker::Cancelled).markers(),
            [TaskMarker::Cancelled, TaskMarker::Canceled]
        );
        assert_eq!(
            TaskFilter::Marker(TaskMarker::Started).markers(),
            [TaskMarker::Started]
        );
    }

    /// The schemas are written by hand and the decoding derived: each word a schema lists
    /// decodes, and is written back as itself.
    #[test]
    fn task_arguments_decode_every_word_their_schema_lists() {
        fn each_word_decodes<T>(count: usize)
        where
            T: JsonSchema + serde::de::DeserializeOwned + Serialize,
        {
            let schema = schemars::schema_for!(T);
            let words = schema.get("enum").and_then(|words| words.as_array());
            assert_eq!(words.map(Vec::len), Some(count), "{schema:?}");
            for word in words.into_iter().flatten() {
                let decoded = serde_json::from_value::<T>(word.clone());
                let written = decoded.map(|decoded| serde_json::to_value(decoded).ok());
                assert_eq!(written.ok().flatten().as_ref(), Some(word));
            }
        }
        each_word_decodes::<TaskFilter>(TaskMarker::ALL.len() + 2);
        each_word_decodes::<crate::blocks::TaskState>(TaskMarker::ALL.len() + 1);
    }
}
