//! Reading page files: finding them, parsing them, and telling a page outl knows from one it
//! has never seen and from one edited behind its back.

use std::fs;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use super::config::GraphConfig;
use super::format;
use super::ids::{self, carry_ids};
use super::model::{Page, PageKind};
use super::names::{self, JOURNALS_DIR, PAGES_DIR};
use super::sidecar::Sidecar;
use super::{content_hash, frozen::Frozen};
use crate::outline::{Properties, Syntax};

/// Size, modification time and status-change time of a page file as last verified: when all
/// are unchanged the file is taken to be unchanged without hashing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub len: u64,
    pub modified: Option<SystemTime>,
    /// When the file itself last changed (unix ctime: seconds, nanoseconds). Unlike the
    /// modification time no program can set it back, so a file replaced by one of the same size
    /// with the old modification time restored (as sync tools do) still shows. Zero where the
    /// platform has none.
    pub changed: (i64, i64),
}

impl Stamp {
    pub fn of(meta: &fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let changed = {
            use std::os::unix::fs::MetadataExt;
            (meta.ctime(), meta.ctime_nsec())
        };
        #[cfg(not(unix))]
        let changed = (0, 0);
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            changed,
        }
    }

    /// Unix milliseconds of the modification time.
    pub fn updated(&self) -> i64 {
        self.modified
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_millis() as i64)
    }
}

/// A file under `pages/` or `journals/` that is not served, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub file: String,
    pub reason: String,
}

/// How a loaded page relates to what outl last wrote or saw.
#[derive(Debug)]
pub enum Origin {
    /// The file is what its sidecar says: ids come from the sidecar.
    Known,
    /// No sidecar: a page outl has not seen before. Its ids are minted and a sidecar written.
    New,
    /// The file changed since its sidecar: readable, but frozen for writes until reconciled.
    Ahead(Frozen),
}

#[derive(Debug)]
pub struct Loaded {
    /// Blocks without a known id have an empty one.
    pub page: Page,
    pub stamp: Stamp,
    pub origin: Origin,
    /// The file content.
    pub md: String,
}

/// Every page file of the graph (relative, `/`-separated, sorted), and the files passed over,
/// each with why. As Logseq reads a graph, a page file is a `.md` or `.org` file anywhere in
/// the graph's folder: under `pages/` and `journals/`, and elsewhere too (a `README.md` at the
/// top is the page `README`), but for what Logseq leaves out of a graph: folders and files whose
/// names start with a dot (`.git`, outl's own `.outl`), `node_modules`, `logseq/bak` and
/// `logseq/version-files`. Under `pages/` and `journals/` a name starting with a dot is a page
/// (`.NET.md` is the page `.NET`). A file is no page when `:hidden` hides it (Logseq hides
/// every path that starts with one of its paths, taken from the graph's folder) or when it is
/// an editor's lock or temp file.
pub fn page_files(root: &Path, hidden: &[String]) -> (Vec<String>, Vec<Skipped>) {
    let hidden: Vec<String> = hidden
        .iter()
        .map(|path| format!("/{}", path.trim_start_matches('/')))
        .filter(|path| path.len() > 1)
        .collect();
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    walk(root, "", &hidden, &mut files, &mut skipped);
    files.sort();
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    (files, skipped)
}

/// Folders Logseq leaves out of a graph, besides those whose names start with a dot.
const NOT_IN_GRAPH: [&str; 3] = ["node_modules", "logseq/bak", "logseq/version-files"];

/// Whether `rel`, a path in the graph's folder, is under `pages/` or `journals/`.
fn in_page_folders(rel: &str) -> bool {
    [PAGES_DIR, JOURNALS_DIR]
        .iter()
        .any(|dir| rel.strip_prefix(dir).is_some_and(|r| r.starts_with('/')))
}

/// Whether a file name is a page's: `.md` or `.org`.
pub fn is_page_file_name(name: &str) -> bool {
    name.ends_with(".md") || name.ends_with(".org")
}

/// Why a file with a page's extension is not a page, if it is an editor's: an Emacs lock
/// (`.#x.md`) or auto-save file, an Office-style lock (`~$x.md`), outl's own temp file.
fn editor_file(name: &str) -> Option<&'static str> {
    if name.starts_with(".#") || name.starts_with('#') {
        Some("an Emacs lock or auto-save file")
    } else if name.starts_with("~$") || name.starts_with(".~lock.") {
        Some("an editor's lock file")
    } else if name.contains(super::disk::TEMP_MARKER) {
        Some("a temp file of a write in progress")
    } else {
        None
    }
}

