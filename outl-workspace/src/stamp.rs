//! A file's stamp: its size and times, which tell a file unchanged without reading it.

use std::fs;
use std::time::{SystemTime, UNIX_EPOCH};

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
