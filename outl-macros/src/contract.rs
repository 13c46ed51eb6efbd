//! `tools.toml`, the reviewed wire contract: one table per tool with its shape (payload kind,
//! markdown field, annotations, parameters, dropped fields and why), never its wording.
//!
//! The contract of a handler is the `tools.toml` nearest above its source file (so test
//! fixtures can sit beside their tests); when the compiler does not say which file it is
//! expanding, the search starts at the crate's manifest directory.

use std::path::{Path, PathBuf};

use crate::attr::WhySyntax;
use crate::check::{PayloadDecl, ToolDecl};

pub struct ContractFile {
    pub path: PathBuf,
    pub table: toml::Table,
}

pub const FILE_NAME: &str = "tools.toml";

impl ContractFile {
    pub fn load(source: Option<&Path>) -> Result<ContractFile, String> {
        let start = start_dir(source)?;
        let path = start
            .ancestors()
            .map(|dir| dir.join(FILE_NAME))
            .find(|candidate| candidate.is_file())
            .ok_or_else(|| {
                format!(
                    "no {FILE_NAME} in {} or any folder above it. {FILE_NAME} is the wire contract of every tool: create one (it may start empty) at the workspace root",
                    start.display()
                )
            })?;
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let table = text
            .parse::<toml::Table>()
            .map_err(|e| format!("{} is not valid TOML: {e}", path.display()))?;
        Ok(ContractFile { path, table })
    }

    /// Every tool the contract lists, in file order.
    pub fn entry_names(&self) -> Vec<String> {
        self.table.keys().cloned().collect()
    }

    /// Compare a tool's entry with what its handler declares.
    pub fn compare(&self, decl: &ToolDecl) -> EntryCheck {
        let Some(entry) = self.table.get(&decl.name) else {
            return EntryCheck {
                disagreements: vec!["no entry".into()],
                params: None,
            };
        };
        let Some(entry) = entry.as_table() else {
            return EntryCheck {
                disagreements: vec![format!("[{}] is not a table", decl.name)],
                params: Some(Vec::new()),
            };
        };
        let mut out = Vec::new();
        for key in entry.keys() {
            if ![
                "payload",
                "markdown_field",
                "markdown_cut",
                "annotations",
                "params",
                "drops",
            ]
            .contains(&key.as_str())
            {
                out.push(format!("`{key}`: not a key of tools.toml (the keys are payload, markdown_field, markdown_cut, annotations, params, drops)"));
            }
        }
        let declared = Declared::of(decl);
        compare_value(
            &mut out,
            "payload",
            entry.get("payload").map(show),
            Some(quote(declared.payload)),
        );
        compare_value(
            &mut out,
            "markdown_field",
            entry.get("markdown_field").map(show),
            declared.markdown_field.as_deref().map(quote),
        );
        compare_value(
            &mut out,
            "markdown_cut",
            entry.get("markdown_cut").map(show),
            declared.markdown_cut.as_deref().map(quote),
        );
        let written_annotations = match entry.get("annotations") {
            None => Some(Vec::new()),
            Some(toml::Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect(),
            Some(_) => None,
        };
        match written_annotations {
            Some(mut written) => {
                written.sort();
                let mut expected: Vec<String> =
                    declared.annotations.iter().map(|a| a.to_string()).collect();
                expected.sort();
                if written != expected {
                    out.push(format!(
                        "annotations: tools.toml says {}, the handler says {}",
                        show(
                            entry
                                .get("annotations")
                                .unwrap_or(&toml::Value::Array(Vec::new()))
                        ),
                        string_array(&declared.annotations)
                    ));
                }
            }
            None => out.push("annotations: expected an array of strings".into()),
        }
        let written_drops = string_table(entry.get("drops"));
        match &written_drops {
            Ok(written) => {
                for (field, why) in &declared.drops {
                    match written.iter().find(|(f, _)| f == field) {
                        None => out.push(format!(
                            "drops.{field}: the handler drops it, tools.toml does not"
                        )),
                        Some((_, w)) if w != why => out.push(format!(
                            "drops.{field}: tools.toml says {}, the handler says {}",
                            quote(w),
                            quote(why)
                        )),
                        Some(_) => {}
                    }
                }
                for (field, _) in written {
                    if !declared.drops.iter().any(|(f, _)| f == field) {
                        out.push(format!(
                            "drops.{field}: tools.toml drops it, the handler does not"
                        ));
                    }
                }
            }
            Err(e) => out.push(format!("drops: {e}")),
        }
        let params = match string_table(entry.get("params")) {
            Ok(params) => params,
            Err(e) => {
                out.push(format!("params: {e}"));
                Vec::new()
            }
        };
        EntryCheck {
            disagreements: out,
            params: Some(params),
        }
    }
}

fn start_dir(source: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(file) = source
        && let Some(dir) = file.parent()
    {
        let dir = if dir.is_absolute() {
            dir.to_owned()
        } else {
            std::env::current_dir()
                .map_err(|e| format!("cannot read the current directory: {e}"))?
                .join(dir)
        };
        if dir.is_dir() {
            return Ok(dir);
        }
    }
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| {
            format!("cannot tell where to look for {FILE_NAME}: CARGO_MANIFEST_DIR is not set")
        })
}

