//! The rules of `#[tool(...)]` that need nothing but the attribute: required and known keys,
//! flags, payload kinds, justifications, names. Each violation is reported at its token and
//! all of them are collected before the item fails.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, Span};
use syn::LitStr;

use crate::attr::{self, DropSyntax, Entry, PayloadSyntax, Value, WhySyntax};
use crate::ctxt::Ctxt;

/// A checked `#[tool(...)]`.
pub struct ToolDecl {
    pub name: String,
    pub payload: PayloadDecl,
    pub drops: Vec<DropSyntax>,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
}

pub enum PayloadDecl {
    Json,
    /// `cut`: the field sent after the markdown, as JSON, when the reply is a slice cut short.
    Markdown {
        kind: Ident,
        field: Ident,
        cut: Option<Ident>,
    },
}

const KEYS: &str = "name, payload, drops, read_only, destructive, idempotent, crate";
const FLAGS: [&str; 3] = ["read_only", "destructive", "idempotent"];

pub fn tool_decl(
    cx: &mut Ctxt,
    call_site: Span,
    fn_ident: &Ident,
    entries: Vec<Entry>,
) -> Option<ToolDecl> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut name: Option<LitStr> = None;
    let mut payload: Option<PayloadSyntax> = None;
    let mut drops: Option<(Ident, Vec<DropSyntax>)> = None;
    let mut flags: HashMap<String, Ident> = HashMap::new();

    for Entry { key, value } in entries {
        let key_text = key.to_string();
        if is_output_schema(&key_text) {
            cx.error_spanned_by(
                &key,
                format!(
                    "`{key_text}`: a tool declares no output schema. RFC 0276 decision 1: a declared outputSchema obliges structuredContent on every success; a success reply is content-only.\nRemove it: the reply's shape is the return type, and tools.toml records it for review"
                ),
            );
            continue;
        }
        if !seen.insert(key_text.clone()) {
            cx.error_spanned_by(&key, format!("`{key_text}` is given twice; keep one"));
            continue;
        }
        match (key_text.as_str(), value) {
            (flag, Value::Flag) if FLAGS.contains(&flag) => {
                flags.insert(key_text.clone(), key);
            }
            (flag, _) if FLAGS.contains(&flag) => {
                cx.error_spanned_by(&key, format!("`{flag}` is a flag: write `{flag}` alone, without a value"));
            }
            ("name", Value::Assign(tokens)) => match syn::parse2::<LitStr>(tokens.clone()) {
                Ok(lit) => name = Some(lit),
                Err(_) => cx.error_spanned_by(tokens, "`name` is a string: `name = \"...\"`"),
            },
            ("payload", Value::Assign(tokens)) => payload = attr::parse_payload(cx, tokens),
            ("drops", Value::List(group)) => drops = Some((key, attr::parse_drops(cx, &group))),
            ("name" | "payload", _) => {
                cx.error_spanned_by(&key, format!("expected `{key_text} = ...`"));
            }
            ("drops", _) => cx.error_spanned_by(&key, "expected `drops(FIELD = arg, FIELD = \"where else the caller gets it\", ...)`"),
            ("description" | "desc" | "doc", _) => cx.error_spanned_by(
                &key,
                "the description is the handler's doc comment: write it as `///` lines above the fn",
            ),
            ("title", _) => cx.error_spanned_by(
                &key,
                "a tool sends no title: a host shows a tool without one by its name, the doc comment says what it does, and a title would cost every `tools/list` a few tokens more per tool. Remove it",
            ),
            ("annotations", _) => cx.error_spanned_by(&key, "annotations are the flags `read_only`, `destructive`, `idempotent`, written alone"),
            (_, _) => cx.error_spanned_by(&key, format!("unknown key `{key_text}`; the keys are {KEYS}")),
        }
    }

    if let (Some(_), Some(destructive)) = (flags.get("read_only"), flags.get("destructive")) {
        cx.error_spanned_by(
            destructive,
            "a tool cannot be both `read_only` and `destructive`: a read-only tool changes nothing, so it destroys nothing",
        );
    }

    let name = match name {
        Some(lit) => {
            let value = lit.value();
            if value.is_empty() {
                cx.error_spanned_by(
                    &lit,
                    "the tool name is empty; leave `name` out to use the fn's name",
                );
            } else if !valid_tool_name(&value) {
                cx.error_spanned_by(
                    &lit,
                    format!("`{value}` is not a valid tool name: MCP tool names are 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`"),
                );
            }
            value
        }
        None => {
            let value = fn_ident.to_string();
            value.strip_prefix("r#").unwrap_or(&value).to_owned()
        }
    };

    let payload = match payload {
        Some(PayloadSyntax::Json) => Some(PayloadDecl::Json),
        Some(PayloadSyntax::Markdown { kind, field, cut }) => {
            if let Some(cut) = cut.as_ref().filter(|cut| **cut == field) {
                cx.error_spanned_by(
                    cut,
                    format!("`{cut}` is the markdown itself; `cut` names the other field, which says where a cut slice continues"),
                );
            }
            Some(PayloadDecl::Markdown { kind, field, cut })
        }
        None if !seen.contains("payload") => {
            cx.error_at(
                call_site,
                "a tool needs `payload = json` (the whole output as compact JSON) or `payload = markdown(FIELD)` (only that String field, as raw markdown)",
            );
            None
        }
        None => None,
    };

    let drops = match (drops, &payload) {
        (None, _) => Vec::new(),
        (Some((key, _)), Some(PayloadDecl::Json)) => {
            cx.error_spanned_by(
                &key,
                "`drops` applies only to `payload = markdown(FIELD)`: a json payload sends every field, so it drops nothing",
            );
            Vec::new()
        }
        (Some((_, drops)), _) => {
            check_drops(cx, &drops, payload.as_ref());
            drops
        }
    };

    Some(ToolDecl {
        name,
        payload: payload?,
        drops,
        read_only: flags.contains_key("read_only"),
        destructive: flags.contains_key("destructive"),
        idempotent: flags.contains_key("idempotent"),
    })
}

fn check_drops(cx: &mut Ctxt, drops: &[DropSyntax], payload: Option<&PayloadDecl>) {
    let mut seen: Vec<String> = Vec::new();
    for drop in drops {
        let field = drop.field.to_string();
        if seen.contains(&field) {
            cx.error_spanned_by(&drop.field, format!("`{field}` is dropped twice; keep one"));
        }
        seen.push(field.clone());
        if let Some(PayloadDecl::Markdown {
            field: markdown,
            cut,
            ..
        }) = payload
        {
            if *markdown == field {
                cx.error_spanned_by(
                    &drop.field,
                    format!("`{field}` is the markdown payload itself; it is sent, not dropped"),
                );
            }
            if cut.as_ref().is_some_and(|cut| *cut == field) {
                cx.error_spanned_by(
                    &drop.field,
                    format!("`{field}` is the payload's `cut`: it is sent after the markdown, not dropped"),
                );
            }
        }
        if let WhySyntax::Elsewhere(lit) = &drop.why
            && lit.value().trim().is_empty()
        {
            cx.error_spanned_by(
                lit,
                format!("the justification for dropping `{field}` is empty: say where else the caller gets it, or write `{field} = arg` if the caller sent it"),
            );
        }
    }
}

/// Any spelling of an output schema: `output_schema`, `outputSchema`, `returns_schema`, ...
fn is_output_schema(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key == "output"
        || key == "outputs"
        || key.contains("schema")
            && ["output", "return", "result", "reply", "response"]
                .iter()
                .any(|w| key.contains(w))
}

pub fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
}
