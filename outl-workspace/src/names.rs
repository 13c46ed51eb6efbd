//! Page names, slugs and file names, and the checks that keep every path inside the workspace.
//!
//! The rules are documented in the module docs of [`crate`].

use std::path::{Component, Path, PathBuf};

use chrono::NaiveDate;

use crate::{Error, ErrorCode};
use outl_format::Syntax;

/// Folder of ordinary pages, relative to the workspace root.
pub const PAGES_DIR: &str = "pages";
/// Folder of journal pages, relative to the workspace root.
pub const JOURNALS_DIR: &str = "journals";

/// Longest file name (in bytes, `.md` included) most file systems accept.
const MAX_FILE_NAME_BYTES: usize = 255;

/// Windows refuses these file bodies whatever the extension; Logseq escapes them too.
const WINDOWS_RESERVED_BODIES: &[&str] = &[
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// How file names map to page names in this workspace (`:file/name-format` in
/// `logseq/config.edn`, see [`GraphConfig`](super::GraphConfig)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NameFormat {
    /// A Logseq graph still on the legacy file name format (a config without
    /// `:file/name-format :triple-lowbar`): `.` in a file name separates namespaces.
    pub legacy_dots: bool,
}

/// The slug of a page name: trimmed and lowercased. Namespaces keep their `/`.
pub fn slug(name: &str) -> String {
    name.trim().to_lowercase()
}

/// Checks a page name given by a caller and returns it trimmed.
pub fn check_page_name(name: &str) -> Result<&str, Error> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidArguments,
            "a page name cannot be empty",
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::new(
            ErrorCode::PathOutsideWorkspace,
            "a page name cannot contain NUL or other control characters",
        )
        .with_data(serde_json::json!({ "name": crate::excerpt(name) })));
    }
    Ok(name)
}

/// The slug (and name) of a journal page.
pub fn journal_slug(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

/// The page name a file body stands for (without `title::`, which overrides it).
pub fn name_of_stem(stem: &str, format: NameFormat) -> String {
    let slashed = if stem.contains("___") {
        stem.replace("___", "/")
    } else if format.legacy_dots && !stem.contains('%') && !stem.starts_with('.') {
        stem.replace('.', "/")
    } else {
        stem.to_string()
    };
    percent_decode(&slashed).unwrap_or(slashed)
}

/// `pages/<file body>.md` for a new page called `name` (Logseq's `:triple-lowbar` format,
/// keeping the name's case). The result is always one file inside `pages/`.
pub fn page_file(name: &str, format: NameFormat) -> Result<String, Error> {
    page_file_as(name, format, Syntax::Markdown)
}

/// [`page_file`] for a page in `syntax`: `.md` or `.org`.
pub fn page_file_as(name: &str, format: NameFormat, syntax: Syntax) -> Result<String, Error> {
    let name = check_page_name(name)?;
    let body = file_body(name, format);
    let extension = syntax.extension();
    if body.len() + 1 + extension.len() > MAX_FILE_NAME_BYTES {
        return Err(Error::new(
            ErrorCode::InvalidArguments,
            format!(
                "the page name is too long for a file name ({} bytes encoded)",
                body.len()
            ),
        ));
    }
    Ok(format!("{PAGES_DIR}/{body}.{extension}"))
}

fn file_body(name: &str, format: NameFormat) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let next_is_hex_pair = chars.get(i + 1).is_some_and(char::is_ascii_hexdigit)
            && chars.get(i + 2).is_some_and(char::is_ascii_hexdigit);
        let escape = match c {
            '/' => {
                out.push_str("___");
                continue;
            }
            // Decoding percent-decodes, so a literal `%XX` must survive it.
            '%' => next_is_hex_pair,
            ':' | '*' | '?' | '"' | '<' | '>' | '|' | '#' | '\\' => true,
            // `___` means `/`: underscores next to a slash or in a run of three are escaped so
            // the file name decodes to exactly this name.
            '_' => underscore_is_ambiguous(&chars, i),
            // No hidden files, no `.`/`..`; a trailing dot is dropped by Windows.
            '.' => i == 0 || i + 1 == chars.len() || format.legacy_dots,
            c => c.is_control(),
        };
        if escape {
            percent_encode_char(c, &mut out);
        } else {
            out.push(c);
        }
    }
    if WINDOWS_RESERVED_BODIES.contains(&out.to_ascii_lowercase().as_str())
        && let Some(last) = out.pop()
    {
        percent_encode_char(last, &mut out);
    }
    out
}

fn underscore_is_ambiguous(chars: &[char], i: usize) -> bool {
    let run_start = chars[..i].iter().rev().take_while(|&&c| c == '_').count();
    let run_end = chars[i + 1..].iter().take_while(|&&c| c == '_').count();
    let start = i - run_start;
    let end = i + run_end; // inclusive
    run_start + run_end + 1 >= 3
        || (start > 0 && chars[start - 1] == '/')
        || chars.get(end + 1) == Some(&'/')
}

fn percent_encode_char(c: char, out: &mut String) {
    let mut buf = [0u8; 4];
    for byte in c.encode_utf8(&mut buf).bytes() {
        out.push_str(&format!("%{byte:02X}"));
    }
}

