//! A workspace folder on disk: pages and journals, sidecar ids, the op log, the lock and the index.

mod model;
mod names;

use std::path::{Path, PathBuf};
use std::sync::{RwLock, RwLockReadGuard};

use std::collections::BTreeMap;

pub use model::{Block, Page, PageKind};
pub use names::{NameFormat, slug};

use crate::{Error, ErrorCode};

/// Where outl keeps its own state inside the workspace.
pub const STATE_DIR: &str = ".outl";

/// An open workspace. `Send + Sync`: share it as `Arc<Workspace>`.
pub struct Workspace {
    root: PathBuf,
    format: NameFormat,
    graph: RwLock<Graph>,
}

/// Everything a read needs, consistent at one instant.
#[derive(Debug, Default)]
pub struct Graph {
    pages: BTreeMap<String, Page>,
}

/// A consistent read view; hold it only while reading (writes wait for it).
pub struct Snapshot<'a>(RwLockReadGuard<'a, Graph>);

impl std::ops::Deref for Snapshot<'_> {
    type Target = Graph;
    fn deref(&self) -> &Graph {
        &self.0
    }
}

impl Graph {
    /// The page with this slug.
    pub fn page(&self, slug: &str) -> Option<&Page> {
        self.pages.get(slug)
    }

    /// The page named (case-insensitively) or slugged `name_or_slug`.
    pub fn resolve(&self, name_or_slug: &str) -> Option<&Page> {
        self.pages.get(&slug(name_or_slug))
    }

    /// Every page, by slug.
    pub fn pages(&self) -> impl Iterator<Item = &Page> {
        self.pages.values()
    }

    pub fn page_count(&self) -> usize {
        self.pages.len()
    }
}

impl Workspace {
    /// Opens the workspace at `root`, creating an empty one (with `pages/` and `journals/`) if
    /// the folder does not exist.
    pub fn open(root: &Path) -> Result<Workspace, Error> {
        let unavailable = |why: String| {
            Error::new(ErrorCode::WorkspaceUnavailable, why)
                .with_data(serde_json::json!({ "root": root.display().to_string() }))
        };
        match std::fs::metadata(root) {
            Ok(meta) if !meta.is_dir() => {
                return Err(unavailable(format!("{} is a file, not a folder", root.display())));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(root).map_err(|e| {
                    unavailable(format!("cannot create {}: {e}", root.display()))
                })?;
            }
            Err(e) => return Err(unavailable(format!("cannot open {}: {e}", root.display()))),
        }
        let root = root
            .canonicalize()
            .map_err(|e| unavailable(format!("cannot open {}: {e}", root.display())))?;
        std::fs::read_dir(&root)
            .map_err(|e| unavailable(format!("cannot read {}: {e}", root.display())))?;
        for dir in [names::PAGES_DIR, names::JOURNALS_DIR, STATE_DIR] {
            let path = root.join(dir);
            if let Err(e) = std::fs::create_dir_all(&path) {
                return Err(unavailable(format!("cannot create {}: {e}", path.display())));
            }
        }
        let format = NameFormat::detect(&root);
        Ok(Workspace { root, format, graph: RwLock::new(Graph::default()) })
    }

    /// The workspace folder, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How file names map to page names here.
    pub fn name_format(&self) -> NameFormat {
        self.format
    }

    /// A consistent view for reading.
    pub fn snapshot(&self) -> Snapshot<'_> {
        Snapshot(self.graph.read().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}
