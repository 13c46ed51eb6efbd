//! The syntax of `#[tool(...)]`: a comma-separated list of `key`, `key = value` and
//! `key(list)` entries. Each entry is parsed on its own so that one malformed entry does not
//! hide the errors of the others.

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use syn::LitStr;

use crate::ctxt::Ctxt;

/// One `#[tool]` entry as written.
pub struct Entry {
    pub key: Ident,
    pub value: Value,
}

pub enum Value {
    /// `read_only`
    Flag,
    /// `name = "..."`, `payload = markdown(md)`: the tokens after `=`.
    Assign(TokenStream),
    /// `drops(...)`
    List(Group),
}

/// The parsed form of `payload = ...`.
pub enum PayloadSyntax {
    Json,
    /// `markdown(FIELD)` or `markdown(FIELD, cut = CUT)`.
    Markdown {
        kind: Ident,
        field: Ident,
        cut: Option<Ident>,
    },
}

/// One `FIELD = arg` or `FIELD = "where else"` of `drops(...)`.
pub struct DropSyntax {
    pub field: Ident,
    pub why: WhySyntax,
}

pub enum WhySyntax {
    Arg(Ident),
    Elsewhere(LitStr),
}

pub fn parse_entries(cx: &mut Ctxt, tokens: TokenStream) -> Vec<Entry> {
    split_commas(tokens)
        .into_iter()
        .filter_map(|segment| parse_entry(cx, segment))
        .collect()
}

fn parse_entry(cx: &mut Ctxt, segment: Vec<TokenTree>) -> Option<Entry> {
    let mut tokens = segment.into_iter();
    let key = match tokens.next()? {
        TokenTree::Ident(key) => key,
        other => {
            cx.error_spanned_by(
                &other,
                "expected a key such as `payload`, `name` or `read_only`",
            );
            return None;
        }
    };
    let value = match tokens.next() {
        None => Value::Flag,
        Some(TokenTree::Punct(p)) if p.as_char() == '=' => {
            let rest: TokenStream = tokens.collect();
            if rest.is_empty() {
                cx.error_at(p.span(), format!("`{key} =` needs a value"));
                return None;
            }
            return Some(Entry {
                key,
                value: Value::Assign(rest),
            });
        }
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => Value::List(g),
        Some(other) => {
            cx.error_spanned_by(
                &other,
                format!("expected `,`, `=` or `(...)` after `{key}`"),
            );
            return None;
        }
    };
    if let Some(extra) = tokens.next() {
        cx.error_spanned_by(&extra, "expected `,` here");
    }
    Some(Entry { key, value })
}

/// `json` or `markdown(FIELD)`.
pub fn parse_payload(cx: &mut Ctxt, tokens: TokenStream) -> Option<PayloadSyntax> {
    const EXPECTED: &str = "the payload is `json` (the whole output as compact JSON) or `markdown(FIELD)` (only that String field, as raw markdown), optionally `markdown(FIELD, cut = CUT)` (and the field CUT, when a slice was cut, as JSON after it)";
    let mut iter = tokens.clone().into_iter();
    let kind = match iter.next() {
        Some(TokenTree::Ident(kind)) => kind,
        _ => {
            cx.error_spanned_by(tokens, format!("unknown payload kind: {EXPECTED}"));
            return None;
        }
    };
    let field = iter.next();
    if let Some(extra) = iter.next() {
        cx.error_spanned_by(
            &extra,
            format!("unexpected token after the payload: {EXPECTED}"),
        );
        return None;
    }
    match (kind.to_string().as_str(), field) {
        ("json", None) => Some(PayloadSyntax::Json),
        ("json", Some(args)) => {
            cx.error_spanned_by(&args, "`json` takes no field: the whole output is sent");
            None
        }
        ("markdown", Some(TokenTree::Group(g))) if g.delimiter() == Delimiter::Parenthesis => {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            match inner.as_slice() {
                [TokenTree::Ident(field)] => Some(PayloadSyntax::Markdown {
                    kind,
                    field: field.clone(),
                    cut: None,
                }),
                [
                    TokenTree::Ident(field),
                    TokenTree::Punct(comma),
                    TokenTree::Ident(key),
                    TokenTree::Punct(eq),
                    TokenTree::Ident(cut),
                ] if comma.as_char() == ',' && key == "cut" && eq.as_char() == '=' => {
                    Some(PayloadSyntax::Markdown {
                        kind,
                        field: field.clone(),
                        cut: Some(cut.clone()),
                    })
                }
                _ => {
                    cx.error_at(g.span(), "write `markdown(FIELD)` with the name of the return type's String field that holds the markdown, or `markdown(FIELD, cut = CUT)` with the field that says where a cut slice continues");
                    None
                }
            }
        }
        ("markdown", _) => {
            cx.error_spanned_by(
                &kind,
                "`markdown` needs the field that holds the markdown: `markdown(FIELD)`",
            );
            None
        }
        (other, _) => {
            cx.error_spanned_by(&kind, format!("unknown payload kind `{other}`: {EXPECTED}"));
            None
        }
    }
}

/// The items of `drops(...)`.
pub fn parse_drops(cx: &mut Ctxt, list: &Group) -> Vec<DropSyntax> {
    const EXPECTED: &str = "each dropped field is `FIELD = arg` (the caller sent it) or `FIELD = \"where else the caller gets it\"`";
    let mut drops = Vec::new();
    for segment in split_commas(list.stream()) {
        let span_tokens: TokenStream = segment.iter().cloned().collect();
        match segment.as_slice() {
            [TokenTree::Ident(field), TokenTree::Punct(eq), why] if eq.as_char() == '=' => {
                let why = match why {
                    TokenTree::Ident(arg) if arg == "arg" => WhySyntax::Arg(arg.clone()),
                    TokenTree::Literal(_) => match syn::parse2::<LitStr>(why.clone().into()) {
                        Ok(lit) => WhySyntax::Elsewhere(lit),
                        Err(_) => {
                            cx.error_spanned_by(
                                why,
                                format!("expected `arg` or a string: {EXPECTED}"),
                            );
                            continue;
                        }
                    },
                    _ => {
                        cx.error_spanned_by(why, format!("expected `arg` or a string: {EXPECTED}"));
                        continue;
                    }
                };
                drops.push(DropSyntax {
                    field: field.clone(),
                    why,
                });
            }
            [TokenTree::Ident(field)] => cx.error_spanned_by(
                field,
                format!("`{field}` is dropped without a justification: {EXPECTED}"),
            ),
            _ => cx.error_spanned_by(span_tokens, EXPECTED),
        }
    }
    drops
}

fn split_commas(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut segments = vec![Vec::new()];
    for token in tokens {
        match &token {
            TokenTree::Punct(p) if p.as_char() == ',' => segments.push(Vec::new()),
            _ => {
                if let Some(last) = segments.last_mut() {
                    last.push(token);
                }
            }
        }
    }
    segments.retain(|s| !s.is_empty());
    segments
}
