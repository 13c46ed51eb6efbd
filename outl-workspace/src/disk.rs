//! Durable file operations: files replaced atomically through temp files in their folder and
//! files removed, staged together in a [`Batch`] and made durable in two rounds of fsyncs.
//!
//! Each fsync waits for a commit of the filesystem's journal, which under write load from other
//! programs takes milliseconds. fsyncs issued at the same time wait for the same commit, so a
//! batch issues each round's fsyncs at once, from a few threads kept for it, and waits about as
//! long as for one: first the temp files (and the op log, whose line makes the write durable), then,
//! after the renames, the folders that hold the new names.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, mpsc};

/// Temp files carry this in their (hidden) name; leftovers of a crash are removed on open.
pub const TEMP_MARKER: &str = ".outl-tmp-";

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Threads of the [`SyncPool`]: with the calling one, this many fsyncs wait side by side, and
/// more files share them. A journal commit takes in everything issued before it, so more
/// threads would mostly sit idle.
const SYNC_THREADS: usize = 7;

/// How hard a write insists on reaching the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// fsync the files and their folders: survives power loss.
    Durable,
    /// Rename only: atomic, and enough for state that can be rebuilt.
    Atomic,
}

/// A failed step of a batch, with the tag the caller staged it with (`None`: the file passed
/// to [`Batch::sync`] beside the batch's own).
#[derive(Debug)]
pub struct Failure<T> {
    pub tag: Option<T>,
    pub error: io::Error,
}

/// File replacements and removals applied together: each replacement is written to a temp file
/// at once, and [`sync`](Self::sync) then [`apply`](Self::apply) make them all durable and
/// visible in two rounds of waiting, whatever their number. Renames and removals happen in
/// the order they were staged. Dropped before `apply`, a batch removes its temp files.
pub struct Batch<T> {
    durability: Durability,
    steps: Vec<Step<T>>,
    /// Folders created for the temp files, each with the step that needed it: their parents
    /// hold new names, and are synced with the renames.
    created: Vec<(PathBuf, usize)>,
    /// Files a guarded step swapped out, at the temp name: checked again once the renames are
    /// durable, then removed.
    swapped_out: Vec<SwappedOut>,
}

/// A file a guarded step swapped out for outl's.
struct SwappedOut {
    step: usize,
    /// Where the file swapped out now is.
    temp: PathBuf,
    /// What it held when it was read.
    read: blake3::Hash,
    /// What outl put at the step's path.
    ours: blake3::Hash,
}

struct Step<T> {
    path: PathBuf,
    tag: T,
    action: Action,
    guard: Guard,
}

/// What a step's path must hold when the step takes it, so that a file another program wrote
/// after the caller read it is never replaced or removed: its bytes would be lost unread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// Whatever is there (a file only outl writes).
    Any,
    /// No file.
    Absent,
    /// The bytes with this hash.
    Holds(blake3::Hash),
}

/// The error of a step whose path no longer holds what its [`Guard`] says: another program
/// wrote or removed the file since it was read. The file is left as that program left it.
#[derive(Debug)]
pub struct Moved;

impl std::fmt::Display for Moved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the file changed on disk since it was read")
    }
}

impl std::error::Error for Moved {}

impl Moved {
    fn error() -> io::Error {
        io::Error::other(Moved)
    }

    /// Whether `error` is a step's [`Moved`].
    pub fn is(error: &io::Error) -> bool {
        error.get_ref().is_some_and(|inner| inner.is::<Moved>())
    }
}

/// What a step does to its path.
enum Action {
    /// `temp` holds `bytes`, to be renamed to the step's path.
    Replace {
        temp: PathBuf,
        file: Option<File>,
        bytes: Vec<u8>,
    },
    Remove,
}

impl<T: Clone> Batch<T> {
    pub fn new(durability: Durability) -> Batch<T> {
        Batch {
            durability,
            steps: Vec::new(),
            created: Vec::new(),
            swapped_out: Vec::new(),
        }
    }

