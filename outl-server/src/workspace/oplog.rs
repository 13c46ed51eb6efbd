//! The op log, `.outl/oplog`: one line per write, appended and fsynced before the write
//! touches any page.
//!
//! A line is `HEADER \t BODY \n`, both compact JSON (JSON escapes a tab inside strings, so the
//! first raw tab splits them). The header says what changed (kind, pages, content hashes
//! before and after) and carries a hash of the body; the body holds the markdown and block ids
//! of every touched page before and after, which is what undo, redo, crash repair and a second
//! process catching up replay. Listing the log or opening the workspace reads headers only.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::content_hash;

pub const LOG_FILE: &str = "oplog";

/// One write, as listed by [`Workspace::log`](super::Workspace::log).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Op {
    /// 1, 2, 3, … in log order.
    pub seq: u64,
    /// When it was written, unix milliseconds.
    pub ts: i64,
    /// What the write did, e.g. `page.create`, `block.update`, `undo`.
    pub kind: String,
    /// For an undo: the op it reverted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<u64>,
    /// For a redo: the op it re-applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redoes: Option<u64>,
    /// Whether [`Workspace::undo`](super::Workspace::undo) may revert it (reconciling a page
    /// and creating an empty journal day are not edits a user would want undone).
    pub undoable: bool,
    pub pages: Vec<PageChange>,
}

/// One page touched by an op: `before` is `None` for a created page, `after` for a deleted one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageChange {
    pub before: Option<PageVersion>,
    pub after: Option<PageVersion>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageVersion {
    pub slug: String,
    pub file: String,
    pub hash: String,
}

/// The markdown and ids of the pages of an op, parallel to [`Op::pages`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Body {
    pub pages: Vec<ChangeContent>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeContent {
    pub before: Option<Content>,
    pub after: Option<Content>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Content {
    pub md: String,
    pub ids: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct Header {
    #[serde(flatten)]
    op: Op,
    body_hash: String,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    offset: u64,
    len: u64,
}

/// The log file and what has been read of it: where each op is, and the undo and redo stacks.
#[derive(Debug)]
pub struct OpLog {
    path: PathBuf,
    file: File,
    /// Bytes read and applied so far; everything after is another process's (or torn).
    offset: u64,
    /// `entries[seq - 1]`.
    entries: Vec<Entry>,
    undo: Vec<u64>,
    redo: Vec<u64>,
}

/// Ops read by [`OpLog::read_new`], with their bodies when asked for.
pub struct NewOps {
    pub ops: Vec<(Op, Option<Body>)>,
    /// A partial line was cut off the end (only when repairing).
    pub truncated: bool,
}

impl OpLog {
    pub fn open(state_dir: &Path) -> io::Result<OpLog> {
        let path = state_dir.join(LOG_FILE);
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)?;
        Ok(OpLog {
            path,
            file,
            offset: 0,
            entries: Vec::new(),
            undo: Vec::new(),
            redo: Vec::new(),
        })
    }

    /// Whether another process appended since the last read (one `stat`).
    pub fn has_news(&self) -> io::Result<bool> {
        Ok(self.file.metadata()?.len() != self.offset)
    }

    /// Reads the complete ops appended since the last read, tracking them in the undo/redo
    /// stacks. With `repair` (only under the workspace lock, when no writer can be mid-append)
    /// an incomplete or corrupt tail — a writer that crashed before its op was acknowledged —
    /// is cut off; without it, reading stops there.
    pub fn read_new(&mut self, with_bodies: bool, repair: bool) -> io::Result<NewOps> {
        let len = self.file.metadata()?.len();
        let mut new = NewOps {
            ops: Vec::new(),
            truncated: false,
        };
        if len == self.offset {
            return Ok(new);
        }
        let mut reader = BufReader::new(&self.file);
        reader.seek(SeekFrom::Start(self.offset))?;
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line)?;
            if n == 0 {
                break;
            }
            let parsed = if line.ends_with(b"\n") {
                let next_seq = self.entries.len() as u64 + 1;
                parse_line(&line[..line.len() - 1], with_bodies)
                    .filter(|(op, _)| op.seq == next_seq)
            } else {
                None
            };
            let Some((op, body)) = parsed else {
                if repair {
                    self.file.set_len(self.offset)?;
                    self.file.sync_all()?;
                    new.truncated = true;
                }
                break;
            };
            self.entries.push(Entry {
                offset: self.offset,
                len: n as u64,
            });
            self.offset += n as u64;
            new.ops.push((op, body));
        }
        drop(reader);
        for (op, _) in &new.ops {
            self.track(op);
        }
        Ok(new)
    }

    /// Appends `op` (its `seq` is set here) and fsyncs: once this returns, the op survives a
    /// crash. Call only under the workspace lock, after [`read_new`](Self::read_new).
    pub fn append(&mut self, mut op: Op, body: &Body) -> io::Result<Op> {
        op.seq = self.entries.len() as u64 + 1;
        let body_json = serde_json::to_string(body).map_err(io::Error::other)?;
        let header = Header {
            op,
            body_hash: content_hash(body_json.as_bytes()),
        };
        let mut line = serde_json::to_string(&header).map_err(io::Error::other)?;
        line.push('\t');
        line.push_str(&body_json);
        line.push('\n');
        (&self.file).write_all(line.as_bytes())?;
        self.file.sync_data()?;
        self.entries.push(Entry {
            offset: self.offset,
            len: line.len() as u64,
        });
        self.offset += line.len() as u64;
        self.track(&header.op);
        Ok(header.op)
    }

    fn track(&mut self, op: &Op) {
        if let Some(undone) = op.undoes {
            self.undo.retain(|&seq| seq != undone);
            self.redo.push(undone);
        } else if let Some(redone) = op.redoes {
            self.redo.retain(|&seq| seq != redone);
            self.undo.push(redone);
        } else if op.undoable {
            self.undo.push(op.seq);
            self.redo.clear();
        }
    }

    /// The op and body with this seq.
    pub fn get(&self, seq: u64) -> io::Result<(Op, Body)> {
        let entry = seq
            .checked_sub(1)
            .and_then(|i| self.entries.get(i as usize))
            .ok_or_else(|| io::Error::other(format!("op {seq} is not in the log")))?;
        let mut line = vec![0u8; entry.len as usize];
        self.file.read_exact_at(&mut line, entry.offset)?;
        let (op, body) =
            parse_line(line.strip_suffix(b"\n").unwrap_or(&line), true).ok_or_else(|| {
                io::Error::other(format!("op {seq} in {} is corrupt", self.path.display()))
            })?;
        Ok((op, body.unwrap_or_default()))
    }

    /// Up to `limit` ops, newest first, older than `before` (a seq) when given.
    pub fn list(&self, limit: usize, before: Option<u64>) -> io::Result<Vec<Op>> {
        let newest = before.map_or(self.entries.len() as u64, |b| {
            b.saturating_sub(1).min(self.entries.len() as u64)
        });
        let mut out = Vec::new();
        let mut seq = newest;
        while seq > 0 && out.len() < limit {
            let entry = self.entries[(seq - 1) as usize];
            let mut line = vec![0u8; entry.len as usize];
            self.file.read_exact_at(&mut line, entry.offset)?;
            if let Some((op, _)) = parse_line(line.strip_suffix(b"\n").unwrap_or(&line), false) {
                out.push(op);
            }
            seq -= 1;
        }
        Ok(out)
    }

    pub fn last_seq(&self) -> u64 {
        self.entries.len() as u64
    }

    /// The op an undo would revert.
    pub fn undo_top(&self) -> Option<u64> {
        self.undo.last().copied()
    }

    /// The op a redo would re-apply.
    pub fn redo_top(&self) -> Option<u64> {
        self.redo.last().copied()
    }
}

