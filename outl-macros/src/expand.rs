//! Code generation. Runtime items are named by absolute path, `::outl_registry::...`, or
//! through the path a `crate = "..."` gives, as serde's `#[serde(crate = "...")]` works: for a
//! crate that re-exports the runtime, or the runtime's own tests.

use std::path::Path;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, ItemFn, Token, Visibility};

use crate::ast::{FieldsInput, Handler, type_text};
use crate::attr::{self, Entry, Value, WhySyntax};
use crate::check::{self, PayloadDecl, ToolDecl};
use crate::contract::ContractFile;
use crate::ctxt::Ctxt;

/// The runtime crate, as generated code names it unless told otherwise.
fn default_runtime() -> TokenStream {
    quote!(::outl_registry)
}

/// The path of `crate = "path"`, the one way each macro is told where the runtime is.
fn runtime_path(cx: &mut Ctxt, lit: &syn::LitStr) -> Option<TokenStream> {
    match lit.parse::<syn::Path>() {
        Ok(path) => Some(path.to_token_stream()),
        Err(_) => {
            cx.error_spanned_by(lit, "`crate` is the path of the runtime crate, as a string: `crate = \"my_crate::registry\"`");
            None
        }
    }
}

/// `crate = "path"` of an attribute of the derive or of `registry!` (`#[NAME(crate = "...")]`),
/// which the macro consumes.
fn runtime_of_attrs(cx: &mut Ctxt, attrs: &mut Vec<Attribute>, name: &str) -> TokenStream {
    let mut runtime = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident(name)) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                runtime = runtime_path(cx, &lit).or(runtime.take());
                Ok(())
            } else {
                Err(meta.error(format!(
                    "the only key of #[{name}(...)] is `crate = \"...\"`"
                )))
            }
        });
        if let Err(e) = parsed {
            cx.syn_error(e);
        }
    }
    attrs.retain(|a| !a.path().is_ident(name));
    runtime.unwrap_or_else(default_runtime)
}

/// `crate = "path"` of `#[tool(...)]`, taken out of its entries.
fn runtime_of_entries(cx: &mut Ctxt, entries: &mut Vec<Entry>) -> TokenStream {
    let mut runtime = None;
    entries.retain(|entry| {
        if entry.key != "crate" {
            return true;
        }
        match &entry.value {
            Value::Assign(tokens) => match syn::parse2::<syn::LitStr>(tokens.clone()) {
                Ok(lit) => runtime = runtime_path(cx, &lit).or(runtime.take()),
                Err(_) => cx.error_spanned_by(
                    tokens,
                    "`crate` is a string: `crate = \"path::to::runtime\"`",
                ),
            },
            _ => cx.error_spanned_by(&entry.key, "expected `crate = \"path::to::runtime\"`"),
        }
        false
    });
    runtime.unwrap_or_else(default_runtime)
}

pub fn tool(attr: TokenStream, item: TokenStream, source: Option<&Path>) -> TokenStream {
    let item_fn: ItemFn = match syn::parse2(item.clone()) {
        Ok(item_fn) => item_fn,
        Err(_) => {
            let error = syn::Error::new(
                Span::call_site(),
                "#[tool] goes on a handler fn: `fn NAME(cx: &Context, args: ArgsType) -> Result<OutputType, ErrorType>`",
            );
            let error = error.to_compile_error();
            return quote!(#item #error);
        }
    };
    let mut cx = Ctxt::default();
    let mut entries = attr::parse_entries(&mut cx, attr);
    let rt = runtime_of_entries(&mut cx, &mut entries);
    let handler = Handler::from_fn(&mut cx, &item_fn);
    let decl = check::tool_decl(&mut cx, Span::call_site(), &item_fn.sig.ident, entries);
    let contract = ContractFile::load(source)
        .map_err(|e| cx.error_at(Span::call_site(), e))
        .ok();
    match (handler, decl, contract) {
        (Some(handler), Some(decl), Some(contract)) if !cx.has_errors() => {
            expand_tool(&rt, &handler, &decl, &contract)
        }
        _ => {
            let errors = cx.to_compile_errors();
            let stand_in = stand_in(&rt, &item_fn);
            quote!(#item_fn #errors #stand_in)
        }
    }
}

/// What takes the place of a tool the macro refused: the struct `registry!` lists and the
/// traits it asks for, for any server, so that the item's errors are the only ones.
/// It is never called: the build has already failed.
fn stand_in(rt: &TokenStream, item: &ItemFn) -> TokenStream {
    let vis = &item.vis;
    let fn_ident = &item.sig.ident;
    let name = fn_ident.to_string();
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #fn_ident {}

        impl #rt::Tool for #fn_ident {
            const SPEC: #rt::ToolSpec = #rt::ToolSpec {
                name: #name,
                description: "",
                payload: #rt::Payload::Json,
                drops: &[],
                annotations: #rt::Annotations { read_only: false, destructive: false, idempotent: false },
                params: &[],
            };
            const STAND_IN: bool = true;

            fn input_schema() -> &'static #rt::Map<::std::string::String, #rt::Value> {
                ::core::unreachable!()
            }
        }

        impl<S: #rt::Server> #rt::CallTool<S> for #fn_ident {
            fn call(_: &S::Context, _: #rt::Value) -> #rt::CallResult<S> {
                ::core::unreachable!()
            }
        }
    }
}