/// Decodes `%XX` sequences; `None` if the bytes they give are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_string());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(hi), Some(lo)) = (hex_value(bytes[i + 1]), hex_value(bytes[i + 2]))
        {
            out.push(hi * 16 + lo);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Checks a `/`-separated path relative to the workspace and returns it joined to `root`.
///
/// Refuses absolute paths, `..`, NUL and control characters, and a path whose existing part
/// resolves (through symlinks) outside `root`. `root` must be canonical.
pub fn resolve_inside(root: &Path, relative: &str) -> Result<PathBuf, Error> {
    let outside = |why: &str| {
        Error::new(
            ErrorCode::PathOutsideWorkspace,
            format!("{why}: {}", crate::quoted(relative)),
        )
        .with_data(serde_json::json!({ "path": crate::excerpt(relative) }))
    };
    if relative.is_empty() {
        return Err(outside("an empty path names no file in the workspace"));
    }
    if relative.chars().any(char::is_control) {
        return Err(outside(
            "a path cannot contain NUL or other control characters",
        ));
    }
    let rel = Path::new(relative);
    for component in rel.components() {
        match component {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err(outside("a path cannot climb out with `..`")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(outside("a path must be relative to the workspace"));
            }
        }
    }
    let joined = root.join(rel);
    // The deepest part of the path that exists must still be inside once symlinks resolve.
    let mut existing = joined.as_path();
    loop {
        match existing.canonicalize() {
            Ok(real) if real.starts_with(root) => return Ok(joined),
            Ok(_) => {
                return Err(outside(
                    "the path leads outside the workspace through a symlink",
                ));
            }
            Err(_) => match existing.parent() {
                Some(parent) => existing = parent,
                None => return Err(outside("the path is not inside the workspace")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEW: NameFormat = NameFormat { legacy_dots: false };
    const LEGACY: NameFormat = NameFormat { legacy_dots: true };

    fn round_trip(name: &str, format: NameFormat) -> String {
        let file = page_file(name, format).unwrap();
        let stem = file
            .strip_prefix("pages/")
            .unwrap()
            .strip_suffix(".md")
            .unwrap();
        assert!(!stem.contains('/'), "{name:?} gave {file:?}");
        name_of_stem(stem, format)
    }

    #[test]
    fn slug_is_trimmed_lowercase_and_keeps_namespaces() {
        assert_eq!(slug("  Project X "), "project x");
        assert_eq!(slug("Ärger/Über"), "ärger/über");
    }

    #[test]
    fn file_names_follow_the_triple_lowbar_format() {
        assert_eq!(page_file("Project X", NEW).unwrap(), "pages/Project X.md");
        assert_eq!(page_file("a/b/c", NEW).unwrap(), "pages/a___b___c.md");
        assert_eq!(
            page_file("what? #1: a|b", NEW).unwrap(),
            "pages/what%3F %231%3A a%7Cb.md"
        );
        assert_eq!(page_file("v1.2", NEW).unwrap(), "pages/v1.2.md");
        assert_eq!(page_file("v1.2", LEGACY).unwrap(), "pages/v1%2E2.md");
        assert_eq!(page_file("con", NEW).unwrap(), "pages/co%6E.md");
    }

    #[test]
    fn every_name_round_trips_through_its_file_name() {
        for name in [
            "Project X",
            "a/b",
            "a__/b",
            "a/__b",
            "x___y",
            "100%",
            "50%25 off",
            "é/ü",
            "trailing.",
            ".hidden",
            "..",
            "../../etc/passwd",
            "/etc/passwd",
            "C:\\Windows",
            "con",
            "v1.2",
            "a_b",
            "__init__",
        ] {
            assert_eq!(round_trip(name, NEW), name, "new format");
            assert_eq!(round_trip(name, LEGACY), name, "legacy format");
        }
    }

    #[test]
    fn traversal_names_stay_one_file_in_pages() {
        for name in ["..", "../../etc/passwd", "/etc/passwd", "a/../../b"] {
            let file = page_file(name, NEW).unwrap();
            let body = file.strip_prefix("pages/").unwrap();
            assert!(!body.contains('/') && !body.starts_with('.'), "{file}");
        }
        assert_eq!(
            page_file("a\0b", NEW).unwrap_err().code,
            ErrorCode::PathOutsideWorkspace
        );
        assert_eq!(
            page_file("a\nb", NEW).unwrap_err().code,
            ErrorCode::PathOutsideWorkspace
        );
        assert_eq!(
            page_file("   ", NEW).unwrap_err().code,
            ErrorCode::InvalidArguments
        );
        assert_eq!(
            page_file(&"x".repeat(300), NEW).unwrap_err().code,
            ErrorCode::InvalidArguments
        );
    }

    #[test]
    fn legacy_separators_are_read() {
        assert_eq!(name_of_stem("a%2Fb", NEW), "a/b");
        assert_eq!(name_of_stem("a.b", LEGACY), "a/b");
        assert_eq!(name_of_stem("a.b", NEW), "a.b");
        assert_eq!(name_of_stem("bad%FFutf8", NEW), "bad%FFutf8");
    }

    #[test]
    fn journal_slugs() {
        let date = NaiveDate::from_ymd_opt(2026, 11, 30).unwrap();
        assert_eq!(journal_slug(date), "2026-11-30");
    }

    #[test]
    fn paths_cannot_leave_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("pages")).unwrap();
        assert!(resolve_inside(&root, "pages/a.md").is_ok());
        assert!(resolve_inside(&root, "new/deeper/file.md").is_ok());
        for bad in ["../x", "pages/../../x", "/etc/passwd", "a\0b", "a\nb", ""] {
            assert_eq!(
                resolve_inside(&root, bad).unwrap_err().code,
                ErrorCode::PathOutsideWorkspace,
                "{bad:?}"
            );
        }
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();
        assert_eq!(
            resolve_inside(&root, "escape/file.md").unwrap_err().code,
            ErrorCode::PathOutsideWorkspace
        );
    }
}
