//! The handler-facing model of a workspace: pages and journal days, each holding its blocks
//! (see `block`), packed while the graph keeps it (see `packed`).

use chrono::NaiveDate;
use compact_str::CompactString;
use serde::Serialize;
use thin_vec::ThinVec;

use super::block::Block;
use super::packed::{Blocks, BlocksRead};
use outl_format::Properties;

/// A page or a journal day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PageKind {
    Page,
    Journal { date: NaiveDate },
}

/// One page as read from disk, with the ids of its blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page {
    /// The lowercased name: how the page is addressed (see the slug rule in the module docs).
    pub slug: String,
    /// The name as written: `title::` if the page has one, else derived from the file name.
    pub name: String,
    pub kind: PageKind,
    /// Path of the markdown file relative to the workspace root, `/`-separated.
    pub file: String,
    /// The YAML front matter the file starts with, as written (its keys are in `properties`).
    pub front_matter: Option<String>,
    /// Page properties: the front matter's keys and the `key:: value` lines before the first
    /// bullet.
    pub properties: Properties,
    #[serde(rename = "blocks")]
    pub body: Blocks,
    /// The UUIDs the file's `((refs))` name, by the short id the texts hold instead (see
    /// [`served_id`](super::served_id)); a write puts each back.
    #[serde(skip)]
    pub ref_uuids: ThinVec<(CompactString, String)>,
    /// Last change, unix milliseconds: the file's mtime when read from disk, the op's time when
    /// written by outl.
    pub updated: i64,
    /// Content hash of the file as read (see [`content_hash`](super::content_hash)).
    pub hash: String,
}

impl Page {
    /// A page not yet on disk: no front matter and no refs by UUID, its time and hash those
    /// of the write that puts it there.
    pub fn new(
        slug: String,
        name: String,
        kind: PageKind,
        file: String,
        properties: Properties,
        blocks: impl Into<Blocks>,
    ) -> Page {
        Page {
            slug,
            name,
            kind,
            file,
            front_matter: None,
            properties,
            body: blocks.into(),
            ref_uuids: ThinVec::new(),
            updated: 0,
            hash: String::new(),
        }
    }

    /// The page's blocks, unpacked if the page is packed.
    pub fn blocks(&self) -> BlocksRead<'_> {
        self.body.read()
    }

    /// The page's blocks, to change: a packed page is unpacked for good.
    pub fn blocks_mut(&mut self) -> &mut ThinVec<Block> {
        self.body.open()
    }

    /// The journal date, for a journal page.
    pub fn date(&self) -> Option<NaiveDate> {
        match self.kind {
            PageKind::Journal { date } => Some(date),
            PageKind::Page => None,
        }
    }
}
