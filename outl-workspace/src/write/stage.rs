//! An op's pages on disk: staged beside their files, synced with the op log, then renamed into
//! place, each guarded by the bytes staging read; and an op settled after a crash.

use std::borrow::Cow;
use std::path::Path;

use super::io_error;
use crate::content_hash;
use crate::disk::{self, Durability, Guard};
use crate::oplog::{Body, ChangeContent, Op, OpLog, PageChange};
use crate::sidecar::{self, Sidecar};
use crate::{Error, ErrorCode};

/// What a staged step of an op's writes is for: the start of the error its failure gives.
#[derive(Debug, Clone)]
pub(super) struct Target {
    pub(super) what: &'static str,
    pub(super) file: String,
}

pub(super) type Writes = disk::Batch<Target>;

pub(super) fn target(what: &'static str, file: &str) -> Target {
    Target {
        what,
        file: file.to_string(),
    }
}

pub(super) fn failed(failure: disk::Failure<Target>) -> Error {
    match failure.tag {
        Some(target) => io_error(target.what, &target.file, failure.error),
        None => failure.error.into(),
    }
}

/// Makes a logged op true on disk after a crash (step 6): its pages as in [`stage`], with the
/// log synced beside them, since the process that appended the op may have died before its
/// line was durable, and no page may get ahead of the log.
pub(crate) fn settle(root: &Path, log: &OpLog, op: &Op, body: &Body) -> Result<(), Error> {
    // A file edited outside outl since is left for freeze detection; one saved while this
    // settles is left too, by staging again (it then holds neither state), a few times over.
    for _ in 0..SETTLE_TRIES {
        let (writes, _) = stage(root, &op.pages, &body.pages)?;
        if writes.is_empty() {
            return Ok(());
        }
        log.sync_with(|log| writes.sync(Some(log)).map_err(failed))?;
        match writes.apply(|| ()) {
            Err(failure) if disk::Moved::is(&failure.error) => continue,
            applied => return applied.map_err(failed),
        }
    }
    Err(Error::new(
        ErrorCode::Conflict,
        "the pages of the last op keep changing on disk; try again",
    ))
}

/// Times [`settle`] stages again when a file changes under it.
const SETTLE_TRIES: usize = 8;

/// Stages what makes the pages of an op true on disk, for each page: rolls its file forward
/// if it still has its before-state (removing the file the op moved away from), rewrites a
/// stale sidecar, and leaves a file that matches neither (edited outside outl) alone, naming it
/// in the second part of the result. Each page sees the disk as the pages staged before it
/// leave it. Each page file staged is guarded by the bytes read here: should another program
/// write it before the rename, the rename leaves that file as it is (see [`disk::Guard`]).
pub(super) fn stage(
    root: &Path,
    changes: &[PageChange],
    contents: &[ChangeContent],
) -> Result<(Writes, Vec<String>), Error> {
    let mut writes = Writes::new(Durability::Durable);
    let mut left_alone = Vec::new();
    for (change, content) in changes.iter().zip(contents) {
        stage_page(root, change, content, &mut writes, &mut left_alone)?;
    }
    Ok((writes, left_alone))
}

fn stage_page(
    root: &Path,
    change: &PageChange,
    content: &ChangeContent,
    writes: &mut Writes,
    left_alone: &mut Vec<String>,
) -> Result<(), Error> {
    // A file's content hash, and the guard a step that replaces or removes it takes.
    let read = |writes: &Writes, file: &str| -> Result<Option<(String, Guard)>, Error> {
        let bytes = staged_or_on_disk(writes, &root.join(file))
            .map_err(|e| io_error("cannot read", file, e))?;
        Ok(bytes.map(|bytes| (content_hash(&bytes), Guard::Holds(blake3::hash(&bytes)))))
    };
    // The file the op moved away from (a rename, a delete).
    if let Some(before) = &change.before
        && change.after.as_ref().is_none_or(|a| a.file != before.file)
    {
        match read(writes, &before.file)? {
            Some((hash, guard)) if hash == before.hash => {
                writes.remove(
                    &root.join(&before.file),
                    guard,
                    target("cannot remove", &before.file),
                );
                writes.remove(
                    &sidecar::path(root, &before.file),
                    Guard::Any,
                    target("cannot remove the sidecar of", &before.file),
                );
            }
            Some(_) => left_alone.push(before.file.clone()),
            None => {}
        }
    }
    let (Some(after), Some(after_content)) = (&change.after, &content.after) else {
        return Ok(());
    };
    let on_disk = read(writes, &after.file)?;
    let guard = match (&change.before, &on_disk) {
        (Some(before), Some((hash, guard)))
            if before.file == after.file && *hash == before.hash =>
        {
            Some(*guard)
        }
        (Some(before), _) if before.file == after.file => None,
        (_, None) => Some(Guard::Absent),
        (_, Some(_)) => None,
    };
    if let Some(guard) = guard {
        writes
            .replace(
                &root.join(&after.file),
                after_content.md.as_bytes().to_vec(),
                guard,
                target("cannot write", &after.file),
            )
            .map_err(failed)?;
    } else if on_disk.as_ref().map(|(hash, _)| hash) != Some(&after.hash) {
        left_alone.push(after.file.clone());
        return Ok(());
    }
    let sidecar_path = sidecar::path(root, &after.file);
    let sidecar_current = staged_or_on_disk(writes, &sidecar_path)
        .ok()
        .flatten()
        .and_then(|bytes| Sidecar::decode(std::str::from_utf8(&bytes).ok()?))
        .is_some_and(|s| s.hash == after.hash && s.ids == after_content.ids);
    if !sidecar_current {
        let sidecar = Sidecar {
            hash: after.hash.clone(),
            ids: after_content.ids.clone(),
            base: after_content.md.clone(),
        };
        writes
            .replace(
                &sidecar_path,
                sidecar.encode().into_bytes(),
                Guard::Any,
                target("cannot write the sidecar of", &after.file),
            )
            .map_err(failed)?;
    }
    Ok(())
}

