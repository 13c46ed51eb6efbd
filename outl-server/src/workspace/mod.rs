//! A workspace folder on disk: pages and journals, sidecar ids, the op log, the lock and the index.

pub struct Workspace {}