    /// Stages `path` to be replaced with `bytes` if it then holds what `guard` says: writes
    /// them to a temp file beside it (creating the folder if needed). Nothing is visible at
    /// `path` before [`apply`](Self::apply).
    pub fn replace(
        &mut self,
        path: &Path,
        bytes: Vec<u8>,
        guard: Guard,
        tag: T,
    ) -> Result<(), Failure<T>> {
        let failed = |error| Failure {
            tag: Some(tag.clone()),
            error,
        };
        let dir = path
            .parent()
            .ok_or_else(|| failed(io::Error::other("a file path has no folder")))?;
        self.create_dir(dir, self.steps.len()).map_err(failed)?;
        let temp = temp_beside(path);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(failed)?;
        if let Err(error) = file.write_all(&bytes) {
            drop(file);
            let _ = fs::remove_file(&temp);
            return Err(failed(error));
        }
        #[cfg(test)]
        trace::record(trace::Event::Wrote(temp.clone()));
        self.steps.push(Step {
            path: path.to_path_buf(),
            tag,
            action: Action::Replace {
                temp,
                file: Some(file),
                bytes,
            },
            guard,
        });
        Ok(())
    }

    /// Stages `path` to be removed (if it exists then, holding what `guard` says).
    pub fn remove(&mut self, path: &Path, guard: Guard, tag: T) {
        self.steps.push(Step {
            path: path.to_path_buf(),
            tag,
            action: Action::Remove,
            guard,
        });
    }

    /// Whether nothing is staged.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// What `path` holds once the batch is applied, when a step stages it: `Some(Some(bytes))`
    /// for a replacement, `Some(None)` for a removal. `None` when the batch leaves it alone.
    pub fn staged(&self, path: &Path) -> Option<Option<&[u8]>> {
        self.steps
            .iter()
            .rev()
            .find(|step| step.path == path)
            .map(|step| match &step.action {
                Action::Replace { bytes, .. } => Some(bytes.as_slice()),
                Action::Remove => None,
            })
    }

    /// The first round: the temp files and `also` (a file whose written data must reach the disk
    /// before anything is renamed, such as the op log) fsynced at once.
    pub fn sync(&self, also: Option<&File>) -> Result<(), Failure<T>> {
        if self.durability == Durability::Atomic {
            return Ok(());
        }
        let mut files: Vec<(Option<usize>, &File, Fsync)> = Vec::new();
        if let Some(file) = also {
            files.push((None, file, Fsync::Data));
        }
        for (i, step) in self.steps.iter().enumerate() {
            if let Action::Replace {
                file: Some(file), ..
            } = &step.action
            {
                files.push((Some(i), file, Fsync::All));
            }
        }
        if files.is_empty() {
            return Ok(());
        }
        #[cfg(test)]
        trace::record(trace::Event::Synced {
            also: also.is_some(),
            paths: self
                .steps
                .iter()
                .filter_map(|step| match &step.action {
                    Action::Replace { temp, .. } => Some(temp.clone()),
                    Action::Remove => None,
                })
                .collect(),
        });
        first_failure(&self.steps, sync_at_once(&files, || ()))
    }

