//! Durable file operations: atomic replace through a temp file in the same folder, removal,
//! and the folder fsyncs that make a rename or an unlink survive a crash.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Temp files carry this in their (hidden) name; leftovers of a crash are removed on open.
pub const TEMP_MARKER: &str = ".outl-tmp-";

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// How hard a write insists on reaching the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// fsync the file and its folder: survives power loss.
    Durable,
    /// Rename only: atomic, and enough for state that can be rebuilt.
    Atomic,
}

/// Replaces `path` with `bytes` atomically: a reader sees the old or the new content, never a
/// mix, and after a crash the file holds one of the two.
pub fn write_atomic(path: &Path, bytes: &[u8], durability: Durability) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other("a file path has no folder"))?;
    fs::create_dir_all(dir)?;
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let temp = dir.join(format!(
        ".{file_name}{TEMP_MARKER}{}-{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        if durability == Durability::Durable {
            file.sync_all()?;
        }
        drop(file);
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result?;
    if durability == Durability::Durable {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Removes `path` if it exists and makes the removal durable.
pub fn remove_durable(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Ok(()) => match path.parent() {
            Some(dir) => sync_dir(dir),
            None => Ok(()),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// fsyncs a folder so the names in it (renames, creations, removals) are durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Removes temp files a crashed writer left in `dir` and its sub-folders. Call only under the
/// workspace lock: a live writer's temp file would go too.
pub fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            remove_stale_temps(&entry.path());
        } else if entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with('.') && n.contains(TEMP_MARKER))
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("a.md");
        write_atomic(&path, b"one", Durability::Durable).unwrap();
        write_atomic(&path, b"two", Durability::Atomic).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
        remove_durable(&path).unwrap();
        remove_durable(&path).unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn stale_temps_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join(format!(".a.md{TEMP_MARKER}1-1")), "x").unwrap();
        fs::write(dir.path().join(format!("sub/.b.md{TEMP_MARKER}1-2")), "x").unwrap();
        fs::write(dir.path().join("a.md"), "x").unwrap();
        remove_stale_temps(dir.path());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
        assert_eq!(fs::read_dir(dir.path().join("sub")).unwrap().count(), 0);
    }
}
