//! Micro-benchmarks of the hot paths under every call: the outline parser, serializer and
//! inline tokenizer, the RFC 0276 reply projection of a large real reply and the whole read
//! behind it (handler and projection), and the index (build, an edit of a page, and search).
//!
//! Inputs come from `outl-bench gen`'s generator: a 2,862-page workspace under `cargo bench`,
//! 200 pages when `cargo test --all-targets` runs each benchmark once, which keeps CI cheap.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use outl_bench::generate::{self, GeneratedPage};
use outl_format::{self as outline, Document};
use outl_registry::tool_success_payload;
use outl_tools::REGISTRY;
use outl_workspace::{GraphConfig, Index, Page, Workspace};
use serde_json::json;

/// Whether criterion is measuring (`cargo bench`) rather than running each benchmark once
/// as a test, which is what it does without `--bench` or with `--test`.
fn measuring() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test")
}

fn workspace_pages() -> usize {
    if measuring() { 2_862 } else { 200 }
}

fn generated(pages: usize) -> Vec<GeneratedPage> {
    let mut out = Vec::new();
    generate::generate(pages, 1, generate::Styles::CANONICAL, |page| {
        out.push(page);
        Ok(())
    })
    .expect("in-memory generation cannot fail");
    out
}

/// The typical (median-size) and the largest page of a generated workspace.
fn typical_and_largest(pages: &[GeneratedPage]) -> (&GeneratedPage, &GeneratedPage) {
    let mut by_size: Vec<&GeneratedPage> = pages.iter().collect();
    by_size.sort_by_key(|p| p.markdown.len());
    (by_size[by_size.len() / 2], by_size[by_size.len() - 1])
}

fn outline_format(c: &mut Criterion) {
    let pages = generated(workspace_pages());
    let (typical, largest) = typical_and_largest(&pages);
    let mut group = c.benchmark_group("outline");
    for (label, page) in [("typical", typical), ("largest", largest)] {
        group.throughput(Throughput::Bytes(page.markdown.len() as u64));
        group.bench_function(format!("parse/{label}"), |b| {
            b.iter(|| outline::parse(black_box(&page.markdown)))
        });
        let document: Document = outline::parse(&page.markdown);
        group.bench_function(format!("serialize/{label}"), |b| {
            b.iter(|| outline::serialize(black_box(&document)))
        });
        let mut texts = Vec::new();
        collect_texts(&document.blocks, &mut texts);
        group.bench_function(format!("tokenize/{label}"), |b| {
            b.iter(|| {
                texts
                    .iter()
                    .map(|text| outline::tokenize(black_box(text)).len())
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

fn collect_texts<'a>(blocks: &'a [outline::ParsedBlock], out: &mut Vec<&'a str>) {
    for block in blocks {
        out.push(&block.text);
        collect_texts(&block.children, out);
    }
}

/// An opened workspace on disk (the index and the reply need the real engine).
struct Opened {
    _dir: tempfile::TempDir,
    ws: Workspace,
}

fn opened(pages: usize) -> Opened {
    let dir = tempfile::tempdir().expect("a temp folder");
    generate::write_workspace(dir.path(), pages, 1, generate::Styles::CANONICAL).expect("generate");
    let ws = Workspace::open(dir.path()).expect("open the generated workspace");
    Opened { _dir: dir, ws }
}

fn projection(c: &mut Criterion) {
    let opened = opened(workspace_pages());
    let largest = {
        let graph = opened.ws.snapshot();
        graph
            .pages()
            .max_by_key(|p| p.body.count())
            .map(|p| p.slug.clone())
            .expect("pages")
    };
    let tool = REGISTRY.get("outl_page_get").expect("outl_page_get");
    let reply = tool
        .call(&opened.ws, json!({"slug": largest}))
        .expect("read the largest page");
    let mut group = c.benchmark_group("projection");
    let data = reply.data().expect("the reply is JSON");
    group.throughput(Throughput::Bytes(data.to_string().len() as u64));
    group.bench_function("tool_success_payload/largest page_get", |b| {
        b.iter(|| tool_success_payload(black_box(&reply)))
    });
    group.finish();
    // The whole read as the MCP server runs it: the handler, then the projection.
    let mut group = c.benchmark_group("read");
    group.bench_function("page_get largest", |b| {
        b.iter(|| {
            let reply = tool
                .call(&opened.ws, json!({"slug": largest}))
                .expect("read the largest page");
            tool_success_payload(&reply)
        })
    });
    group.finish();
}

fn index(c: &mut Criterion) {
    let opened = opened(workspace_pages());
    let graph = opened.ws.snapshot();
    // The index reads pages open, as the graph hands them to it.
    let open: Vec<Page> = graph
        .pages()
        .map(|page| {
            let mut page = page.clone();
            page.body.open();
            page
        })
        .collect();
    let pages: Vec<&Page> = open.iter().collect();
    let config = GraphConfig::default();
    let mut group = c.benchmark_group("index");
    group.sample_size(10);
    group.throughput(Throughput::Elements(pages.len() as u64));
    // As open builds it: every page at once.
    group.bench_function("build", |b| {
        b.iter(|| Index::build(black_box(&pages), &config))
    });
    // As writes keep it: page by page.
    group.bench_function("update page by page", |b| {
        b.iter(|| {
            let mut index = Index::default();
            for page in &pages {
                index.update(None, Some(page), &config);
            }
            index
        })
    });
    // As a write keeps it: one block's text edited, then edited back, so that every round
    // starts from the same index.
    let mut by_size = pages.clone();
    by_size.sort_by_key(|page| page.body.count());
    let mut index = Index::build(&pages, &config);
    for (name, page) in [
        (
            "edit a block of the median page",
            by_size[by_size.len() / 2],
        ),
        (
            "edit a block of the largest page",
            by_size[by_size.len() - 1],
        ),
    ] {
        let mut edited = page.clone();
        if let Some(block) = edited.blocks_mut().first_mut() {
            block.text.push_str(" and one more budget word");
        }
        group.bench_function(name, |b| {
            b.iter(|| {
                index.update(Some(black_box(page)), Some(&edited), &config);
                index.update(Some(&edited), Some(page), &config);
            })
        });
    }
    group.finish();
    // A search hit or a tag's holder: one block of a packed page, read alone.
    let mut group = c.benchmark_group("packed");
    let largest = graph
        .pages()
        .max_by_key(|page| page.body.count())
        .expect("pages");
    let middle = largest.body.count() / 2;
    group.bench_function("one block of the largest page", |b| {
        b.iter(|| largest.body.block_at(black_box(middle)))
    });
    group.finish();
    let mut group = c.benchmark_group("search");
    for query in ["budget", "clinic invoice", "\"draft plan\"", "zzzz"] {
        // What `outl_search` asks for by default: the first 50 hits and the total.
        group.bench_function(query, |b| {
            b.iter(|| graph.search_page(black_box(query), 0, 50))
        });
        group.bench_function(format!("every hit/{query}"), |b| {
            b.iter(|| graph.search(black_box(query)))
        });
    }
    group.finish();
}

criterion_group!(benches, outline_format, projection, index);
criterion_main!(benches);