    /// The second round: renames the temp files over their paths and removes what is staged
    /// for removal, in the order staged, then fsyncs the folders whose names changed, at once,
    /// while `alongside` runs on this thread (it runs whatever becomes of the steps).
    pub fn apply(mut self, alongside: impl FnOnce()) -> Result<(), Failure<T>> {
        let dirs = match self.rename_and_remove() {
            Ok(dirs) => dirs,
            Err(failure) => {
                alongside();
                return Err(failure);
            }
        };
        // Every temp file is renamed: nothing is left for `drop` to remove.
        let steps = std::mem::take(&mut self.steps);
        let mut opened = Vec::with_capacity(dirs.len());
        if self.durability == Durability::Durable {
            for (dir, step) in &dirs {
                match File::open(dir) {
                    Ok(file) => opened.push((Some(*step), file)),
                    Err(error) => {
                        alongside();
                        return Err(Failure {
                            tag: Some(steps[*step].tag.clone()),
                            error,
                        });
                    }
                }
            }
            #[cfg(test)]
            trace::record(trace::Event::Synced {
                also: false,
                paths: dirs.keys().cloned().collect(),
            });
        }
        let files: Vec<(Option<usize>, &File, Fsync)> = opened
            .iter()
            .map(|(step, file)| (*step, file, Fsync::All))
            .collect();
        first_failure(&steps, sync_at_once(&files, alongside))?;
        // A program that opened a file before its swap may write to it a moment later, into
        // the file swapped out: once more, that file must still hold what was read, else it
        // takes its name back.
        for out in std::mem::take(&mut self.swapped_out) {
            let moved = |error| Failure {
                tag: Some(steps[out.step].tag.clone()),
                error,
            };
            if holds(&out.temp, out.read).map_err(moved)? {
                fs::remove_file(&out.temp).map_err(moved)?;
            } else {
                swap_back(&out.temp, &steps[out.step].path, out.ours).map_err(moved)?;
                let _ = fs::remove_file(&out.temp);
                return Err(moved(Moved::error()));
            }
        }
        Ok(())
    }

    /// Renames and removes, in the order staged; returns each folder whose names changed with
    /// the first step that changed one (whose tag a failure to sync it carries).
    fn rename_and_remove(&mut self) -> Result<BTreeMap<PathBuf, usize>, Failure<T>> {
        let mut dirs: BTreeMap<PathBuf, usize> = BTreeMap::new();
        for (dir, step) in &self.created {
            if let Some(parent) = dir.parent() {
                dirs.entry(parent.to_path_buf()).or_insert(*step);
            }
        }
        for (i, step) in self.steps.iter_mut().enumerate() {
            let result = match &mut step.action {
                Action::Replace { temp, file, bytes } => {
                    // Synced already: closed before it takes the name.
                    drop(file.take());
                    let ours = blake3::hash(bytes);
                    let renamed = take_name(temp, &step.path, step.guard, ours);
                    #[cfg(test)]
                    trace::record(trace::Event::Renamed(step.path.clone()));
                    renamed.map(|swapped| {
                        if let Some(read) = swapped {
                            self.swapped_out.push(SwappedOut {
                                step: i,
                                temp: temp.clone(),
                                read,
                                ours,
                            });
                        }
                        true
                    })
                }
                Action::Remove => {
                    let removed = remove_guarded(&step.path, step.guard);
                    #[cfg(test)]
                    if let Ok(true) = removed {
                        trace::record(trace::Event::Removed(step.path.clone()));
                    }
                    removed
                }
            };
            match result {
                Ok(true) => {
                    if let Some(dir) = step.path.parent() {
                        dirs.entry(dir.to_path_buf()).or_insert(i);
                    }
                }
                Ok(false) => {}
                Err(error) => {
                    return Err(Failure {
                        tag: Some(step.tag.clone()),
                        error,
                    });
                }
            }
        }
        Ok(dirs)
    }

