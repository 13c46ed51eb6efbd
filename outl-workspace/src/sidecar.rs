//! The per-page sidecar under `.outl/ids/`: the block ids of a page in document order, the
//! content hash they belong to, and the markdown they were read from (the base that an
//! external edit is compared with and reconciled against).

use std::path::{Path, PathBuf};

use super::STATE_DIR;
use super::disk::{self, Durability};

const MAGIC: &str = "outl-ids 1";
const IDS_DIR: &str = "ids";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sidecar {
    /// Content hash of the markdown the ids belong to.
    pub hash: String,
    /// Block ids in document order.
    pub ids: Vec<String>,
    /// That markdown.
    pub base: String,
}

/// `.outl/ids/<file>.ids` for the page file `file` (relative, `/`-separated).
pub fn path(root: &Path, file: &str) -> PathBuf {
    let mut path = root.join(STATE_DIR).join(IDS_DIR);
    for part in file.split('/') {
        path.push(part);
    }
    path.set_file_name(format!(
        "{}.ids",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    ));
    path
}

impl Sidecar {
    pub fn encode(&self) -> String {
        let mut out = String::with_capacity(self.base.len() + self.ids.len() * 8 + 64);
        out.push_str(MAGIC);
        out.push_str("\nhash ");
        out.push_str(&self.hash);
        out.push_str("\nids");
        for id in &self.ids {
            out.push(' ');
            out.push_str(id);
        }
        out.push_str("\n--\n");
        out.push_str(&self.base);
        out
    }

    /// `None` for anything that is not a complete sidecar (a torn or foreign file).
    pub fn decode(text: &str) -> Option<Sidecar> {
        let (hash, ids, base) = parts(text)?;
        let sidecar = Sidecar {
            hash: hash.to_string(),
            ids: ids.split_whitespace().map(str::to_string).collect(),
            base: base.to_string(),
        };
        // The base is what the hash was taken of: a sidecar torn inside its base is refused.
        (super::content_hash(sidecar.base.as_bytes()) == sidecar.hash).then_some(sidecar)
    }

    /// The ids in `text` (a sidecar's encoding) if its base is `md`, whose content hash is
    /// `hash`: what opening a workspace finds for almost every page. Comparing the base with
    /// the page spares copying and hashing it.
    pub fn ids_of_current<'t>(text: &'t str, md: &str, hash: &str) -> Option<Vec<&'t str>> {
        let (sidecar_hash, ids, base) = parts(text)?;
        (sidecar_hash == hash && base == md).then(|| ids.split_whitespace().collect())
    }

    /// The text of the sidecar of the page file `file`, if it has one.
    pub fn read_text(root: &Path, file: &str) -> Option<String> {
        std::fs::read_to_string(path(root, file)).ok()
    }

    pub fn read(root: &Path, file: &str) -> Option<Sidecar> {
        Sidecar::decode(&Sidecar::read_text(root, file)?)
    }

    pub fn write(&self, root: &Path, file: &str, durability: Durability) -> std::io::Result<()> {
        disk::write_atomic(&path(root, file), self.encode().into_bytes(), durability)
    }
}

/// The hash, the ids (space-separated) and the base of a sidecar's encoding.
fn parts(text: &str) -> Option<(&str, &str, &str)> {
    let rest = text.strip_prefix(MAGIC)?.strip_prefix("\nhash ")?;
    let (hash, rest) = rest.split_once('\n')?;
    let (ids, base) = rest.strip_prefix("ids")?.split_once("\n--\n")?;
    Some((hash, ids, base))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_and_decodes() {
        let base = "- one\n- two\n".to_string();
        let sidecar = Sidecar {
            hash: crate::content_hash(base.as_bytes()),
            ids: vec!["aaaaaa".into(), "bbbbbb".into()],
            base,
        };
        assert_eq!(Sidecar::decode(&sidecar.encode()), Some(sidecar.clone()));
        let text = sidecar.encode();
        assert_eq!(
            Sidecar::ids_of_current(&text, &sidecar.base, &sidecar.hash),
            Some(vec!["aaaaaa", "bbbbbb"])
        );
        assert_eq!(
            Sidecar::ids_of_current(&text, "- one\n", &sidecar.hash),
            None
        );
        assert_eq!(Sidecar::ids_of_current(&text, &sidecar.base, "0000"), None);
        let torn = sidecar.encode();
        assert_eq!(Sidecar::decode(&torn[..torn.len() - 3]), None);
        assert_eq!(Sidecar::decode("something else"), None);
    }

    #[test]
    fn sidecar_paths_mirror_page_files() {
        let root = Path::new("/w");
        assert_eq!(
            path(root, "pages/a___b.md"),
            Path::new("/w/.outl/ids/pages/a___b.md.ids")
        );
        assert_eq!(
            path(root, "journals/2026_11_30.md"),
            Path::new("/w/.outl/ids/journals/2026_11_30.md.ids")
        );
    }
}
