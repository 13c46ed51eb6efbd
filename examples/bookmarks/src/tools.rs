//! The five tools, each declaring its wire shape where it is written.

use outl_macros::{ToolFields, registry, tool};
use outl_registry::{Registry, Server};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::library::{Bookmark, Error, Library};

/// The reading-list server's tools: they borrow the [`Library`] and fail with its [`Error`].
/// Every argument is described in its tool's `inputSchema`, and replies are compact JSON: the
/// runtime's defaults.
pub struct Bookmarks;

impl Server for Bookmarks {
    type Context = Library;
    type Error = Error;
}

#[derive(Deserialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct NewBookmark {
    /// The link to save.
    pub url: String,
    /// What to call it in the list.
    pub title: String,
    /// Words to find it by.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// Save a link to read later; returns it with its id.
#[tool(payload = json)]
pub fn bookmark_add(library: &Library, args: NewBookmark) -> Result<Bookmark, Error> {
    library.add(args.url, args.title, args.tags)
}

#[derive(Deserialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct ListFilter {
    /// Only the bookmarks with this tag.
    pub tag: Option<String>,
    /// Only the bookmarks not read yet.
    #[serde(default)]
    pub unread: bool,
}

/// The saved links, oldest first, with their ids, tags and whether they were read.
#[tool(read_only, payload = json)]
pub fn bookmark_list(library: &Library, args: ListFilter) -> Result<Vec<Bookmark>, Error> {
    Ok(library
        .bookmarks()
        .into_iter()
        .filter(|b| args.tag.as_ref().is_none_or(|tag| b.tags.contains(tag)))
        .filter(|b| !(args.unread && b.read))
        .collect())
}

#[derive(Deserialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct BookmarkId {
    /// The bookmark's id, from `bookmark_list` or `bookmark_add`.
    pub id: u64,
}

/// Mark a bookmark read; returns it.
#[tool(idempotent, payload = json)]
pub fn bookmark_mark_read(library: &Library, args: BookmarkId) -> Result<Bookmark, Error> {
    library.mark_read(args.id)
}

#[derive(Serialize)]
pub struct Removed {
    pub removed: bool,
}

/// Delete a bookmark; says whether there was one.
#[tool(destructive, idempotent, payload = json)]
pub fn bookmark_remove(library: &Library, args: BookmarkId) -> Result<Removed, Error> {
    Ok(Removed {
        removed: library.remove(args.id)?,
    })
}

#[derive(Deserialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct ReadingListOf {
    /// Only the bookmarks with this tag.
    pub tag: Option<String>,
}

#[derive(Serialize, ToolFields)]
pub struct ReadingList {
    /// As sent: absent when the caller sent none, so that the drop as `arg` holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// The ids of the listed bookmarks, in the order of `md`.
    pub ids: Vec<u64>,
    pub md: String,
}

/// The unread bookmarks as a markdown list of links, each line ending in the bookmark's id.
///
/// The reply is the markdown alone: the caller sent the tag, and each line names its id.
#[tool(read_only, payload = markdown(md), drops(tag = arg, ids = "each line ends in the bookmark's id, as `(#7)`"))]
pub fn reading_list_markdown(library: &Library, args: ReadingListOf) -> Result<ReadingList, Error> {
    let unread: Vec<Bookmark> = bookmark_list(
        library,
        ListFilter {
            tag: args.tag.clone(),
            unread: true,
        },
    )?;
    let md = unread
        .iter()
        .map(|b| format!("- [{}]({}) (#{})\n", b.title, b.url, b.id))
        .collect();
    Ok(ReadingList {
        tag: args.tag,
        ids: unread.iter().map(|b| b.id).collect(),
        md,
    })
}

registry! {
    /// Every tool of the server, in `tools/list` order.
    pub static TOOLS: Registry<Bookmarks> = [
        bookmark_add,
        bookmark_list,
        bookmark_mark_read,
        bookmark_remove,
        reading_list_markdown,
    ];
}