    /// Creates `dir` and the folders above it that are missing, noting each new one.
    fn create_dir(&mut self, dir: &Path, step: usize) -> io::Result<()> {
        let mut missing = Vec::new();
        let mut at = dir;
        while !at.exists() {
            missing.push(at.to_path_buf());
            match at.parent() {
                Some(parent) => at = parent,
                None => break,
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        fs::create_dir_all(dir)?;
        self.created
            .extend(missing.into_iter().map(|created| (created, step)));
        Ok(())
    }
}

impl<T> Drop for Batch<T> {
    fn drop(&mut self) {
        for step in &self.steps {
            if let Action::Replace { temp, .. } = &step.action {
                let _ = fs::remove_file(temp);
            }
        }
        for out in &self.swapped_out {
            let _ = fs::remove_file(&out.temp);
        }
    }
}

/// Renames `temp` (holding the bytes with hash `ours`) over `path` if `path` holds what `guard`
/// says, else leaves both and fails with [`Moved`]. Where the system can swap two names at
/// once, the check reads the replaced bytes after the swap and swaps back if they are not the
/// ones expected, so no write landing between the check and the rename is lost; the file
/// swapped out then stays at `temp`, and its hash is returned for [`Batch::apply`] to check
/// once more. Elsewhere the check comes just before the rename.
fn take_name(
    temp: &Path,
    path: &Path,
    guard: Guard,
    ours: blake3::Hash,
) -> io::Result<Option<blake3::Hash>> {
    match guard {
        Guard::Any => fs::rename(temp, path).map(|()| None),
        Guard::Absent => match swap::rename_no_replace(temp, path) {
            Some(Err(e)) if e.kind() == io::ErrorKind::AlreadyExists => Err(Moved::error()),
            Some(done) => done.map(|()| None),
            None if path.symlink_metadata().is_ok() => Err(Moved::error()),
            None => fs::rename(temp, path).map(|()| None),
        },
        Guard::Holds(hash) => match swap::exchange(temp, path) {
            Some(Err(e)) if e.kind() == io::ErrorKind::NotFound => Err(Moved::error()),
            Some(Err(e)) => Err(e),
            Some(Ok(())) => {
                // `temp` now holds what `path` held.
                if holds(temp, hash)? {
                    Ok(Some(hash))
                } else {
                    swap_back(temp, path, ours)?;
                    Err(Moved::error())
                }
            }
            None if !holds(path, hash)? => Err(Moved::error()),
            None => fs::rename(temp, path).map(|()| None),
        },
    }
}

/// Swaps that [`swap_back`] tries before it gives up: each needs another program to save over
/// the file in the moment between two of them.
const SWAP_BACK_ROUNDS: usize = 8;

/// Gives `path` back the file a swap put at `temp`, where outl's file (hash `ours`) took its
/// name; `temp` then holds outl's file. If another program saved over `path` since the swap,
/// its file is newer than the one swapped out and keeps the name instead: `temp` then holds the
/// file it replaced, which that program, not outl, replaced.
fn swap_back(temp: &Path, path: &Path, ours: blake3::Hash) -> io::Result<()> {
    let mut at_path = Some(ours);
    let mut giving = hash_of(temp)?;
    for _ in 0..SWAP_BACK_ROUNDS {
        match swap::exchange(temp, path) {
            None => return fs::rename(temp, path),
            Some(swapped) => swapped?,
        }
        let taken = hash_of(temp)?;
        if taken == at_path {
            return Ok(());
        }
        // `path` held a file saved after outl put its own there: that one goes back.
        (at_path, giving) = (giving, taken);
    }
    Err(io::Error::other(
        "another program kept saving over the file while outl gave it back",
    ))
}

/// Removes `path` if it holds what `guard` says (`Ok(false)`: there was no file). The file is
/// first moved aside under a temp name, so the bytes checked are the bytes removed.
fn remove_guarded(path: &Path, guard: Guard) -> io::Result<bool> {
    let Guard::Holds(hash) = guard else {
        return match fs::remove_file(path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        };
    };
    let aside = temp_beside(path);
    match fs::rename(path, &aside) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Moved::error()),
        moved => moved?,
    }
    if holds(&aside, hash)? {
        fs::remove_file(&aside)?;
        return Ok(true);
    }
    match swap::rename_no_replace(&aside, path) {
        Some(back) => back?,
        None => fs::rename(&aside, path)?,
    }
    Err(Moved::error())
}

/// Whether the file at `path` holds the bytes with `hash` (a missing file does not).
fn holds(path: &Path, hash: blake3::Hash) -> io::Result<bool> {
    Ok(hash_of(path)? == Some(hash))
}

