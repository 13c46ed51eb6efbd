//! A scratch copy of a workspace, so that benchmarks write for real without touching the
//! folder they were pointed at. Removed when dropped.

use std::io;
use std::path::{Path, PathBuf};

/// The folders of a workspace that hold its content; `.outl/` is left behind, so the copy
/// starts without sidecars, op log or caches, as a Logseq graph opened for the first time.
const CONTENT_DIRS: [&str; 3] = ["pages", "journals", "logseq"];

pub struct Scratch {
    path: PathBuf,
    /// Bytes of the copied `.md` files.
    pub markdown_bytes: u64,
}

impl Scratch {
    /// Copies the content of `workspace` into a new folder under the system temp folder.
    pub fn copy_of(workspace: &Path) -> io::Result<Scratch> {
        if !workspace.join("pages").is_dir() && !workspace.join("journals").is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{} holds neither pages/ nor journals/; make one with `outl-bench gen`",
                    workspace.display()
                ),
            ));
        }
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path =
            std::env::temp_dir().join(format!("outl-bench-{}-{nanos:08x}", std::process::id()));
        std::fs::create_dir(&path)?;
        let mut scratch = Scratch {
            path,
            markdown_bytes: 0,
        };
        for dir in CONTENT_DIRS {
            let from = workspace.join(dir);
            if from.is_dir() {
                scratch.markdown_bytes += copy_tree(&from, &scratch.path.join(dir))?;
            }
        }
        Ok(scratch)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.path) {
            eprintln!("outl-bench: cannot remove {}: {e}", self.path.display());
        }
    }
}

/// Copies a folder recursively (symlinks are skipped); returns the bytes of `.md` files.
fn copy_tree(from: &Path, to: &Path) -> io::Result<u64> {
    std::fs::create_dir_all(to)?;
    let mut markdown = 0;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            markdown += copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            let bytes = std::fs::copy(entry.path(), &target)?;
            if target.extension().is_some_and(|ext| ext == "md") {
                markdown += bytes;
            }
        }
    }
    Ok(markdown)
}
