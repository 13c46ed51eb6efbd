//! A page whose file was edited outside outl: what changed, and the refusal its writes get
//! until it is reconciled (RFC 0255's `PAGE_MARKDOWN_AHEAD_OF_LOG`).

use serde::Serialize;
use serde_json::json;

use super::model::Page;
use crate::{Error, ErrorCode};

/// Differing lines quoted in `sample`, from each side.
const SAMPLE_LINES: usize = 3;
/// Longest quoted line, in characters.
const SAMPLE_LINE_CHARS: usize = 120;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Frozen {
    pub slug: String,
    /// The page file, relative to the workspace.
    pub path: String,
    /// The changed lines of the file as it is now, `12-15` (1-based), or the line where lines
    /// were removed.
    pub lines: String,
    /// A few differing lines: `- old` as outl last wrote them, `+ new` as they are now.
    pub sample: Vec<String>,
    /// Content hash outl last wrote or saw.
    pub expected_hash: String,
    /// Content hash of the file now.
    pub actual_hash: String,
}

impl Frozen {
    /// `page` is the page as parsed from `current`; `base` is what outl last wrote or saw.
    pub fn new(page: &Page, expected_hash: &str, base: &str, current: &str) -> Frozen {
        let old: Vec<&str> = base.lines().collect();
        let new: Vec<&str> = current.lines().collect();
        let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
        let suffix = old[prefix..]
            .iter()
            .rev()
            .zip(new[prefix..].iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        let removed = &old[prefix..old.len() - suffix];
        let added = &new[prefix..new.len() - suffix];
        let lines = match added.len() {
            // Only removals (or a change in line endings alone): where they were.
            0 => (prefix + 1).min(new.len().max(1)).to_string(),
            1 => (prefix + 1).to_string(),
            n => format!("{}-{}", prefix + 1, prefix + n),
        };
        let quote = |sign: char, line: &&str| {
            let mut quoted: String = line.chars().take(SAMPLE_LINE_CHARS).collect();
            if line.chars().count() > SAMPLE_LINE_CHARS {
                quoted.push('…');
            }
            format!("{sign} {quoted}")
        };
        let sample = removed
            .iter()
            .take(SAMPLE_LINES)
            .map(|l| quote('-', l))
            .chain(added.iter().take(SAMPLE_LINES).map(|l| quote('+', l)))
            .collect();
        Frozen {
            slug: page.slug.clone(),
            path: page.file.clone(),
            lines,
            sample,
            expected_hash: expected_hash.to_string(),
            actual_hash: page.hash.clone(),
        }
    }

    /// The shell command that adopts the file as it is.
    pub fn recovery_command(&self) -> String {
        let args = json!({ "slug": self.slug }).to_string();
        format!(
            "outl call outl_page_reconcile --args '{}'",
            args.replace('\'', r"'\''")
        )
    }

    pub fn error(&self) -> Error {
        Error::new(
            ErrorCode::PageMarkdownAheadOfLog,
            format!(
                "{} was edited outside outl (lines {}); writes to it are refused until it is \
                 reconciled",
                self.path, self.lines
            ),
        )
        .with_data(json!({
            "slug": self.slug,
            "path": self.path,
            "lines": self.lines,
            "sample": self.sample,
            "recovery_command": self.recovery_command(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PageKind;
    use thin_vec::ThinVec;

    fn page(slug: &str) -> Page {
        Page {
            hash: "new".into(),
            ..Page::new(
                slug.into(),
                slug.into(),
                PageKind::Page,
                format!("pages/{slug}.md"),
                Default::default(),
                ThinVec::new(),
            )
        }
    }

    #[test]
    fn reports_changed_lines_and_a_sample() {
        let frozen = Frozen::new(
            &page("p"),
            "old",
            "- a\n- b\n- c\n",
            "- a\n- B\n- B2\n- c\n",
        );
        assert_eq!(frozen.lines, "2-3");
        assert_eq!(frozen.sample, ["- - b", "+ - B", "+ - B2"]);
        let removed = Frozen::new(&page("p"), "old", "- a\n- b\n- c\n", "- a\n- c\n");
        assert_eq!(removed.lines, "2");
        assert_eq!(removed.sample, ["- - b"]);
    }

    #[test]
    fn error_carries_rfc_0255_fields() {
        let frozen = Frozen::new(&page("it's"), "old", "- a\n", "- b\n");
        let error = frozen.error();
        assert_eq!(error.code, ErrorCode::PageMarkdownAheadOfLog);
        let data = error.data.unwrap();
        assert_eq!(data["path"], "pages/it's.md");
        assert_eq!(data["lines"], "1");
        assert_eq!(data["sample"], json!(["- - a", "+ - b"]));
        assert_eq!(
            data["recovery_command"],
            r#"outl call outl_page_reconcile --args '{"slug":"it'\''s"}'"#
        );
    }
}