fn expand_tool(
    rt: &TokenStream,
    handler: &Handler<'_>,
    decl: &ToolDecl,
    contract: &ContractFile,
) -> TokenStream {
    let item = handler.item;
    let vis = &item.vis;
    let fn_ident = &item.sig.ident;
    let (context, args, output, error) =
        (handler.context, handler.args, handler.output, handler.error);
    let (args_text, output_text) = (type_text(args), type_text(output));
    let name = &decl.name;
    let description = handler.description.as_deref().unwrap_or_default();
    let annotations = {
        let (read_only, destructive, idempotent) =
            (decl.read_only, decl.destructive, decl.idempotent);
        quote!(#rt::Annotations { read_only: #read_only, destructive: #destructive, idempotent: #idempotent })
    };
    let payload = match &decl.payload {
        PayloadDecl::Json => quote!(#rt::Payload::Json),
        PayloadDecl::Markdown { field, cut, .. } => {
            let field = field.to_string();
            let cut = match cut {
                Some(cut) => {
                    let cut = cut.to_string();
                    quote!(::core::option::Option::Some(#cut))
                }
                None => quote!(::core::option::Option::None),
            };
            quote!(#rt::Payload::Markdown { field: #field, cut: #cut })
        }
    };
    let drops = decl.drops.iter().map(|drop| {
        let field = drop.field.to_string();
        let why = match &drop.why {
            WhySyntax::Arg(_) => quote!(#rt::Justification::Arg),
            WhySyntax::Elsewhere(lit) => quote!(#rt::Justification::Elsewhere(#lit)),
        };
        quote!(#rt::DroppedField { field: #field, why: #why })
    });
    let arg_drops: Vec<String> = decl
        .drops
        .iter()
        .filter(|d| matches!(d.why, WhySyntax::Arg(_)))
        .map(|d| d.field.to_string())
        .collect();
    let (record_sent, check_sent) = if arg_drops.is_empty() {
        (quote!(), quote!())
    } else {
        (
            quote! {
                #[cfg(debug_assertions)]
                let sent = #rt::checks::sent_args(&args, &[#(#arg_drops),*]);
            },
            quote! {
                #[cfg(debug_assertions)]
                #rt::checks::assert_args_returned(
                    #name,
                    &[#(#arg_drops),*],
                    &sent,
                    &#rt::output_to_value::<_, #error>(#name, &output)?,
                );
            },
        )
    };

    // The field lists are read once, as inherent consts of the tool's struct, so that a type
    // without `ToolFields` is reported once, at the type, and not by every check using it.
    let args_fields = quote!(#fn_ident::ARGS_FIELDS);
    let output_fields = quote!(#fn_ident::OUTPUT_FIELDS);
    let mut field_lists = vec![quote_spanned! {first_span(args)=>
        const ARGS_FIELDS: &'static [#rt::Field] = <#args as #rt::ToolFields>::FIELDS;
    }];
    // What the server says of every tool is known where a registry names the server: this
    // check is the tool's `CallTool::CHECKED`, which the registry's entry evaluates.
    let server_checks = panic_unless_empty(
        first_span(args),
        quote!(#rt::checks::documented_args(#name, #args_text, #args_fields, <S as #rt::Server>::SHARED_ARGS)),
    );
    let mut checks = Vec::new();
    if let PayloadDecl::Markdown { kind, field, cut } = &decl.payload {
        field_lists.push(quote_spanned! {first_span(output)=>
            const OUTPUT_FIELDS: &'static [#rt::Field] = <#output as #rt::ToolFields>::FIELDS;
        });
        let field_text = field.to_string();
        checks.push(const_check(
            field.span(),
            quote!(#rt::checks::markdown_field(#name, #output_text, #output_fields, #field_text)),
        ));
        // The cut is sent, so it is accounted for as the dropped fields are.
        let dropped = decl
            .drops
            .iter()
            .map(|d| d.field.to_string())
            .chain(cut.iter().map(Ident::to_string));
        if let Some(cut) = cut {
            let cut_text = cut.to_string();
            checks.push(const_check(
                cut.span(),
                quote!(#rt::checks::cut_field(#name, #output_text, #output_fields, #cut_text)),
            ));
        }
        checks.push(const_check(
            kind.span(),
            quote!(#rt::checks::undropped_fields(#name, #output_text, #output_fields, #field_text, &[#(#dropped),*])),
        ));
    }
    for drop in &decl.drops {
        let field = drop.field.to_string();
        checks.push(const_check(
            drop.field.span(),
            quote!(#rt::checks::dropped_field(#name, #output_text, #output_fields, #field)),
        ));
        if let WhySyntax::Arg(arg) = &drop.why {
            checks.push(const_check(
                arg.span(),
                quote!(#rt::checks::arg_field(#name, #args_text, #args_fields, #field)),
            ));
        }
    }
    let entry = contract.compare(decl);
    let disagreements = &entry.disagreements;
    let params = match &entry.params {
        Some(params) => {
            let pairs = params.iter().map(|(k, v)| quote!((#k, #v)));
            quote!(::core::option::Option::Some(&[#(#pairs),*]))
        }
        None => quote!(::core::option::Option::None),
    };
    checks.push(const_check(
        fn_ident.span(),
        quote!(#rt::checks::contract(
            &<#fn_ident as #rt::Tool>::SPEC,
            &#rt::checks::Contract { disagreements: &[#(#disagreements),*], params: #params },
        )),
    ));
    let track_contract = track_file(&contract.path);
    let doc = format!("The MCP tool `{name}`, whose handler is the fn of the same name.");

    quote! {
        #item

        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #vis struct #fn_ident {}

        impl #fn_ident {
            #(#field_lists)*
        }

        impl #rt::Tool for #fn_ident {
            const SPEC: #rt::ToolSpec = #rt::ToolSpec {
                name: #name,
                description: #description,
                payload: #payload,
                drops: &[#(#drops),*],
                annotations: #annotations,
                params: #fn_ident::ARGS_FIELDS,
            };

            fn input_schema() -> &'static #rt::Map<::std::string::String, #rt::Value> {
                static SCHEMA: ::std::sync::OnceLock<#rt::Map<::std::string::String, #rt::Value>> =
                    ::std::sync::OnceLock::new();
                #rt::cached_input_schema::<#args>(&SCHEMA)
            }
        }

        impl<S: #rt::Server<Context = #context, Error = #error>> #rt::CallTool<S> for #fn_ident {
            const CHECKED: () = #server_checks;

            fn call(
                cx: &#context,
                args: #rt::Value,
            ) -> ::core::result::Result<#rt::Reply<#error>, #error> {
                #record_sent
                let args: #args = #rt::decode_args::<#args, #error>(<Self as #rt::Tool>::input_schema(), args)?;
                let output = #fn_ident(cx, args)?;
                #check_sent
                ::core::result::Result::Ok(#rt::Reply::new::<S, _>(#name, <Self as #rt::Tool>::SPEC.payload, output))
            }
        }

        #(#checks)*
        #track_contract
    }
}

/// The span of the first token: enough for the caret to land on the type.
fn first_span(tokens: &impl ToTokens) -> Span {
    tokens
        .to_token_stream()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span())
}

/// A `const` that fails compilation, at `span`, with the message `call` returns (if any).
fn const_check(span: Span, call: TokenStream) -> TokenStream {
    let check = panic_unless_empty(span, call);
    quote_spanned! {span=> const _: () = #check; }
}

/// A block, for a `const`'s value, that panics at `span` with the message `call` returns (if
/// any).
fn panic_unless_empty(span: Span, call: TokenStream) -> TokenStream {
    quote_spanned! {span=>
        {
            let message = #call;
            if !message.is_empty() {
                ::core::panic!("{}", message.as_str())
            }
        }
    }
}

/// Make cargo rebuild the crate when `tools.toml` changes.
fn track_file(path: &Path) -> TokenStream {
    let path = path.to_string_lossy();
    quote!(
        const _: &[u8] = ::core::include_bytes!(#path);
    )
}

/// `#(#attrs)* #vis static NAME: Registry<Server> = [path, ...];`
struct RegistryInput {
    attrs: Vec<Attribute>,
    vis: Visibility,
    ident: Ident,
    ty: syn::Type,
    tools: Punctuated<syn::Path, Token![,]>,
}

impl Parse for RegistryInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        input.parse::<Token![static]>()?;
        let ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let ty = input.parse()?;
        input.parse::<Token![=]>()?;
        let list;
        syn::bracketed!(list in input);
        let tools = list.parse_terminated(syn::Path::parse, Token![,])?;
        if !input.is_empty() {
            input.parse::<Token![;]>()?;
        }
        Ok(RegistryInput {
            attrs,
            vis,
            ident,
            ty,
            tools,
        })
    }
}

pub fn registry(input: TokenStream, source: Option<&Path>) -> TokenStream {
    let mut input: RegistryInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => {
            let mut e = e;
            e.combine(syn::Error::new(
                Span::call_site(),
                "expected `static NAME: Registry<Server> = [path::to::handler, ...];`",
            ));
            return e.to_compile_error();
        }
    };
    let mut cx = Ctxt::default();
    let rt = runtime_of_attrs(&mut cx, &mut input.attrs, "registry");
    let mut seen: Vec<String> = Vec::new();
    for path in &input.tools {
        let text = path.to_token_stream().to_string().replace(' ', "");
        if seen.contains(&text) {
            cx.error_spanned_by(
                path,
                format!("`{text}` is listed twice; list each handler once"),
            );
        }
        seen.push(text);
    }
    let contract = ContractFile::load(source)
        .map_err(|e| cx.error_at(Span::call_site(), e))
        .ok();
    let (Some(contract), false) = (contract, cx.has_errors()) else {
        return cx.to_compile_errors();
    };

    let RegistryInput {
        attrs,
        vis,
        ident,
        ty,
        tools,
    } = &input;
    let tools: Vec<&syn::Path> = tools.iter().collect();
    let entries = contract.entry_names();
    // A refused tool's stand-in has no name of its own to compare: its errors are the item's.
    let stand_in = quote!(false #(|| <#tools as #rt::Tool>::STAND_IN)*);
    let unique = const_check(
        ident.span(),
        quote!(if #stand_in { #rt::checks::Msg::new() } else { #rt::checks::unique_names(&[#((#seen, <#tools as #rt::Tool>::SPEC.name)),*]) }),
    );
    let orphans = const_check(
        ident.span(),
        quote!(if #stand_in { #rt::checks::Msg::new() } else { #rt::checks::orphan_entries(&[#(<#tools as #rt::Tool>::SPEC.name),*], &[#(#entries),*]) }),
    );
    let track_contract = track_file(&contract.path);
    quote! {
        #(#attrs)*
        #vis static #ident: #ty = #rt::Registry::new(&[#(#rt::ToolEntry::of::<#tools>()),*]);
        #unique
        #orphans
        #track_contract
    }
}

pub fn tool_fields(input: TokenStream) -> TokenStream {
    let mut input: syn::DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut cx = Ctxt::default();
    let rt = runtime_of_attrs(&mut cx, &mut input.attrs, "tool_fields");
    let Some(parsed) = FieldsInput::from_derive(&mut cx, &input) else {
        return cx.to_compile_errors();
    };
    let ident = &parsed.input.ident;
    let (impl_generics, ty_generics, where_clause) = parsed.input.generics.split_for_impl();
    let fields = parsed.fields.iter().map(|f| {
        let (name, ty, is_string, documented) = (&f.wire_name, &f.ty, f.is_string, f.documented);
        quote!(#rt::Field { name: #name, ty: #ty, is_string: #is_string, documented: #documented })
    });
    // `do_not_recommend`: a type missing the derive is told to add it, not shown the list of
    // every type that has it (which grows with each tool).
    quote! {
        #[diagnostic::do_not_recommend]
        impl #impl_generics #rt::ToolFields for #ident #ty_generics #where_clause {
            const FIELDS: &'static [#rt::Field] = &[#(#fields),*];
        }
    }
}
