//! Tool handlers, one file per domain.