/// The hash of the bytes at `path` (`None`: no file).
fn hash_of(path: &Path) -> io::Result<Option<blake3::Hash>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(blake3::hash(&bytes))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// A fresh hidden temp name in `path`'s folder.
fn temp_beside(path: &Path) -> PathBuf {
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    path.with_file_name(format!(
        ".{file_name}{TEMP_MARKER}{}-{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Renames that check and change a name in one step, where the system has them (`None`: not
/// here, or not on this file system).
mod swap {
    use std::io;
    use std::path::Path;

    /// Swaps the files at `a` and `b`.
    pub fn exchange(a: &Path, b: &Path) -> Option<io::Result<()>> {
        renameat2(a, b, flags::EXCHANGE)
    }

    /// Renames `from` to `to` unless `to` exists (`AlreadyExists`).
    pub fn rename_no_replace(from: &Path, to: &Path) -> Option<io::Result<()>> {
        renameat2(from, to, flags::NO_REPLACE)
    }

    #[cfg(target_os = "linux")]
    mod flags {
        pub const EXCHANGE: libc::c_uint = libc::RENAME_EXCHANGE;
        pub const NO_REPLACE: libc::c_uint = libc::RENAME_NOREPLACE;
    }

    #[cfg(not(target_os = "linux"))]
    mod flags {
        pub const EXCHANGE: u32 = 0;
        pub const NO_REPLACE: u32 = 0;
    }

    #[cfg(target_os = "linux")]
    fn renameat2(from: &Path, to: &Path, flags: libc::c_uint) -> Option<io::Result<()>> {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let from = CString::new(from.as_os_str().as_bytes()).ok()?;
        let to = CString::new(to.as_os_str().as_bytes()).ok()?;
        // SAFETY: both paths are NUL-terminated strings that outlive the call.
        let status = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                from.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                flags,
            )
        };
        if status == 0 {
            return Some(Ok(()));
        }
        let error = io::Error::last_os_error();
        match error.raw_os_error() {
            // The call, or the flag on this file system, is not supported.
            Some(libc::ENOSYS | libc::EINVAL) => None,
            _ => Some(Err(error)),
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn renameat2(_: &Path, _: &Path, _: u32) -> Option<io::Result<()>> {
        None
    }
}

/// The failure of the first of `results` (in the order given) that failed.
fn first_failure<T: Clone>(
    steps: &[Step<T>],
    results: Vec<(Option<usize>, io::Result<()>)>,
) -> Result<(), Failure<T>> {
    match results
        .into_iter()
        .find_map(|(step, result)| result.err().map(|e| (step, e)))
    {
        Some((step, error)) => Err(Failure {
            tag: step.map(|i| steps[i].tag.clone()),
            error,
        }),
        None => Ok(()),
    }
}

#[derive(Clone, Copy)]
enum Fsync {
    /// fdatasync: the data and what is needed to read it back (an appended log).
    Data,
    /// fsync: everything (a new file, a folder).
    All,
}

impl Fsync {
    fn run(self, file: &File) -> io::Result<()> {
        match self {
            Fsync::Data => file.sync_data(),
            Fsync::All => file.sync_all(),
        }
    }
}

/// fsyncs `files` at the same time and waits for all, running `alongside` on this thread
/// meanwhile: the [`SyncPool`]'s threads take the files, and this one takes what is left once
/// `alongside` is done. Each result comes with the key its file came with.
fn sync_at_once<K: Copy>(
    files: &[(K, &File, Fsync)],
    alongside: impl FnOnce(),
) -> Vec<(K, io::Result<()>)> {
    if files.is_empty() {
        alongside();
        return Vec::new();
    }
    // The pool's threads get their own descriptors of the same files.
    let owned: io::Result<Vec<(File, Fsync)>> = files
        .iter()
        .map(|(_, file, how)| Ok(((*file).try_clone()?, *how)))
        .collect();
    let results = match (SyncPool::get(), owned) {
        (Some(pool), Ok(owned)) => {
            let round = Arc::new(Round::new(owned));
            pool.wake(&round);
            alongside();
            round.work();
            round.wait()
        }
        _ => {
            alongside();
            files.iter().map(|(_, file, how)| how.run(file)).collect()
        }
    };
    files.iter().map(|(key, ..)| *key).zip(results).collect()
}

/// Threads that fsync beside the calling one, started on first use and kept. A woken thread
/// gets a core sooner than a new one, which under load is most of a round's wait.
struct SyncPool {
    workers: Vec<mpsc::Sender<Arc<Round>>>,
}

impl SyncPool {
    /// The pool, `None` when not one thread could be started.
    fn get() -> Option<&'static SyncPool> {
        static POOL: OnceLock<SyncPool> = OnceLock::new();
        let pool = POOL.get_or_init(|| SyncPool {
            workers: (0..SYNC_THREADS)
                .filter_map(|_| {
                    let (send, receive) = mpsc::channel::<Arc<Round>>();
                    std::thread::Builder::new()
                        .name("outl-fsync".into())
                        .spawn(move || {
                            for round in receive {
                                round.work();
                            }
                        })
                        .ok()
                        .map(|_| send)
                })
                .collect(),
        });
        (!pool.workers.is_empty()).then_some(pool)
    }

    /// Hands `round` to as many threads as it has files.
    fn wake(&self, round: &Arc<Round>) {
        for worker in self.workers.iter().take(round.files.len()) {
            // A thread that is gone leaves its part to the others and the caller.
            let _ = worker.send(Arc::clone(round));
        }
    }
}

/// One round of fsyncs: each file is taken by the first thread that gets to it.
struct Round {
    files: Vec<(File, Fsync)>,
    next: AtomicUsize,
    results: Mutex<Vec<Option<io::Result<()>>>>,
    all_done: Condvar,
}

impl Round {
    fn new(files: Vec<(File, Fsync)>) -> Round {
        Round {
            results: Mutex::new(files.iter().map(|_| None).collect()),
            files,
            next: AtomicUsize::new(0),
            all_done: Condvar::new(),
        }
    }

    /// Syncs files no thread has taken yet, until none is left.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some((file, how)) = self.files.get(i) else {
                return;
            };
            let result = how.run(file);
            let mut results = self.results.lock().unwrap_or_else(|e| e.into_inner());
            results[i] = Some(result);
            if results.iter().all(Option::is_some) {
                self.all_done.notify_all();
            }
        }
    }

    /// Waits for every file to be synced (each was taken by a thread that finishes it).
    fn wait(&self) -> Vec<io::Result<()>> {
        let mut results = self.results.lock().unwrap_or_else(|e| e.into_inner());
        while results.iter().any(Option::is_none) {
            results = self
                .all_done
                .wait(results)
                .unwrap_or_else(|e| e.into_inner());
        }
        results
            .iter_mut()
            .map(|result| result.take().unwrap_or(Ok(())))
            .collect()
    }
}

