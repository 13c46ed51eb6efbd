//! The reading list on disk: one JSON file, rewritten whole and atomically on every change.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use outl_registry::{ToolError, Value};
use serde::{Deserialize, Serialize};

/// One saved link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bookmark {
    pub id: u64,
    pub url: String,
    pub title: String,
    pub tags: Vec<String>,
    pub read: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Stored {
    next_id: u64,
    bookmarks: Vec<Bookmark>,
}

/// The reading list the tools run against: the file and what it holds.
pub struct Library {
    path: PathBuf,
    stored: Mutex<Stored>,
}

impl Library {
    /// The reading list in `path`; an absent file is an empty list.
    pub fn open(path: impl Into<PathBuf>) -> Result<Library, Error> {
        let path = path.into();
        let stored = match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| Error::new("STORE_UNREADABLE", format!("{}: {e}", path.display())))?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Stored::default(),
            Err(e) => return Err(Error::io(&path, e)),
        };
        Ok(Library {
            path,
            stored: Mutex::new(stored),
        })
    }

    /// A copy of every bookmark, in the order they were added.
    pub fn bookmarks(&self) -> Vec<Bookmark> {
        self.lock().bookmarks.clone()
    }

    /// Adds a bookmark and saves; returns it with its new id.
    pub fn add(&self, url: String, title: String, tags: Vec<String>) -> Result<Bookmark, Error> {
        self.change(|stored| {
            stored.next_id += 1;
            let bookmark = Bookmark {
                id: stored.next_id,
                url,
                title,
                tags,
                read: false,
            };
            stored.bookmarks.push(bookmark.clone());
            Ok(bookmark)
        })
    }

    /// Marks a bookmark read and saves.
    pub fn mark_read(&self, id: u64) -> Result<Bookmark, Error> {
        self.change(|stored| {
            let bookmark = find(&mut stored.bookmarks, id)?;
            bookmark.read = true;
            Ok(bookmark.clone())
        })
    }

    /// Removes a bookmark, if there is one, and saves; whether there was one.
    pub fn remove(&self, id: u64) -> Result<bool, Error> {
        self.change(|stored| {
            let before = stored.bookmarks.len();
            stored.bookmarks.retain(|b| b.id != id);
            Ok(stored.bookmarks.len() != before)
        })
    }

    /// Applies `f` to a draft and writes it before answering: a failed change or write
    /// leaves the list as it was.
    fn change<T>(&self, f: impl FnOnce(&mut Stored) -> Result<T, Error>) -> Result<T, Error> {
        let mut stored = self.lock();
        let mut draft = stored.clone();
        let out = f(&mut draft)?;
        self.save(&draft)?;
        *stored = draft;
        Ok(out)
    }

    /// Temp file, fsync, rename: the file is the old list or the new one, never half of one.
    fn save(&self, stored: &Stored) -> Result<(), Error> {
        let bytes =
            serde_json::to_vec_pretty(stored).map_err(|e| Error::new("INTERNAL", e.to_string()))?;
        let temp = self.path.with_extension("json.tmp");
        let write = || -> io::Result<()> {
            let mut file = File::create(&temp)?;
            file.write_all(&bytes)?;
            file.sync_all()?;
            fs::rename(&temp, &self.path)?;
            if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
                File::open(dir)?.sync_all()?;
            }
            Ok(())
        };
        write().map_err(|e| Error::io(&self.path, e))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Stored> {
        // The list is replaced only after its save (see `change`): a panic leaves it whole.
        self.stored
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn find(bookmarks: &mut [Bookmark], id: u64) -> Result<&mut Bookmark, Error> {
    bookmarks.iter_mut().find(|b| b.id == id).ok_or_else(|| {
        Error::new("BOOKMARK_NOT_FOUND", format!("no bookmark #{id}"))
            .with_data(serde_json::json!({ "id": id }))
    })
}

/// What a failed call returns: a code to branch on, a message, and data to act on.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub code: &'static str,
    pub message: String,
    pub data: Option<Value>,
}

impl Error {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    fn io(path: &Path, e: io::Error) -> Self {
        Error::new("IO", format!("{}: {e}", path.display()))
    }
}

impl ToolError for Error {
    fn code(&self) -> &str {
        self.code
    }

    fn message(&self) -> &str {
        &self.message
    }

    fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    fn invalid_arguments(message: String, data: Value) -> Self {
        Error::new("INVALID_ARGUMENTS", message).with_data(data)
    }

    fn internal(message: String) -> Self {
        Error::new("INTERNAL", message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_on_disk_before_they_are_answered() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("bookmarks.json");
        let library = Library::open(&path).expect("an absent file is an empty list");
        let added = library
            .add("https://a.example".into(), "A".into(), vec!["rust".into()])
            .expect("added");
        library
            .add("https://b.example".into(), "B".into(), vec![])
            .expect("added");
        library.mark_read(added.id).expect("marked");
        assert_eq!(library.remove(2), Ok(true));
        assert_eq!(library.remove(2), Ok(false));
        let reopened = Library::open(&path).expect("reopened");
        assert_eq!(reopened.bookmarks(), library.bookmarks());
        assert!(reopened.bookmarks()[0].read);
        assert_eq!(
            reopened.mark_read(9).map_err(|e| e.code),
            Err("BOOKMARK_NOT_FOUND")
        );
        assert!(!path.with_extension("json.tmp").exists());
    }
}
