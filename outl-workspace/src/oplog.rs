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
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::content_hash;

mod kind;

pub use kind::OpKind;

pub const LOG_FILE: &str = "oplog";

/// One write, as listed by [`Workspace::log`](super::Workspace::log).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Op {
    /// 1, 2, 3, … in log order.
    pub seq: u64,
    /// When it was written, unix milliseconds.
    pub ts: i64,
    /// What the write did.
    pub kind: OpKind,
    /// For an undo: the op it reverted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<u64>,
    /// For a redo: the op it re-applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redoes: Option<u64>,
    /// The session that wrote it ([`Session`](super::Session)); `None` for the engine's own
    /// callers and for ops logged before sessions were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
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

/// One log file: `oplog` (written to) or `oplog.1` (the one before, read for undo).
#[derive(Debug)]
struct Segment {
    file: File,
    /// Inode of the file, to notice that another process rotated it away.
    ino: u64,
    /// The seq before this segment's first op.
    base: u64,
    /// Whether `base` is known; if not, the first op read sets it.
    base_known: bool,
    /// Bytes read so far; everything after is another process's (or torn).
    offset: u64,
    /// `entries[seq - base - 1]`.
    entries: Vec<Entry>,
}

impl Segment {
    fn open(path: &Path, create: bool, base: Option<u64>) -> io::Result<Segment> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(create)
            .open(path)?;
        let ino = file.metadata()?.ino();
        Ok(Segment {
            file,
            ino,
            base: base.unwrap_or(0),
            base_known: base.is_some(),
            offset: 0,
            entries: Vec::new(),
        })
    }

    fn last_seq(&self) -> u64 {
        self.base + self.entries.len() as u64
    }

    fn entry(&self, seq: u64) -> Option<Entry> {
        let i = seq.checked_sub(self.base + 1)?;
        self.entries.get(usize::try_from(i).ok()?).copied()
    }

    fn read_line(&self, entry: Entry) -> io::Result<Vec<u8>> {
        let mut line = vec![0u8; entry.len as usize];
        self.file.read_exact_at(&mut line, entry.offset)?;
        line.pop(); // the newline
        Ok(line)
    }
}

/// What [`OpLog::read_new`] stopped at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadEnd {
    /// Everything appended so far was read.
    Complete,
    /// Ops went missing (the log was rotated twice since this process last read it): reading
    /// stopped before them. Under the lock, the caller opens the log afresh and rereads the
    /// pages from disk.
    Lost,
}

/// Ops read by [`OpLog::read_new`], with their bodies when asked for.
pub struct NewOps {
    pub ops: Vec<(Op, Option<Body>)>,
    pub end: ReadEnd,
}

/// One session's history: the ops an undo of its would revert (newest last), and the ops its
/// undos reverted that a redo would re-apply (newest last).
#[derive(Debug, Default)]
struct SessionHistory {
    undo: Vec<u64>,
    redo: Vec<u64>,
}

/// The op log and what has been read of it: where each op is, and each session's undo and redo
/// stacks.
///
/// Once `oplog` outgrows the segment limit, the writer that notices renames it to `oplog.1`
/// (replacing the one before) and starts a new `oplog`; seqs go on. Other processes notice the
/// new inode and finish reading the old file before moving on. History older than `oplog.1` is
/// dropped, so the log and the time to open it stay bounded.
#[derive(Debug)]
pub struct OpLog {
    dir: PathBuf,
    current: Segment,
    previous: Option<Segment>,
    segment_limit: u64,
    histories: FxHashMap<Option<String>, SessionHistory>,
    /// Each op undone now, with the undo that reverted it.
    undone: FxHashMap<u64, u64>,
}

/// A segment is rotated once it holds this many bytes, unless `OUTL_LOG_SEGMENT_BYTES` says
/// otherwise (more undo history, or less disk).
const SEGMENT_LIMIT: u64 = 64 << 20;
pub const SEGMENT_LIMIT_VAR: &str = "OUTL_LOG_SEGMENT_BYTES";
const PREVIOUS_SUFFIX: &str = ".1";

