//! What an op did: [`OpKind`], and the one table of the strings the op log holds for it.

use std::fmt;

use compact_str::CompactString;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Declares [`OpKind`] from one table of `Variant = "string in the log"`, so that writing and
/// reading a kind cannot disagree and no kind lacks its string.
macro_rules! op_kinds {
    ($($(#[$doc:meta])* $variant:ident = $logged:literal,)+) => {
        /// What an op did, e.g. [`OpKind::BlockMove`], logged as `block.move`.
        ///
        /// Writes log one of the named kinds. A log may also hold kinds this build does not
        /// name (an older or newer outl's, or a test's): those read as [`OpKind::Other`], kept
        /// as written, so that such a log still opens, lists and undoes its ops as they were
        /// logged instead of failing on one unknown word.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum OpKind {
            $($(#[$doc])* $variant,)+
            /// A kind read from the log that no variant names, as written.
            Other(CompactString),
        }

        impl OpKind {
            /// The string the log holds for this kind.
            pub fn as_str(&self) -> &str {
                match self {
                    $(OpKind::$variant => $logged,)+
                    OpKind::Other(logged) => logged,
                }
            }

            /// The kind a log line names.
            pub(super) fn read(logged: CompactString) -> OpKind {
                match logged.as_str() {
                    $($logged => OpKind::$variant,)+
                    _ => OpKind::Other(logged),
                }
            }
        }
    };
}

// Logs outlive builds: a string here is never changed, only added.
op_kinds! {
    PageCreate = "page.create",
    /// A journal day created empty, to be read or written.
    JournalCreate = "journal.create",
    PageUpdate = "page.update",
    /// Blocks appended to a page, or to a journal day that the same op creates.
    PageAppend = "page.append",
    PageDelete = "page.delete",
    /// A page renamed, with every reference to it across the workspace.
    PageRename = "page.rename",
    /// A page edited outside outl, adopted as it is on disk.
    PageReconcile = "page.reconcile",
    BlockInsert = "block.insert",
    BlockUpdate = "block.update",
    BlockDelete = "block.delete",
    BlockMove = "block.move",
    BlockIndent = "block.indent",
    BlockOutdent = "block.outdent",
    BlockTodo = "block.todo",
    BlockPropertySet = "block.property_set",
    BlockPropertyRemove = "block.property_remove",
    BlockCollapse = "block.collapse",
    Undo = "undo",
    Redo = "redo",
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for OpKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for OpKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<OpKind, D::Error> {
        CompactString::deserialize(deserializer).map(OpKind::read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_reads_back_as_the_string_it_was_logged_with() {
        for logged in [
            "block.property_set",
            "undo",
            "page.reconcile",
            "test.append",
        ] {
            let kind: OpKind = serde_json::from_str(&format!("{logged:?}")).unwrap();
            assert_eq!(kind.as_str(), logged);
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("{logged:?}"));
        }
        assert_eq!(OpKind::read("block.move".into()), OpKind::BlockMove);
        assert_eq!(
            OpKind::read("two".into()),
            OpKind::Other(CompactString::from("two"))
        );
    }
}
