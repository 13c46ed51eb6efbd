//! Query tools: full-text search, tasks, tags, properties, a page's outgoing links and the
//! recently changed pages, all answered from the workspace index.

use std::collections::{BTreeMap, HashSet};

use outl_macros::{ToolFields, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::lookup;
use super::outline::timestamp;
use super::paging;
use crate::Error;
use crate::mcp::registry::{MAX_TEXT_CHARS, Problem, invalid_arguments};
use crate::outline::TaskMarker;
use crate::workspace::{Block, BlockList, Graph, Holder, Page, Workspace};

/// Where a query found something: a block (its id and its text as written, task marker
/// included), or a page through its own properties (no id).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// The page's slug.
    pub page: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl Hit {
    /// The hit of an index holder, its block's text read from `graph`.
    pub fn of(graph: &Graph, holder: &Holder) -> Hit {
        Hit {
            page: holder.slug.clone(),
            id: holder.block.clone(),
            text: holder
                .block
                .as_deref()
                .and_then(|id| graph.block_alone(id))
                .map(|block| block.text),
        }
    }

    fn block(page: &Page, block: &Block) -> Hit {
        Hit {
            page: page.slug.clone(),
            id: Some(block.id.to_string()),
            text: Some(block.text.clone()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Arguments

/// A full-text search.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words a block must all contain, in any case and any form of the word (`query` finds
    /// `queries`); Chinese, Japanese or Korean text by any two or more characters of it. Put
    /// words in double quotes to require them as written, in that order.
    pub query: String,
    /// Hits per call: 50 when left out, at most 200.
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// The next_cursor of the previous call, to continue the list.
    pub cursor: Option<String>,
}

/// Which tasks to list: "open", "all", or the tasks of one state, in any of its spellings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
pub enum TaskFilter {
    #[default]
    #[serde(rename = "open")]
    Open,
    #[serde(rename = "all")]
    All,
    #[serde(rename = "TODO")]
    Todo,
    #[serde(rename = "DOING")]
    Doing,
    #[serde(rename = "DONE")]
    Done,
    #[serde(rename = "LATER")]
    Later,
    #[serde(rename = "NOW")]
    Now,
    #[serde(rename = "WAITING")]
    Waiting,
    #[serde(rename = "WAIT")]
    Wait,
    #[serde(rename = "CANCELED")]
    Canceled,
    #[serde(rename = "CANCELLED")]
    Cancelled,
    #[serde(rename = "IN-PROGRESS")]
    InProgress,
    #[serde(rename = "STARTED")]
    Started,
}

impl TaskFilter {
    /// The markers listed: a state's filter lists both spellings of it (`WAIT` and
    /// `WAITING`, `CANCELED` and `CANCELLED`).
    fn markers(self) -> Vec<TaskMarker> {
        let state = |marker: TaskMarker| {
            std::iter::once(marker)
                .chain(marker.other_spelling())
                .collect()
        };
        match self {
            TaskFilter::Open => TaskMarker::ALL
                .into_iter()
                .filter(|m| m.is_open())
                .collect(),
            TaskFilter::All => TaskMarker::ALL.to_vec(),
            TaskFilter::Todo => state(TaskMarker::Todo),
            TaskFilter::Doing => state(TaskMarker::Doing),
            TaskFilter::Done => state(TaskMarker::Done),
            TaskFilter::Later => state(TaskMarker::Later),
            TaskFilter::Now => state(TaskMarker::Now),
            TaskFilter::Waiting => state(TaskMarker::Waiting),
            TaskFilter::Wait => state(TaskMarker::Wait),
            TaskFilter::Canceled => state(TaskMarker::Canceled),
            TaskFilter::Cancelled => state(TaskMarker::Cancelled),
            TaskFilter::InProgress => state(TaskMarker::InProgress),
            TaskFilter::Started => state(TaskMarker::Started),
        }
    }
}

/// Which tasks, where.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct TasksArgs {
    /// A task state (WAIT lists WAITING too, CANCELED lists CANCELLED, and the other way
    /// round), "open" (every state but DONE, CANCELED and CANCELLED; the default) or "all".
    pub state: Option<TaskFilter>,
    /// Only the tasks of this page (name, slug or alias; a journal day by its date or title).
    pub page: Option<String>,
    /// Tasks per call: 50 when left out, at most 200.
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// The next_cursor of the previous call, to continue the list.
    pub cursor: Option<String>,
}

/// A slice of a list.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Entries per call: 50 when left out, at most 200.
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// The next_cursor of the previous call, to continue the list.
    pub cursor: Option<String>,
}

/// A tag.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct TagArgs {
    /// The tag, with or without its `#` (`launch`, `#launch`, `customer feedback`).
    pub tag: String,
    /// Hits per call: 50 when left out, at most 200.
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// The next_cursor of the previous call, to continue the list.
    pub cursor: Option<String>,
}

/// A property, and maybe its value.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct PropertyQueryArgs {
    /// The property key, in any case (`owner` finds `owner:: [[Priya]]`).
    pub key: String,
    /// Only this exact value (surrounding spaces aside); every value when left out.
    #[schemars(length(max = MAX_TEXT_CHARS))]
    pub value: Option<String>,
    /// Hits per call: 50 when left out, at most 200.
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// The next_cursor of the previous call, to continue the list.
    pub cursor: Option<String>,
}