impl OpLog {
    /// Opens the log in `state_dir`, reading nothing yet. The previous segment, when there is
    /// one, is read first by [`read_new`](Self::read_new).
    pub fn open(state_dir: &Path) -> io::Result<OpLog> {
        let previous_path = state_dir.join(format!("{LOG_FILE}{PREVIOUS_SUFFIX}"));
        let previous = match Segment::open(&previous_path, false, None) {
            Ok(segment) => Some(segment),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        // Its base comes from the previous segment when there is one.
        let current = Segment::open(&state_dir.join(LOG_FILE), true, None)?;
        Ok(OpLog {
            dir: state_dir.to_path_buf(),
            current,
            previous,
            segment_limit: std::env::var(SEGMENT_LIMIT_VAR)
                .ok()
                .and_then(|bytes| bytes.parse().ok())
                .filter(|&bytes| bytes > 0)
                .unwrap_or(SEGMENT_LIMIT),
            histories: FxHashMap::default(),
            undone: FxHashMap::default(),
        })
    }

    fn path(&self) -> PathBuf {
        self.dir.join(LOG_FILE)
    }

    /// Whether another process appended (or rotated) since the last read: one `stat`.
    pub fn has_news(&self) -> io::Result<bool> {
        Ok(self.current.file.metadata()?.len() != self.current.offset
            || self.rotated_away()?.is_some())
    }

    /// The inode `oplog` names now, when it is no longer the file being read.
    fn rotated_away(&self) -> io::Result<Option<u64>> {
        match std::fs::metadata(self.path()) {
            Ok(meta) if meta.ino() != self.current.ino => Ok(Some(meta.ino())),
            Ok(_) => Ok(None),
            // Between a rotation's rename and the new file: nothing to read yet.
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether `oplog.1` is the file this process reads as `oplog`: the one rotation since.
    fn was_rotated_last(&self) -> io::Result<bool> {
        match std::fs::metadata(self.previous_path()) {
            Ok(meta) => Ok(meta.ino() == self.current.ino),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn previous_path(&self) -> PathBuf {
        self.dir.join(format!("{LOG_FILE}{PREVIOUS_SUFFIX}"))
    }

    /// Reads the complete ops appended since the last read (the previous segment first, on the
    /// first read), tracking them in the undo/redo stacks. With `repair` (only under the
    /// workspace lock, when no writer can be mid-append) an incomplete or corrupt tail — a
    /// writer that crashed before its op was acknowledged — is cut off; without it, reading
    /// stops there.
    pub fn read_new(&mut self, with_bodies: bool, repair: bool) -> io::Result<NewOps> {
        let mut new = NewOps {
            ops: Vec::new(),
            end: ReadEnd::Complete,
        };
        if let Some(previous) = self.previous.as_mut().filter(|p| p.offset == 0) {
            // Written to before the current segment began: complete, never repaired.
            read_segment(previous, with_bodies, false, &mut new)?;
            if !self.current.base_known {
                self.current.base = previous.last_seq();
                self.current.base_known = true;
            }
        }
        while new.end == ReadEnd::Complete {
            read_segment(&mut self.current, with_bodies, repair, &mut new)?;
            if new.end == ReadEnd::Lost || self.rotated_away()?.is_none() {
                break;
            }
            if !self.was_rotated_last()? {
                // Rotated twice: the segment in between, and its ops, are gone.
                new.end = ReadEnd::Lost;
                break;
            }
            // The rotated file is final now: read what was appended to it before the
            // rotation, then the new file from its start.
            read_segment(&mut self.current, with_bodies, false, &mut new)?;
            let next = Segment::open(&self.path(), true, Some(self.current.last_seq()))?;
            self.previous = Some(std::mem::replace(&mut self.current, next));
        }
        for (op, _) in &new.ops {
            self.track(op);
        }
        self.forget_before_previous();
        Ok(new)
    }

    /// Appends `op` (its `seq` is set here) and has `make_durable` fsync the log (with other
    /// files, in the same round of waiting): once this returns, the op survives a crash. When
    /// `make_durable` fails the op is not counted as appended, though its line may have been
    /// written: the next [`read_new`](Self::read_new) reads it like another process's. Call only
    /// under the workspace lock, after `read_new`.
    pub fn append<E: From<io::Error>>(
        &mut self,
        mut op: Op,
        body: &Body,
        make_durable: impl FnOnce(&File) -> Result<(), E>,
    ) -> Result<Op, E> {
        op.seq = self.last_seq() + 1;
        let body_json = serde_json::to_string(body).map_err(io::Error::other)?;
        let header = Header {
            op,
            body_hash: content_hash(body_json.as_bytes()),
        };
        let mut line = serde_json::to_string(&header).map_err(io::Error::other)?;
        line.push('\t');
        line.push_str(&body_json);
        line.push('\n');
        (&self.current.file).write_all(line.as_bytes())?;
        make_durable(&self.current.file)?;
        let segment = &mut self.current;
        // Whatever was read decided the seq: a log with no op yet starts at 1.
        segment.base_known = true;
        segment.entries.push(Entry {
            offset: segment.offset,
            len: line.len() as u64,
        });
        segment.offset += line.len() as u64;
        self.track(&header.op);
        Ok(header.op)
    }

    /// Starts a new segment when the current one is full. Call only under the workspace lock,
    /// once the op just appended has reached the pages.
    pub fn rotate_if_full(&mut self) -> io::Result<()> {
        if self.current.offset < self.segment_limit {
            return Ok(());
        }
        std::fs::rename(self.path(), self.previous_path())?;
        super::disk::sync_dir(&self.dir)?;
        let next = Segment::open(&self.path(), true, Some(self.current.last_seq()))?;
        super::disk::sync_dir(&self.dir)?;
        self.previous = Some(std::mem::replace(&mut self.current, next));
        self.forget_before_previous();
        Ok(())
    }

    /// Drops undo and redo entries whose op is no longer in either segment.
    fn forget_before_previous(&mut self) {
        let first = self.first_seq();
        self.histories.retain(|_, history| {
            history.undo.retain(|&seq| seq >= first);
            history.redo.retain(|&seq| seq >= first);
            !(history.undo.is_empty() && history.redo.is_empty())
        });
        self.undone.retain(|&seq, _| seq >= first);
    }

    /// The oldest seq still in the log (older ones went with a rotated segment).
    pub fn first_seq(&self) -> u64 {
        self.previous.as_ref().map_or(self.current.base, |p| p.base) + 1
    }

    /// Files `op` in its session's history. An undo may revert another session's op (named by
    /// its seq): that op leaves its own session's stack, and a redo of it is the undoer's.
    fn track(&mut self, op: &Op) {
        if let Some(undone) = op.undoes {
            for history in self.histories.values_mut() {
                history.undo.retain(|&seq| seq != undone);
            }
            self.history_mut(&op.session).redo.push(undone);
            self.undone.insert(undone, op.seq);
        } else if let Some(redone) = op.redoes {
            for history in self.histories.values_mut() {
                history.redo.retain(|&seq| seq != redone);
            }
            self.history_mut(&op.session).undo.push(redone);
            self.undone.remove(&redone);
        } else {
            let history = self.history_mut(&op.session);
            history.undo.push(op.seq);
            history.redo.clear();
        }
    }

    fn history_mut(&mut self, session: &Option<String>) -> &mut SessionHistory {
        self.histories.entry(session.clone()).or_default()
    }

    fn locate(&self, seq: u64) -> Option<(&Segment, Entry)> {
        if let Some(entry) = self.current.entry(seq) {
            return Some((&self.current, entry));
        }
        let previous = self.previous.as_ref()?;
        Some((previous, previous.entry(seq)?))
    }

    /// The op and body with this seq.
    pub fn get(&self, seq: u64) -> io::Result<(Op, Body)> {
        let (segment, entry) = self
            .locate(seq)
            .ok_or_else(|| io::Error::other(format!("op {seq} is not in the log")))?;
        let line = segment.read_line(entry)?;
        let (op, body) = parse_line(&line, true).ok_or_else(|| {
            io::Error::other(format!("op {seq} in {} is corrupt", self.dir.display()))
        })?;
        Ok((op, body.unwrap_or_default()))
    }

    /// Up to `limit` ops, newest first, older than `before` (a seq) when given.
    pub fn list(&self, limit: usize, before: Option<u64>) -> io::Result<Vec<Op>> {
        let newest = before.map_or(self.last_seq(), |b| {
            b.saturating_sub(1).min(self.last_seq())
        });
        let mut out = Vec::new();
        for seq in (self.first_seq()..=newest).rev() {
            if out.len() >= limit {
                break;
            }
            let Some((segment, entry)) = self.locate(seq) else {
                break;
            };
            if let Some((op, _)) = parse_line(&segment.read_line(entry)?, false) {
                out.push(op);
            }
        }
        Ok(out)
    }

    pub fn last_seq(&self) -> u64 {
        self.current.last_seq()
    }

    /// Makes what has been written to the log durable with `make_durable` (which fsyncs it with
    /// other files): what settling an op another process appended needs before its pages.
    pub fn sync_with<E>(&self, make_durable: impl FnOnce(&File) -> Result<(), E>) -> Result<(), E> {
        make_durable(&self.current.file)
    }

    /// Rotates at `bytes` instead of the default (tests make many rotations cheaply).
    #[cfg(test)]
    pub fn set_segment_limit(&mut self, bytes: u64) {
        self.segment_limit = bytes;
    }

    /// The op an undo by `session` would revert: its newest op not undone.
    pub fn undo_top(&self, session: Option<&str>) -> Option<u64> {
        self.history(session)?.undo.last().copied()
    }

    /// The op a redo by `session` would re-apply: the op its newest undo reverted, unless the
    /// session has written since.
    pub fn redo_top(&self, session: Option<&str>) -> Option<u64> {
        self.history(session)?.redo.last().copied()
    }

    fn history(&self, session: Option<&str>) -> Option<&SessionHistory> {
        self.histories.get(&session.map(str::to_owned))
    }

    /// The undo that reverted op `seq`, while it stays undone.
    pub fn undone_by(&self, seq: u64) -> Option<u64> {
        self.undone.get(&seq).copied()
    }
}

/// Reads `segment` from its offset to its end, appending complete ops to `new`.
fn read_segment(
    segment: &mut Segment,
    with_bodies: bool,
    repair: bool,
    new: &mut NewOps,
) -> io::Result<()> {
    if segment.file.metadata()?.len() == segment.offset {
        return Ok(());
    }
    let mut reader = BufReader::new(&segment.file);
    reader.seek(SeekFrom::Start(segment.offset))?;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        let parsed = match line.strip_suffix(b"\n") {
            Some(complete) => parse_line(complete, with_bodies),
            None => None,
        };
        let Some((op, body)) = parsed else {
            if repair {
                segment.file.set_len(segment.offset)?;
                segment.file.sync_all()?;
            }
            break;
        };
        if !segment.base_known {
            // The first op of a log with no previous segment: seqs start where it does.
            segment.base = op.seq.saturating_sub(1);
            segment.base_known = true;
        }
        if op.seq != segment.last_seq() + 1 {
            new.end = ReadEnd::Lost;
            break;
        }
        segment.entries.push(Entry {
            offset: segment.offset,
            len: n as u64,
        });
        segment.offset += n as u64;
        new.ops.push((op, body));
    }
    Ok(())
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

    /// An op of the kind `kind` names, known to this build or not.
    fn op(kind: &str, session: Option<&str>) -> Op {
        Op {
            seq: 0,
            ts: 0,
            kind: OpKind::read(kind.into()),
            undoes: None,
            redoes: None,
            session: session.map(str::to_owned),
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
        assert_eq!(
            log.append(op("page.create", Some("a")), &body, File::sync_data)
                .unwrap()
                .seq,
            1
        );
        log.append(
            op("journal.create", Some("b")),
            &Body::default(),
            File::sync_data,
        )
        .unwrap();
        assert_eq!(log.undo_top(Some("a")), Some(1));
        assert_eq!(log.undo_top(Some("b")), Some(2));
        assert_eq!(log.undo_top(None), None);
        let mut undo = op("undo", Some("a"));
        undo.undoes = Some(1);
        log.append(undo, &Body::default(), File::sync_data).unwrap();
        assert_eq!(
            (log.undo_top(Some("a")), log.redo_top(Some("a"))),
            (None, Some(1))
        );
        assert_eq!(
            (log.undo_top(Some("b")), log.redo_top(Some("b"))),
            (Some(2), None)
        );
        assert_eq!(log.undone_by(1), Some(3));

        let mut other = OpLog::open(dir.path()).unwrap();
        let read = other.read_new(true, false).unwrap();
        assert_eq!(read.ops.len(), 3);
        assert_eq!(read.ops[0].1.as_ref(), Some(&body));
        assert_eq!(
            (other.undo_top(Some("a")), other.redo_top(Some("a"))),
            (None, Some(1))
        );
        assert_eq!(other.undo_top(Some("b")), Some(2));
        assert_eq!(other.undone_by(1), Some(3));
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
        log.append(op("a", None), &Body::default(), File::sync_data)
            .unwrap();
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
        assert_eq!(repairer.read_new(false, true).unwrap().ops.len(), 1);
        assert_eq!(
            std::fs::metadata(dir.path().join(LOG_FILE)).unwrap().len(),
            good_len
        );
        assert_eq!(
            repairer
                .append(op("b", None), &Body::default(), File::sync_data)
                .unwrap()
                .seq,
            2
        );
    }

    #[test]
    fn full_segments_rotate_and_readers_follow_or_know_they_lost_track() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = OpLog::open(dir.path()).unwrap();
        writer.set_segment_limit(1);
        let mut follower = OpLog::open(dir.path()).unwrap();
        let mut lagging = OpLog::open(dir.path()).unwrap();

        writer
            .append(op("one", None), &Body::default(), File::sync_data)
            .unwrap();
        assert_eq!(lagging.read_new(false, false).unwrap().ops.len(), 1);
        writer.rotate_if_full().unwrap();
        assert_eq!(follower.read_new(false, false).unwrap().ops.len(), 1);

        writer
            .append(op("two", None), &Body::default(), File::sync_data)
            .unwrap();
        let read = follower.read_new(false, false).unwrap();
        assert_eq!((read.ops.len(), read.end), (1, ReadEnd::Complete));
        assert_eq!(read.ops[0].0.seq, 2);
        writer.rotate_if_full().unwrap();
        writer
            .append(op("three", None), &Body::default(), File::sync_data)
            .unwrap();

        // Op 1 went with the second rotation; 2 is in oplog.1, 3 in oplog.
        assert!(writer.get(1).is_err());
        assert_eq!(writer.get(2).unwrap().0.kind.as_str(), "two");
        let listed: Vec<u64> = writer
            .list(10, None)
            .unwrap()
            .iter()
            .map(|o| o.seq)
            .collect();
        assert_eq!(listed, [3, 2]);
        assert_eq!(writer.undo_top(None), Some(3));

        let read = follower.read_new(false, false).unwrap();
        assert_eq!(read.ops.iter().map(|(o, _)| o.seq).collect::<Vec<_>>(), [3]);
        assert_eq!(follower.get(2).unwrap().0.kind.as_str(), "two");
        // Op 2 rotated out from under it before it read it: it must reload.
        assert_eq!(lagging.read_new(false, false).unwrap().end, ReadEnd::Lost);

        let mut fresh = OpLog::open(dir.path()).unwrap();
        let read = fresh.read_new(false, true).unwrap();
        assert_eq!(
            read.ops.iter().map(|(o, _)| o.seq).collect::<Vec<_>>(),
            [2, 3]
        );
        assert_eq!((fresh.last_seq(), fresh.undo_top(None)), (3, Some(3)));
        assert_eq!(
            fresh
                .append(op("four", None), &Body::default(), File::sync_data)
                .unwrap()
                .seq,
            4
        );
    }
}
