//! The page-level writes: creating a page or a journal day, deleting a page, and renaming one
//! with the links to it.

use std::borrow::Cow;

use chrono::NaiveDate;
use serde_json::json;

use super::{Change, Draft, History, exists, not_found, same_content};
use crate::Workspace;
use crate::block::Block;
use crate::config::GraphConfig;
use crate::model::{Page, PageKind};
use crate::names;
use crate::oplog::{Op, OpKind};
use crate::{Error, ErrorCode};
use outl_format::{self as outline, Properties, Syntax};

impl Workspace {
    /// Creates a page (a journal day when `name` is an ISO date). `PAGE_EXISTS` when the name
    /// is taken, in any case, or its file already exists.
    pub fn create_page(
        &self,
        name: &str,
        properties: Properties,
        blocks: Vec<Block>,
    ) -> Result<Page, Error> {
        let name = names::check_page_name(name)?;
        self.with_lock(|w| {
            let page = self.new_page(name, properties, blocks)?;
            self.commit_new_page(w, OpKind::PageCreate, History::Write, page)
        })
    }

    /// The journal page of `date`, created empty if it does not exist yet. Reading an existing
    /// day writes nothing.
    pub fn ensure_journal(&self, date: NaiveDate) -> Result<Page, Error> {
        let slug = names::journal_slug(date);
        if let Some(page) = self.snapshot().page(&slug) {
            return Ok(page.clone());
        }
        self.with_lock(|w| match self.day_or_new(date)? {
            Ok(slug) => self
                .graph()
                .page(&slug)
                .cloned()
                .ok_or_else(|| not_found(&slug)),
            Err(page) => self.commit_new_page(w, OpKind::JournalCreate, History::Write, page),
        })
    }

    /// Deletes a page and its file.
    pub fn delete_page(&self, slug: &str) -> Result<Op, Error> {
        self.with_lock(|w| {
            let before = self.current(slug)?;
            self.commit(
                w,
                OpKind::PageDelete,
                History::Write,
                vec![Change {
                    before: Some(before),
                    after: None,
                }],
            )
        })
    }

    /// Renames a page (its file follows the new name) and rewrites every `[[link]]`, `#tag`
    /// and `tags::`/`alias::` entry naming it across the workspace, in one op.
    pub fn rename_page(&self, slug: &str, new_name: &str) -> Result<Page, Error> {
        let new_name = names::check_page_name(new_name)?;
        self.with_lock(|w| {
            let current = self.current(slug)?;
            let old = current.page.clone();
            if let PageKind::Journal { .. } = old.kind {
                return Err(Error::new(
                    ErrorCode::InvalidArguments,
                    "a journal page cannot be renamed",
                )
                .with_data(json!({ "slug": old.slug })));
            }
            if self.config.journal_day(new_name).is_some() {
                return Err(Error::new(
                    ErrorCode::InvalidArguments,
                    "a page cannot be renamed to a date: journal days are named by their date \
                     and their title",
                )
                .with_data(json!({ "name": crate::excerpt(new_name) })));
            }
            let new_slug = names::slug(new_name);
            // An org page stays an org page.
            let new_file = names::page_file_as(
                new_name,
                self.config.name_format,
                Syntax::of_file(&old.file),
            )?;
            if new_slug != old.slug && self.graph().page(&new_slug).is_some() {
                return Err(exists(&new_slug, None));
            }
            if new_file != old.file && self.root.join(&new_file).exists() {
                return Err(exists(&new_slug, Some(&new_file)));
            }
            let linking: Vec<String> = self
                .graph()
                .index()
                .linking_pages(&old.slug)
                .into_iter()
                .filter(|s| *s != old.slug)
                .map(str::to_string)
                .collect();
            let mut renamed = old.clone();
            renamed.name = new_name.to_string();
            renamed.slug = new_slug.clone();
            renamed.file = new_file;
            for (key, value) in renamed.properties.iter_mut() {
                if key.eq_ignore_ascii_case("title") {
                    *value = new_name.to_string();
                }
            }
            rename_links_in(&mut renamed, &old, new_name, &self.config);
            let keep_md = same_content(&old, &renamed).then(|| current.md.clone());
            let mut changes = vec![Change {
                before: Some(current),
                after: Some(Draft {
                    page: renamed,
                    md: keep_md,
                }),
            }];
            for source in linking {
                let before = self.current(&source)?;
                let mut after = before.page.clone();
                rename_links_in(&mut after, &old, new_name, &self.config);
                if !same_content(&before.page, &after) {
                    changes.push(Change {
                        before: Some(before),
                        after: Some(Draft {
                            page: after,
                            md: None,
                        }),
                    });
                }
            }
            self.commit(w, OpKind::PageRename, History::Write, changes)?;
            self.graph()
                .page(&new_slug)
                .cloned()
                .ok_or_else(|| not_found(&new_slug))
        })
    }
}

/// Rewrites links to `old` in a page's blocks and properties.
fn rename_links_in(page: &mut Page, old: &Page, new_name: &str, config: &GraphConfig) {
    let renaming = Renaming {
        old: &old.name,
        new: new_name,
        syntax: Syntax::of_file(&page.file),
        config,
    };
    renaming.in_properties(&mut page.properties);
    renaming.in_blocks(page.blocks_mut());
}

/// A page's old name and new one, and the config that says which properties list pages.
struct Renaming<'a> {
    old: &'a str,
    new: &'a str,
    /// The syntax of the page whose links are rewritten.
    syntax: Syntax,
    config: &'a GraphConfig,
}

impl Renaming<'_> {
    fn in_properties(&self, properties: &mut Properties) {
        for (key, value) in properties.iter_mut() {
            let page_list = self.config.is_page_list(key);
            if let Cow::Owned(renamed) =
                outline::rename_property_links(value, page_list, self.old, self.new)
            {
                *value = renamed;
            }
        }
    }

    fn in_blocks(&self, blocks: &mut [Block]) {
        for block in blocks {
            if let Cow::Owned(renamed) =
                outline::rename_page_links_in(self.syntax, &block.text, self.old, self.new)
            {
                block.text = renamed;
            }
            self.in_properties(&mut block.properties);
            self.in_blocks(&mut block.children);
        }
    }
}