/// A page.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct LinksArgs {
    /// The page's name, slug or alias (a journal day by its date or title).
    pub slug: String,
}

/// How many pages.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct RecentArgs {
    /// Pages to return: 50 when left out, at most 200.
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

/// Full-text search: first the pages whose name or alias holds every word of `query` (no
/// `id`; the snippet is the name), then the blocks holding them all, best first (a heading
/// above a passing mention), each with its page, id and a snippet around the match. Returns
/// at most `limit` (50 by default, 200 at most) and a `next_cursor` when more remain.
#[tool(title = "Search", read_only, idempotent, payload = json)]
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

/// Task blocks: the open ones by default, or those of one state, in the whole workspace or on
/// one page; by page and document order, each with its page, id and text. Returns at most
/// `limit` (50 by default, 200 at most) and a `next_cursor` when more remain.
#[tool(title = "Tasks", read_only, idempotent, payload = json)]
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

/// Every tag in use (`#tag`, `#[[tag]]`, `tags::`) with how many blocks and pages carry it,
/// most used first. Returns at most `limit` (50 by default, 200 at most) and a
/// `next_cursor` when more remain.
#[tool(title = "Tags", read_only, idempotent, payload = json)]
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

/// The blocks and pages carrying a tag, by page and document order: a block with its id and
/// text, a page tagged through its `tags::` property without them. Returns at most `limit`
/// (50 by default, 200 at most) and a `next_cursor` when more remain.
#[tool(title = "Tagged", read_only, idempotent, payload = json)]
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

/// Blocks and pages with a property (`key:: value`), optionally only with one value; each
/// with its value, and a block with its id and text. Returns at most `limit` (50 by
/// default, 200 at most) and a `next_cursor` when more remain.
#[tool(title = "Property query", read_only, idempotent, payload = json)]
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

/// The pages a page links to (`[[links]]`, `#tags`, `tags::` and `alias::`), in order of first
/// appearance, each with whether that page exists yet.
#[tool(title = "Outgoing links", read_only, idempotent, payload = json)]
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

/// The most recently changed pages and journal days, newest first, with when each changed.
/// Returns `limit` of them (50 by default, 200 at most).
#[tool(title = "Recent pages", read_only, idempotent, payload = json)]
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
            TaskFilter::Waiting.markers(),
            [TaskMarker::Waiting, TaskMarker::Wait]
        );
        assert_eq!(
            TaskFilter::Cancelled.markers(),
            [TaskMarker::Cancelled, TaskMarker::Canceled]
        );
        assert_eq!(TaskFilter::Started.markers(), [TaskMarker::Started]);
    }
}