/// Replaces `path` with `bytes` atomically: a reader sees the old or the new content, never a
/// mix, and after a crash the file holds one of the two.
pub fn write_atomic(path: &Path, bytes: Vec<u8>, durability: Durability) -> io::Result<()> {
    let mut batch = Batch::new(durability);
    batch
        .replace(path, bytes, Guard::Any, ())
        .map_err(|f| f.error)?;
    batch.sync(None).map_err(|f| f.error)?;
    batch.apply(|| ()).map_err(|f| f.error)
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

/// The steps of the batches run on this thread, for tests that pin their order.
#[cfg(test)]
pub mod trace {
    use std::cell::RefCell;
    use std::path::PathBuf;

    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum Event {
        /// A temp file written (not synced).
        Wrote(PathBuf),
        /// One round of fsyncs: `also` is the file synced beside the batch's own (the op log),
        /// `paths` the temp files or folders.
        Synced {
            also: bool,
            paths: Vec<PathBuf>,
        },
        /// A temp file renamed over this path.
        Renamed(PathBuf),
        Removed(PathBuf),
    }

    thread_local! {
        static EVENTS: RefCell<Vec<Event>> = const { RefCell::new(Vec::new()) };
    }

    pub fn record(event: Event) {
        EVENTS.with(|events| events.borrow_mut().push(event));
    }

    /// The events recorded on this thread since the last call.
    pub fn take() -> Vec<Event> {
        EVENTS.with(|events| std::mem::take(&mut *events.borrow_mut()))
    }
}

#[cfg(test)]
mod tests {
    use super::trace::Event;
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("a.md");
        write_atomic(&path, b"one".to_vec(), Durability::Durable).unwrap();
        write_atomic(&path, b"two".to_vec(), Durability::Atomic).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
    }

    #[test]
    fn a_batch_syncs_files_then_renames_then_syncs_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("a")).unwrap();
        fs::write(root.join("a/gone"), "x").unwrap();
        fs::write(root.join("log"), "line\n").unwrap();
        let log = File::open(root.join("log")).unwrap();
        trace::take();

        let mut batch = Batch::new(Durability::Durable);
        batch.remove(&root.join("a/gone"), Guard::Any, "gone");
        batch.remove(&root.join("a/never there"), Guard::Any, "never");
        batch
            .replace(&root.join("a/one"), b"1".to_vec(), Guard::Any, "one")
            .unwrap();
        batch
            .replace(&root.join("b/c/two"), b"2".to_vec(), Guard::Any, "two")
            .unwrap();
        assert_eq!(batch.staged(&root.join("a/one")), Some(Some(&b"1"[..])));
        assert_eq!(batch.staged(&root.join("a/gone")), Some(None));
        assert_eq!(batch.staged(&root.join("a/other")), None);
        // Nothing is visible before the batch is applied.
        assert!(!root.join("a/one").exists());
        assert!(root.join("a/gone").exists());
        batch.sync(Some(&log)).unwrap();
        batch.apply(|| ()).unwrap();

        assert_eq!(fs::read(root.join("a/one")).unwrap(), b"1");
        assert_eq!(fs::read(root.join("b/c/two")).unwrap(), b"2");
        assert!(!root.join("a/gone").exists());
        let events = trace::take();
        let [
            Event::Wrote(_),
            Event::Wrote(_),
            Event::Synced {
                also: true,
                paths: temps,
            },
            Event::Removed(gone),
            Event::Renamed(one),
            Event::Renamed(two),
            Event::Synced {
                also: false,
                paths: dirs,
            },
        ] = events.as_slice()
        else {
            panic!("{events:#?}");
        };
        assert_eq!(temps.len(), 2);
        assert_eq!(
            [gone, one, two],
            [
                &root.join("a/gone"),
                &root.join("a/one"),
                &root.join("b/c/two")
            ]
        );
        // The folders whose names changed, and the parents of the folders created.
        assert_eq!(
            dirs,
            &[
                root.to_path_buf(),
                root.join("a"),
                root.join("b"),
                root.join("b/c")
            ]
        );
    }

    #[test]
    fn a_dropped_batch_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut batch = Batch::new(Durability::Durable);
        batch
            .replace(&dir.path().join("a"), b"1".to_vec(), Guard::Any, ())
            .unwrap();
        batch.sync(None).unwrap();
        drop(batch);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_failed_step_names_its_tag() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("file"), "x").unwrap();
        let mut batch = Batch::new(Durability::Durable);
        let failure = batch
            .replace(
                &dir.path().join("file/below"),
                b"1".to_vec(),
                Guard::Any,
                "below",
            )
            .unwrap_err();
        assert_eq!(failure.tag, Some("below"));
        // A folder where a file is to be renamed.
        fs::create_dir_all(dir.path().join("taken/x")).unwrap();
        batch
            .replace(
                &dir.path().join("taken"),
                b"1".to_vec(),
                Guard::Any,
                "taken",
            )
            .unwrap();
        batch.sync(None).unwrap();
        assert_eq!(batch.apply(|| ()).unwrap_err().tag, Some("taken"));
    }

    #[test]
    fn syncs_run_at_once_and_report_each_file() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<File> = (0..SYNC_THREADS + 3)
            .map(|i| File::create(dir.path().join(i.to_string())).unwrap())
            .collect();
        let listed: Vec<(usize, &File, Fsync)> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (i, f, Fsync::All))
            .collect();
        let mut alongside_ran = false;
        let mut keys: Vec<usize> = sync_at_once(&listed, || alongside_ran = true)
            .into_iter()
            .map(|(key, result)| {
                result.unwrap();
                key
            })
            .collect();
        keys.sort();
        assert_eq!(keys, (0..SYNC_THREADS + 3).collect::<Vec<_>>());
        assert!(alongside_ran);
    }

    #[test]
    fn a_guarded_step_leaves_a_file_that_changed_since_it_was_read() {
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("page.md");
        fs::write(&page, "read").unwrap();
        let read = blake3::hash(b"read");

        let mut batch = Batch::new(Durability::Durable);
        batch
            .replace(&page, b"ours".to_vec(), Guard::Holds(read), "page")
            .unwrap();
        fs::write(&page, "theirs").unwrap();
        batch.sync(None).unwrap();
        let failure = batch.apply(|| ()).unwrap_err();
        assert!(Moved::is(&failure.error), "{failure:?}");
        assert_eq!(failure.tag, Some("page"));
        assert_eq!(fs::read_to_string(&page).unwrap(), "theirs");

        let mut batch = Batch::new(Durability::Durable);
        batch.remove(&page, Guard::Holds(read), "page");
        assert!(Moved::is(&batch.apply(|| ()).unwrap_err().error));
        assert_eq!(fs::read_to_string(&page).unwrap(), "theirs");

        let new = dir.path().join("new.md");
        let mut batch = Batch::new(Durability::Durable);
        batch
            .replace(&new, b"ours".to_vec(), Guard::Absent, "new")
            .unwrap();
        fs::write(&new, "theirs").unwrap();
        assert!(Moved::is(&batch.apply(|| ()).unwrap_err().error));
        assert_eq!(fs::read_to_string(&new).unwrap(), "theirs");

        // Holding what was read, each step goes through, and only the page files are left.
        let mut batch = Batch::new(Durability::Durable);
        batch
            .replace(
                &page,
                b"ours".to_vec(),
                Guard::Holds(blake3::hash(b"theirs")),
                "page",
            )
            .unwrap();
        batch.remove(&new, Guard::Holds(blake3::hash(b"theirs")), "new");
        batch.apply(|| ()).unwrap();
        assert_eq!(fs::read_to_string(&page).unwrap(), "ours");
        assert!(!new.exists());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["page.md"]);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_swap_back_leaves_the_name_to_a_file_saved_after_the_swap() {
        let dir = tempfile::tempdir().unwrap();
        let (page, temp) = (dir.path().join("page.md"), dir.path().join("swapped"));
        let ours = blake3::hash(b"ours");

        // Nothing saved over outl's file: the file swapped out gets its name back.
        fs::write(&page, "ours").unwrap();
        fs::write(&temp, "theirs").unwrap();
        swap_back(&temp, &page, ours).unwrap();
        assert_eq!(fs::read_to_string(&page).unwrap(), "theirs");
        assert_eq!(fs::read_to_string(&temp).unwrap(), "ours");

        // A program saved over outl's file: its save is newer than the file swapped out.
        fs::write(&page, "newer").unwrap();
        fs::write(&temp, "theirs").unwrap();
        swap_back(&temp, &page, ours).unwrap();
        assert_eq!(fs::read_to_string(&page).unwrap(), "newer");
        assert_eq!(fs::read_to_string(&temp).unwrap(), "theirs");
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