/// `None` for a line that is not a complete, intact record.
fn parse_line(line: &[u8], with_body: bool) -> Option<(Op, Option<Body>)> {
    let tab = line.iter().position(|&b| b == b'\t')?;
    let (header, body) = (&line[..tab], &line[tab + 1..]);
    let header: Header = serde_json::from_slice(header).ok()?;
    if !with_body {
        return Some((header.op, None));
    }
    if content_hash(body) != header.body_hash {
        return None;
    }
    let body: Body = serde_json::from_slice(body).ok()?;
    Some((header.op, Some(body)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(kind: &str, undoable: bool) -> Op {
        Op {
            seq: 0,
            ts: 0,
            kind: kind.into(),
            undoes: None,
            redoes: None,
            undoable,
            pages: vec![],
        }
    }

    #[test]
    fn appends_reads_back_and_tracks_history() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = OpLog::open(dir.path()).unwrap();
        let body = Body {
            pages: vec![ChangeContent {
                before: None,
                after: Some(Content {
                    md: "- a\tb\n".into(),
                    ids: vec!["aaaaaa".into()],
                }),
            }],
        };
        assert_eq!(log.append(op("page.create", true), &body).unwrap().seq, 1);
        log.append(op("journal.create", false), &Body::default())
            .unwrap();
        assert_eq!(log.undo_top(), Some(1));
        let mut undo = op("undo", false);
        undo.undoes = Some(1);
        log.append(undo, &Body::default()).unwrap();
        assert_eq!((log.undo_top(), log.redo_top()), (None, Some(1)));

        let mut other = OpLog::open(dir.path()).unwrap();
        let read = other.read_new(true, false).unwrap();
        assert_eq!(read.ops.len(), 3);
        assert_eq!(read.ops[0].1.as_ref(), Some(&body));
        assert_eq!((other.undo_top(), other.redo_top()), (None, Some(1)));
        assert_eq!(other.get(1).unwrap().1, body);
        let listed: Vec<u64> = other.list(2, None).unwrap().iter().map(|o| o.seq).collect();
        assert_eq!(listed, [3, 2]);
        let listed: Vec<u64> = other
            .list(10, Some(2))
            .unwrap()
            .iter()
            .map(|o| o.seq)
            .collect();
        assert_eq!(listed, [1]);
    }

    #[test]
    fn a_torn_tail_is_cut_only_when_repairing() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = OpLog::open(dir.path()).unwrap();
        log.append(op("a", true), &Body::default()).unwrap();
        let good_len = std::fs::metadata(dir.path().join(LOG_FILE)).unwrap().len();
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(LOG_FILE))
            .unwrap()
            .write_all(b"{\"seq\":2,\"ts\":0")
            .unwrap();
        let mut reader = OpLog::open(dir.path()).unwrap();
        assert_eq!(reader.read_new(false, false).unwrap().ops.len(), 1);
        assert!(reader.has_news().unwrap());
        let mut repairer = OpLog::open(dir.path()).unwrap();
        let read = repairer.read_new(false, true).unwrap();
        assert!(read.truncated);
        assert_eq!(
            std::fs::metadata(dir.path().join(LOG_FILE)).unwrap().len(),
            good_len
        );
        assert_eq!(
            repairer
                .append(op("b", true), &Body::default())
                .unwrap()
                .seq,
            2
        );
    }
}
