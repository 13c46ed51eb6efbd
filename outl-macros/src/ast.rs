//! The items the macros read: a handler fn (`#[tool]`) and a struct (`ToolFields`).

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::{
    Attribute, Expr, FnArg, GenericArgument, ItemFn, Lit, Meta, PathArguments, ReturnType, Type,
};

use crate::ctxt::Ctxt;

/// The refusal of a handler signature: what is wrong, then what is expected.
fn signature_error(why: &str) -> String {
    format!(
        "a handler whose signature the registry cannot call: {why}.\n\
         expected `fn NAME(cx: &Context, args: ArgsType) -> Result<OutputType, ErrorType>`, where Context \
         and ErrorType are those of a `Server`, ArgsType derives Deserialize, JsonSchema and ToolFields, \
         OutputType derives Serialize, and ErrorType implements ToolError"
    )
}

/// A handler whose signature the registry can call.
pub struct Handler<'a> {
    pub item: &'a ItemFn,
    /// What the first parameter borrows.
    pub context: &'a Type,
    pub args: &'a Type,
    pub output: &'a Type,
    pub error: &'a Type,
    pub description: Option<String>,
}

impl<'a> Handler<'a> {
    pub fn from_fn(cx: &mut Ctxt, item: &'a ItemFn) -> Option<Handler<'a>> {
        let sig = &item.sig;
        let refuse = |cx: &mut Ctxt, tokens: &dyn ToTokens, why: &str| {
            cx.error_spanned_by(tokens.to_token_stream(), signature_error(why))
        };
        if let Some(asyncness) = &sig.asyncness {
            refuse(
                cx,
                asyncness,
                "it is `async`, and handlers are synchronous (a server runs each call on a blocking thread, where a handler may do blocking I/O)",
            );
        }
        if !sig.generics.params.is_empty() {
            refuse(
                cx,
                &sig.generics,
                "it is generic, and the registry calls one concrete fn",
            );
        }
        if let Some(variadic) = &sig.variadic {
            refuse(cx, variadic, "it is variadic");
        }
        let inputs: Vec<&FnArg> = sig.inputs.iter().collect();
        let (context, args) = match inputs.as_slice() {
            [context, args] => {
                let context = match context {
                    FnArg::Typed(pat) => match &*pat.ty {
                        Type::Reference(r) if r.mutability.is_none() => Some(&*r.elem),
                        other => {
                            refuse(
                                cx,
                                other,
                                "its first parameter must be the context the tools run in, borrowed shared: `&Context`",
                            );
                            None
                        }
                    },
                    FnArg::Receiver(receiver) => {
                        refuse(
                            cx,
                            receiver,
                            "it takes `self`, and handlers are free functions",
                        );
                        None
                    }
                };
                let args = match args {
                    FnArg::Typed(pat) => match &*pat.ty {
                        Type::Reference(r) => {
                            refuse(
                                cx,
                                r,
                                "its arguments parameter must be an owned type, decoded from the call's JSON",
                            );
                            None
                        }
                        ty => Some(ty),
                    },
                    FnArg::Receiver(receiver) => {
                        refuse(
                            cx,
                            receiver,
                            "it takes `self`, and handlers are free functions",
                        );
                        None
                    }
                };
                (context, args)
            }
            _ => {
                let why = format!(
                    "it takes {} parameter{}, not 2",
                    inputs.len(),
                    if inputs.len() == 1 { "" } else { "s" }
                );
                if inputs.is_empty() {
                    cx.error_at(sig.paren_token.span.join(), signature_error(&why));
                } else {
                    refuse(cx, &sig.inputs, &why);
                }
                (None, None)
            }
        };
        let result = match &sig.output {
            ReturnType::Type(_, ty) => match result_types(ty) {
                Some(types) => Some(types),
                None => {
                    refuse(
                        cx,
                        ty,
                        "it must return `Result<_, ErrorType>`, whose error becomes the tool's error reply",
                    );
                    None
                }
            },
            ReturnType::Default => {
                refuse(
                    cx,
                    &sig.ident,
                    "it returns nothing; it must return `Result<_, _>`",
                );
                None
            }
        };
        let description = doc_text(&item.attrs);
        if description.is_none() {
            cx.error_spanned_by(
                &sig.ident,
                "a tool needs a doc comment: it becomes the tool's description, which is what the model reads to decide when to call it",
            );
        }
        let (output, error) = result?;
        Some(Handler {
            item,
            context: context?,
            args: args?,
            output,
            error,
            description,
        })
    }
}

/// `T` and `E` of `Result<T, E>` (any path ending in `Result` with two type arguments): the
/// error type is read where it is written, as the tool's error type.
fn result_types(ty: &Type) -> Option<(&Type, &Type)> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|arg| match arg {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    match (types.next(), types.next(), types.next()) {
        (Some(output), Some(error), None) => Some((output, error)),
        _ => None,
    }
}

/// The doc comment as one text: lines joined into paragraphs, paragraphs and list items kept.
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(lit) => match &lit.lit {
                    Lit::Str(s) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        // `split`, not `lines`: an empty `///` line is a paragraph break and must stay a line.
        .flat_map(|chunk| {
            chunk
                .split('\n')
                .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    let mut text = String::new();
    for line in lines.iter().map(|l| l.as_str()) {
        let starts_item = line.starts_with("- ")
            || line.starts_with("* ")
            || line
                .split_once(". ")
                .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty());
        if line.is_empty() {
            if !text.is_empty() && !text.ends_with("\n\n") {
                text.push_str("\n\n");
            }
        } else if text.is_empty() || text.ends_with("\n\n") {
            text.push_str(line);
        } else if starts_item {
            text.push('\n');
            text.push_str(line);
        } else {
            text.push(' ');
            text.push_str(line.trim_start());
        }
    }
    let text = text.trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// A type as written, spaced the way people write it: `Option<u32>`, `Vec<(String, u32)>`.
pub fn type_text(ty: &Type) -> String {
    let mut out = String::new();
    write_tokens(&mut out, ty.to_token_stream());
    out
}

fn write_tokens(out: &mut String, tokens: TokenStream) {
    let mut after_word = false;
    for token in tokens {
        match token {
            TokenTree::Ident(ident) => {
                if after_word {
                    out.push(' ');
                }
                out.push_str(&ident.to_string());
                after_word = true;
            }
            TokenTree::Literal(lit) => {
                if after_word {
                    out.push(' ');
                }
                out.push_str(&lit.to_string());
                after_word = true;
            }
            TokenTree::Punct(p) => {
                match p.as_char() {
                    ',' | ';' => out.push_str(&format!("{} ", p.as_char())),
                    '+' | '=' => out.push_str(&format!(" {} ", p.as_char())),
                    c => out.push(c),
                }
                after_word = false;
            }
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::Brace => ("{", "}"),
                    proc_macro2::Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_tokens(out, g.stream());
                out.push_str(close);
                after_word = false;
            }
        }
    }
}

/// One field of a `ToolFields` struct.
pub struct FieldInfo {
    pub wire_name: String,
    pub ty: String,
    pub is_string: bool,
    pub documented: bool,
}

/// Whether a type is written `String` (or a path to std's).
pub fn is_string(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    if path.qself.is_some() {
        return false;
    }
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    matches!(
        names
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["String"] | ["std" | "alloc", "string", "String"]
    ) && path.path.segments.iter().all(|s| s.arguments.is_none())
}

/// A struct deriving `ToolFields`, its fields named as on the wire.
pub struct FieldsInput<'a> {
    pub input: &'a syn::DeriveInput,
    pub fields: Vec<FieldInfo>,
}

impl<'a> FieldsInput<'a> {
    pub fn from_derive(cx: &mut Ctxt, input: &'a syn::DeriveInput) -> Option<FieldsInput<'a>> {
        let named = match &input.data {
            syn::Data::Struct(data) => match &data.fields {
                syn::Fields::Named(named) => Some(named.named.iter().collect::<Vec<_>>()),
                syn::Fields::Unit => Some(Vec::new()),
                syn::Fields::Unnamed(_) => None,
            },
            _ => None,
        };
        let Some(named) = named else {
            cx.error_spanned_by(
                &input.ident,
                "ToolFields lists the named fields of a struct: tool arguments are a JSON object, and a markdown payload is a field of one",
            );
            return None;
        };
        let rename_all = container_rename_all(cx, &input.attrs);
        let mut fields = Vec::new();
        for field in named {
            let Some(ident) = &field.ident else { continue };
            let rust_name = ident.to_string();
            let rust_name = rust_name.strip_prefix("r#").unwrap_or(&rust_name);
            let serde = field_serde(cx, &field.attrs);
            if serde.skip {
                continue;
            }
            let wire_name = match (serde.rename, rename_all) {
                (Some(name), _) => name,
                (None, Some(rule)) => rule.apply(rust_name),
                (None, None) => rust_name.to_owned(),
            };
            fields.push(FieldInfo {
                wire_name,
                ty: type_text(&field.ty),
                is_string: is_string(&field.ty),
                documented: doc_text(&field.attrs).is_some()
                    || has_schemars_description(&field.attrs),
            });
        }
        (!cx.has_errors()).then_some(FieldsInput { input, fields })
    }
}

/// serde's `rename_all` rules, applied to a snake_case field name as serde does.
#[derive(Clone, Copy)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    const ALL: [(&'static str, RenameRule); 8] = [
        ("lowercase", RenameRule::Lower),
        ("UPPERCASE", RenameRule::Upper),
        ("PascalCase", RenameRule::Pascal),
        ("camelCase", RenameRule::Camel),
        ("snake_case", RenameRule::Snake),
        ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
        ("kebab-case", RenameRule::Kebab),
        ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
    ];

