//! Reading page files: finding them, parsing them, and telling a page outl knows from one it
//! has never seen and from one edited behind its back; and reading them all, on two threads,
//! into a graph.

use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Workspace;
use super::block::BlockList;
use super::carry::{self, carry_ids};
use super::config::GraphConfig;
use super::disk::Durability;
use super::format;
use super::graph::{Graph, Minting, Shadowed, Skipped};
use super::model::{Page, PageKind};
use super::names::{self, JOURNALS_DIR, PAGES_DIR};
use super::sidecar::Sidecar;
use super::stamp::Stamp;
use super::{content_hash, frozen::Frozen};
use crate::Error;
use outl_format::{Properties, Syntax};

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
            carry::assign_preorder(page.blocks_mut(), &ids);
            Origin::Known
        }
        None => match sidecar_text.as_deref().and_then(Sidecar::decode) {
            None => Origin::New,
            Some(sidecar) if sidecar.hash == page.hash => {
                if page.body.count() == sidecar.ids.len() {
                    carry::assign_preorder(page.blocks_mut(), &sidecar.ids);
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
        carry::assign_preorder(page.blocks_mut(), &sidecar.ids);
    }
    page
}

impl Workspace {
    /// Reads every page file into a fresh graph (at open).
    pub(super) fn load_all(&self) -> Result<Graph, Error> {
        let (files, skipped) = page_files(&self.root, &self.config.hidden);
        let (loaded, blocks) = load_parallel(&self.root, &files, &self.config);
        let mut graph = Graph::with_config(self.config.clone());
        graph.skipped = skipped;
        graph.reserve(loaded.len(), blocks);
        self.adopt(&mut graph, loaded, true)?;
        graph.build_index();
        Ok(graph)
    }

    /// Adds loaded page files to `graph`: resolves duplicate slugs, fills ids, and writes the
    /// sidecars of pages seen for the first time. With `index_later`, the pages are left out
    /// of the index, for one [`Graph::build_index`] over all of them.
    pub(super) fn adopt(
        &self,
        graph: &mut Graph,
        loaded: Vec<FileRead>,
        index_later: bool,
    ) -> Result<(), Error> {
        let mut pages: Vec<Option<Loaded>> = Vec::with_capacity(loaded.len());
        // Each page's slug, taken out of the page to be sorted, and where the page is.
        let mut slugs: Vec<(String, usize)> = Vec::with_capacity(loaded.len());
        for (file, result) in loaded {
            match result {
                Ok(mut l) => {
                    slugs.push((std::mem::take(&mut l.page.slug), pages.len()));
                    pages.push(Some(l));
                }
                Err(reason) => graph.skipped.push(Skipped { file, reason }),
            }
        }
        // By slug, and the files of one slug in the order they came: path order.
        slugs.sort_unstable();
        for group in slugs.chunk_by_mut(|a, b| a.0 == b.0) {
            let slug = std::mem::take(&mut group[0].0);
            let files = group.iter().map(|&(_, i)| i);
            if let Some(existing) = graph.page(&slug) {
                let served_by = existing.file.clone();
                for l in files.filter_map(|i| pages[i].take()) {
                    graph.shadowed.push(Shadowed {
                        file: l.page.file,
                        slug: slug.clone(),
                        served_by: served_by.clone(),
                    });
                }
                continue;
            }
            let winner = match &*group {
                [(_, only)] => *only,
                _ => files
                    .clone()
                    .find(|&i| {
                        pages[i].as_ref().is_some_and(|l| {
                            own_file_of(&l.page, &self.config).as_ref() == Some(&l.page.file)
                        })
                    })
                    .unwrap_or(group[0].1),
            };
            let Some(mut loaded) = pages[winner].take() else {
                continue;
            };
            for other in files.filter_map(|i| pages[i].take()) {
                graph.shadowed.push(Shadowed {
                    file: other.page.file,
                    slug: slug.clone(),
                    served_by: loaded.page.file.clone(),
                });
            }
            loaded.page.slug = slug;
            let reminted = if index_later {
                graph.fill_ids_and_number(&mut loaded.page)
            } else {
                graph.fill_ids(
                    &mut loaded.page,
                    &HashSet::new(),
                    &mut HashSet::new(),
                    Minting::Derived,
                )
            };
            let frozen = match loaded.origin {
                Origin::Ahead(frozen) => Some(frozen),
                Origin::New => {
                    self.write_sidecar(&loaded)?;
                    None
                }
                Origin::Known => {
                    if reminted {
                        self.write_sidecar(&loaded)?;
                    }
                    None
                }
            };
            if index_later {
                graph.insert_numbered(loaded.page, Some(loaded.stamp), frozen);
            } else {
                graph.insert(loaded.page, Some(loaded.stamp), frozen);
            }
        }
        graph.shadowed.sort_by(|a, b| a.file.cmp(&b.file));
        graph.shadowed.dedup();
        Ok(())
    }

    /// Sidecar of a page outl has just read for the first time. Its ids derive from the page,
    /// so losing this write to a crash loses nothing: no fsync.
    fn write_sidecar(&self, loaded: &Loaded) -> Result<(), Error> {
        let sidecar = Sidecar {
            hash: loaded.page.hash.clone(),
            ids: loaded
                .page
                .blocks()
                .preorder()
                .iter()
                .map(|b| b.id.to_string())
                .collect(),
            base: loaded.md.clone(),
        };
        sidecar.write(&self.root, &loaded.page.file, Durability::Atomic)?;
        Ok(())
    }
}

/// The file a page's name would be written to, to prefer it among duplicates.
fn own_file_of(page: &Page, config: &GraphConfig) -> Option<String> {
    match page.kind {
        PageKind::Journal { date } => Some(config.journal_file_of(date)),
        PageKind::Page => names::page_file(&page.name, config.name_format).ok(),
    }
}

/// A page file and what reading it gave: the page, or why it cannot be served.
type FileRead = (String, Result<Loaded, String>);

/// Files a loading thread takes at a time: few enough that both threads finish together
/// whatever the sizes of the files, enough that taking them costs nothing.
const LOAD_CHUNK: usize = 256;

/// Loads files, in the order given, on two threads (the machine outl targets has two cores;
/// more would only contend for the disk); also the number of blocks they hold.
pub(super) fn load_parallel(
    root: &Path,
    files: &[String],
    config: &GraphConfig,
) -> (Vec<FileRead>, usize) {
    let load_chunk = |chunk: &[String]| {
        let mut blocks = 0;
        let loaded: Vec<_> = chunk
            .iter()
            .map(|file| {
                let result = load(root, file, config);
                if let Ok(l) = &result {
                    blocks += l.page.body.count();
                }
                (file.clone(), result)
            })
            .collect();
        (loaded, blocks)
    };
    if files.len() < 64 {
        return load_chunk(files);
    }
    // Each thread takes the next chunk until none is left, so that neither waits for the other
    // at the end.
    let next = AtomicUsize::new(0);
    let take_chunks = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(chunk) = files.chunks(LOAD_CHUNK).nth(i) else {
                return done;
            };
            done.push((i, load_chunk(chunk)));
        }
    };
    let mut done = std::thread::scope(|scope| {
        let other = scope.spawn(take_chunks);
        let mut done = take_chunks();
        // Chunks a failed thread took are loaded again below.
        done.extend(other.join().unwrap_or_default());
        done
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    let mut done = done.into_iter().peekable();
    let mut out = Vec::with_capacity(files.len());
    let mut blocks = 0;
    for (i, chunk) in files.chunks(LOAD_CHUNK).enumerate() {
        let (loaded, count) = match done.next_if(|&(j, _)| j == i) {
            Some((_, chunk_loaded)) => chunk_loaded,
            None => load_chunk(chunk),
        };
        out.extend(loaded);
        blocks += count;
    }
    (out, blocks)
}