fn walk(
    root: &Path,
    dir: &str,
    hidden: &[String],
    files: &mut Vec<String>,
    skipped: &mut Vec<Skipped>,
) {
    let Ok(entries) = fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            skipped.push(Skipped {
                file: format!("{dir}/{}", entry.file_name().to_string_lossy()),
                reason: "the file name is not UTF-8".into(),
            });
            continue;
        };
        let rel = if dir.is_empty() {
            name.clone()
        } else {
            format!("{dir}/{name}")
        };
        let in_pages = in_page_folders(&rel);
        if (name.starts_with('.') && !in_pages) || NOT_IN_GRAPH.contains(&rel.as_str()) {
            continue;
        }
        let slashed = format!("/{rel}");
        if let Some(path) = hidden
            .iter()
            .find(|path| slashed.starts_with(path.as_str()))
        {
            skipped.push(Skipped {
                file: rel,
                reason: format!("hidden by :hidden \"{}\" of logseq/config.edn", &path[1..]),
            });
            continue;
        }
        // The type comes with the directory entry: no stat per file.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() && !in_pages && !is_page_file_name(&name) {
            continue;
        }
        if kind.is_symlink() {
            match entry.path().canonicalize() {
                Ok(target)
                    if target.starts_with(root)
                        && target.is_file()
                        && is_page_file_name(&name)
                        && editor_file(&name).is_none() =>
                {
                    files.push(rel);
                }
                Ok(target) if !target.starts_with(root) => skipped.push(Skipped {
                    file: rel,
                    reason: "a symlink to outside the workspace".into(),
                }),
                Ok(_) => skipped.push(Skipped {
                    file: rel,
                    reason: "a symlink to a folder or to a file that is not a page".into(),
                }),
                Err(_) => skipped.push(Skipped {
                    reason: editor_file(&name).unwrap_or("a symlink to nothing").into(),
                    file: rel,
                }),
            }
        } else if kind.is_dir() {
            walk(root, &rel, hidden, files, skipped);
        } else if kind.is_file() {
            let reason = match editor_file(&name) {
                Some(reason) => reason,
                None if is_page_file_name(&name) => {
                    files.push(rel);
                    continue;
                }
                // Outside the page folders a graph keeps its assets, its config and more.
                None if !in_pages => continue,
                None => "not a page file (.md or .org)",
            };
            skipped.push(Skipped {
                file: rel,
                reason: reason.into(),
            });
        }
    }
}

/// Slug, name and kind of the page in `file` with these page properties. A file under
/// `journals/` named by a day is that day's page; so is any page whose name (its `title::`,
/// else its file name) is a day's title, as in Logseq.
pub fn identity(
    file: &str,
    properties: &Properties,
    config: &GraphConfig,
) -> (String, String, PageKind) {
    let stem = file.rsplit('/').next().unwrap_or(file);
    let stem = stem
        .strip_suffix(".md")
        .or_else(|| stem.strip_suffix(".org"))
        .unwrap_or(stem);
    let journal = |date| {
        let name = names::journal_slug(date);
        (name.clone(), name, PageKind::Journal { date })
    };
    if file.starts_with(&format!("{JOURNALS_DIR}/"))
        && let Some(date) = config.journal_day_of_stem(stem)
    {
        return journal(date);
    }
    let title = properties
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case("title"))
        .map(|(_, value)| value.trim())
        .filter(|value| !value.is_empty());
    let name = match title {
        Some(title) => title.to_string(),
        None => names::name_of_stem(stem, config.name_format),
    };
    match config.journal_day(&name) {
        Some(date) => journal(date),
        None => (names::slug(&name), name, PageKind::Page),
    }
}

/// The page a markdown text makes in `file`, ids empty.
pub fn page_of(file: &str, md: &str, config: &GraphConfig, updated: i64) -> Page {
    let parsed = format::parse_as(Syntax::of_file(file), md);
    let (slug, name, kind) = identity(file, &parsed.properties, config);
    Page {
        slug,
        name,
        kind,
        file: file.to_string(),
        front_matter: parsed.front_matter,
        properties: parsed.properties,
        body: parsed.blocks.into(),
        ref_uuids: parsed.ref_uuids,
        updated,
        hash: content_hash(md.as_bytes()),
    }
}

/// Reads, parses and identifies one page file. `Err` says why it cannot be served.
pub fn load(root: &Path, file: &str, config: &GraphConfig) -> Result<Loaded, String> {
    let path = root.join(file);
    let meta = fs::metadata(&path).map_err(|e| format!("cannot read: {e}"))?;
    let bytes = fs::read(&path).map_err(|e| format!("cannot read: {e}"))?;
    let md = String::from_utf8(bytes).map_err(|_| "the file is not UTF-8 text".to_string())?;
    let stamp = Stamp::of(&meta);
    let mut page = page_of(file, &md, config, stamp.updated());
    let sidecar_text = Sidecar::read_text(root, file);
    let current_ids = sidecar_text
        .as_deref()
        .and_then(|text| Sidecar::ids_of_current(text, &md, &page.hash))
        .filter(|ids| page.body.count() == ids.len());
    let origin = match current_ids {
        Some(ids) => {
            ids::assign_preorder(page.blocks_mut(), &ids);
            Origin::Known
        }
        None => match sidecar_text.as_deref().and_then(Sidecar::decode) {
            None => Origin::New,
            Some(sidecar) if sidecar.hash == page.hash => {
                if page.body.count() == sidecar.ids.len() {
                    ids::assign_preorder(page.blocks_mut(), &sidecar.ids);
                } else {
                    // Only a parser change can get here; keep what ids still fit.
                    carry_ids(
                        &base_page(file, &sidecar, config).blocks(),
                        page.blocks_mut(),
                    );
                }
                Origin::Known
            }
            Some(sidecar) => {
                carry_ids(
                    &base_page(file, &sidecar, config).blocks(),
                    page.blocks_mut(),
                );
                Origin::Ahead(Frozen::new(&page, &sidecar.hash, &sidecar.base, &md))
            }
        },
    };
    Ok(Loaded {
        page,
        stamp,
        origin,
        md,
    })
}

/// The page as outl last wrote or saw it, with the ids it had then.
pub fn base_page(file: &str, sidecar: &Sidecar, config: &GraphConfig) -> Page {
    let mut page = page_of(file, &sidecar.base, config, 0);
    if page.body.count() == sidecar.ids.len() {
        ids::assign_preorder(page.blocks_mut(), &sidecar.ids);
    }
    page
}