    pub fn apply(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => field
                .split('_')
                .map(|word| {
                    let mut chars = word.chars();
                    chars
                        .next()
                        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                        .unwrap_or_default()
                })
                .collect(),
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply(field);
                let mut chars = pascal.chars();
                chars
                    .next()
                    .map(|c| c.to_ascii_lowercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

#[derive(Default)]
struct FieldSerde {
    rename: Option<String>,
    skip: bool,
}

fn container_rename_all(cx: &mut Ctxt, attrs: &[Attribute]) -> Option<RenameRule> {
    let mut rule = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                if !meta.input.peek(syn::Token![=]) {
                    cx.error_spanned_by(&meta.path, "ToolFields needs one wire name per field: use `rename_all = \"...\"`, not separate serialize/deserialize rules");
                    return skip_meta_value(&meta);
                }
                let lit: syn::LitStr = meta.value()?.parse()?;
                match RenameRule::ALL.iter().find(|(name, _)| *name == lit.value()) {
                    Some((_, r)) => rule = Some(*r),
                    None => cx.error_spanned_by(&lit, "unknown rename_all rule"),
                }
                return Ok(());
            }
            if meta.path.is_ident("transparent") || meta.path.is_ident("untagged") {
                cx.error_spanned_by(&meta.path, "ToolFields lists the fields of a JSON object; this serde representation is not one");
            }
            skip_meta_value(&meta)
        });
        if let Err(e) = parsed {
            cx.syn_error(e);
        }
    }
    rule
}