/// What `path` holds once `writes` are applied: its staged content, else what is on disk
/// (`None`: no such file).
fn staged_or_on_disk<'a>(
    writes: &'a Writes,
    path: &Path,
) -> std::io::Result<Option<Cow<'a, [u8]>>> {
    match writes.staged(path) {
        Some(staged) => Ok(staged.map(Cow::Borrowed)),
        None => match std::fs::read(path) {
            Ok(bytes) => Ok(Some(Cow::Owned(bytes))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    use crate::disk::trace::{self, Event};
    use crate::{OpKind, Workspace, sidecar};

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("pages")).unwrap();
        fs::write(dir.path().join("pages/Bob.md"), "- one\n- two\n").unwrap();
        fs::write(dir.path().join("pages/Ann.md"), "- three\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    }

    fn update_bob(ws: &Workspace, text: &str) {
        ws.edit(OpKind::BlockUpdate, &["bob"], |pages| {
            pages[0].blocks_mut()[0].text = text.into();
            Ok(())
        })
        .unwrap();
    }

    /// Checks that `events` are one page replaced: its temp files written, one round of fsyncs
    /// for them and the log line, the renames, one round for the two folders.
    fn assert_replaced_in_two_rounds(root: &Path, file: &str, events: &[Event]) {
        let [
            Event::Wrote(page_temp),
            Event::Wrote(sidecar_temp),
            Event::Synced {
                also: true,
                paths: synced,
            },
            Event::Renamed(page),
            Event::Renamed(sidecar),
            Event::Synced {
                also: false,
                paths: dirs,
            },
        ] = events
        else {
            panic!("{events:#?}");
        };
        let page_path = root.join(file);
        let sidecar_path = sidecar::path(root, file);
        assert_eq!(synced, &[page_temp.clone(), sidecar_temp.clone()]);
        assert_eq!(page_temp.parent(), page_path.parent());
        assert_eq!(sidecar_temp.parent(), sidecar_path.parent());
        assert_eq!((page, sidecar), (&page_path, &sidecar_path));
        let mut expected: Vec<PathBuf> = [&sidecar_path, &page_path]
            .iter()
            .filter_map(|p| p.parent().map(Path::to_path_buf))
            .collect();
        expected.sort();
        assert_eq!(dirs, &expected);
    }

    #[test]
    fn a_write_renames_only_after_its_log_line_is_durable_and_waits_two_rounds() {
        let (_dir, ws) = workspace();
        let root = ws.root().to_path_buf();
        trace::take();
        update_bob(&ws, "changed");
        assert_replaced_in_two_rounds(&root, "pages/Bob.md", &trace::take());

        ws.delete_page("ann").unwrap();
        assert_eq!(
            trace::take(),
            [
                // The log line alone, then the removals.
                Event::Synced {
                    also: true,
                    paths: vec![],
                },
                Event::Removed(root.join("pages/Ann.md")),
                Event::Removed(sidecar::path(&root, "pages/Ann.md")),
                Event::Synced {
                    also: false,
                    paths: vec![
                        sidecar::path(&root, "pages/Ann.md")
                            .parent()
                            .unwrap()
                            .to_path_buf(),
                        root.join("pages"),
                    ],
                },
            ]
        );
    }

    #[test]
    fn settling_after_a_crash_syncs_the_log_with_the_pages_before_renaming() {
        let (dir, ws) = workspace();
        let page = dir.path().join("pages/Bob.md");
        let sidecar = sidecar::path(ws.root(), "pages/Bob.md");
        let (page_before, sidecar_before) = (fs::read(&page).unwrap(), fs::read(&sidecar).unwrap());
        update_bob(&ws, "rolled forward");
        let page_after = fs::read(&page).unwrap();
        drop(ws);
        // As if the process died after its log line was written: page and sidecar are old.
        fs::write(&page, page_before).unwrap();
        fs::write(&sidecar, sidecar_before).unwrap();
        trace::take();
        let ws = Workspace::open(dir.path()).unwrap();
        assert_replaced_in_two_rounds(ws.root(), "pages/Bob.md", &trace::take());
        assert_eq!(fs::read(&page).unwrap(), page_after);

        // Settled: opening again writes nothing.
        drop(ws);
        Workspace::open(dir.path()).unwrap();
        assert_eq!(trace::take(), []);
    }
}