/// The result of [`ContractFile::compare`]; the parameters are compared by a `const` check.
pub struct EntryCheck {
    pub disagreements: Vec<String>,
    /// The entry's parameters, `None` when there is no entry.
    pub params: Option<Vec<(String, String)>>,
}

/// The entry a handler declares, in canonical order.
struct Declared {
    payload: &'static str,
    markdown_field: Option<String>,
    markdown_cut: Option<String>,
    annotations: Vec<&'static str>,
    drops: Vec<(String, String)>,
}

impl Declared {
    fn of(decl: &ToolDecl) -> Declared {
        let annotations = [
            ("read_only", decl.read_only),
            ("destructive", decl.destructive),
            ("idempotent", decl.idempotent),
        ]
        .into_iter()
        .filter_map(|(name, on)| on.then_some(name))
        .collect();
        let drops = decl
            .drops
            .iter()
            .map(|d| {
                let why = match &d.why {
                    WhySyntax::Arg(_) => "arg".to_owned(),
                    WhySyntax::Elsewhere(lit) => lit.value(),
                };
                (d.field.to_string(), why)
            })
            .collect();
        match &decl.payload {
            PayloadDecl::Json => Declared {
                payload: "json",
                markdown_field: None,
                markdown_cut: None,
                annotations,
                drops,
            },
            PayloadDecl::Markdown { field, cut, .. } => Declared {
                payload: "markdown",
                markdown_field: Some(field.to_string()),
                markdown_cut: cut.as_ref().map(|cut| cut.to_string()),
                annotations,
                drops,
            },
        }
    }
}

fn compare_value(
    out: &mut Vec<String>,
    name: &str,
    written: Option<String>,
    declared: Option<String>,
) {
    if written != declared {
        let say = |v: &Option<String>| v.clone().unwrap_or_else(|| "nothing".into());
        out.push(format!(
            "{name}: tools.toml says {}, the handler says {}",
            say(&written),
            say(&declared)
        ));
    }
}

fn string_table(value: Option<&toml::Value>) -> Result<Vec<(String, String)>, String> {
    match value {
        None => Ok(Vec::new()),
        Some(toml::Value::Table(table)) => table
            .iter()
            .map(|(k, v)| match v.as_str() {
                Some(s) => Ok((k.clone(), s.to_owned())),
                None => Err(format!("`{k}` should be a string, not {}", show(v))),
            })
            .collect(),
        Some(other) => Err(format!("expected a table of strings, not {}", show(other))),
    }
}

fn show(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => quote(s),
        toml::Value::Array(items) => format!(
            "[{}]",
            items.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        toml::Value::Table(_) => "a table".into(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
    }
}

fn string_array(items: &[&str]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|s| quote(s))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