fn field_serde(cx: &mut Ctxt, attrs: &[Attribute]) -> FieldSerde {
    let mut serde = FieldSerde::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let parsed = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match key.as_str() {
                "rename" if meta.input.peek(syn::Token![=]) => {
                    let lit: syn::LitStr = meta.value()?.parse()?;
                    serde.rename = Some(lit.value());
                    Ok(())
                }
                "rename" => {
                    cx.error_spanned_by(&meta.path, "ToolFields needs one wire name per field: use `rename = \"...\"`, not separate serialize/deserialize names");
                    skip_meta_value(&meta)
                }
                "skip" => {
                    serde.skip = true;
                    Ok(())
                }
                "skip_serializing" | "skip_deserializing" => {
                    cx.error_spanned_by(&meta.path, format!("ToolFields cannot tell whether a `{key}` field is on the wire: use `skip`, or `skip_serializing_if` for a field that is sometimes absent"));
                    Ok(())
                }
                "flatten" => {
                    cx.error_spanned_by(&meta.path, "ToolFields cannot see the fields a `flatten` brings in: write them out in this struct");
                    Ok(())
                }
                _ => skip_meta_value(&meta),
            }
        });
        if let Err(e) = parsed {
            cx.syn_error(e);
        }
    }
    serde
}

/// Consume `= value` or `(...)` of a serde key ToolFields does not care about.
fn skip_meta_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}

fn has_schemars_description(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("schemars"))
        .any(|attr| {
            let mut found = false;
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("description") {
                    found = true;
                }
                skip_meta_value(&meta)
            });
            found
        })
}
