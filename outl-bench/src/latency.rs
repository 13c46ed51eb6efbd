//! `outl-bench latency`: the real binary, driven the way a host drives it.
//!
//! On a scratch copy of the workspace (so that writes are real and the folder given stays as
//! it was): start-up to the first `tools/list` answer and to the first `tools/call` answer
//! (the server answers before its workspace is open; a call waits for the open), cold (no
//! `.outl/` yet) and warm; resident memory after opening against the markdown it holds; p50/p90/p99 of sequential
//! `tools/call`s per class over stdio; pipelined reads over one stdio connection; and
//! concurrent sessions over Streamable HTTP on loopback. Every loop is bounded in count, and
//! each reply in time. The servers are driven with `outl-client`, which reads replies on the
//! calling thread through a buffer, so that a timing is the server's and the pipe's.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{Value, json};

use outl_client::{HttpServer, StdioSession, result_of, tool_call};

use super::memory::Memory;
use super::scratch::Scratch;
use super::stats::{self, Timings};
use outl_workspace::{Block, Page, STATE_DIR, Workspace};

#[derive(Debug, Args)]
pub struct LatencyArgs {
    /// The workspace to measure; it is copied first and the copy takes the writes.
    #[arg(long, short = 'w', value_name = "DIR")]
    workspace: PathBuf,
    /// Timed calls per class (after a few untimed ones).
    #[arg(long, default_value_t = 300)]
    calls: usize,
    /// Warm start-ups to time.
    #[arg(long, default_value_t = 5)]
    startups: usize,
    /// Reads sent at once, without waiting, over one stdio connection.
    #[arg(long, default_value_t = 2_000)]
    pipelined: usize,
    /// Concurrent Streamable HTTP sessions (each on its own connection).
    #[arg(long, default_value_t = 32)]
    http_clients: usize,
    /// Reads per HTTP session.
    #[arg(long, default_value_t = 100)]
    http_calls: usize,
    /// The longest the HTTP run may take, in seconds; sessions stop calling then.
    #[arg(long, default_value_t = 60)]
    http_seconds: u64,
    /// The `outl` binary to drive. By default, the one beside this binary in the same target
    /// folder (`cargo build --release` builds both).
    #[arg(long, value_name = "PATH")]
    outl: Option<PathBuf>,
}

impl LatencyArgs {
    /// The `--outl` binary, or else the `outl` beside this binary.
    fn outl(&self) -> Result<PathBuf, String> {
        if let Some(outl) = &self.outl {
            return Ok(outl.clone());
        }
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
        let beside = exe.with_file_name(format!("outl{}", std::env::consts::EXE_SUFFIX));
        if beside.is_file() {
            Ok(beside)
        } else {
            Err(format!(
                "no outl binary at {}: build it (cargo build --release -p outl-server) or pass --outl PATH",
                beside.display()
            ))
        }
    }
}

/// The longest one reply may take: a hung server ends the run instead of hanging it.
const REPLY_LIMIT: Duration = Duration::from_secs(30 * 60);
/// The longest `outl serve` may take to listen, and one HTTP exchange to be answered.
const HTTP_LIMIT: Duration = Duration::from_secs(120);
/// The protocol version the benchmarks speak.
const PROTOCOL_VERSION: &str = "2025-06-18";
/// The client name they initialize with.
const CLIENT: &str = "outl-bench";
/// Untimed calls per class before the timed ones.
const WARMUP_CALLS: usize = 10;
/// Pages, journals and blocks the calls cycle through.
const SAMPLE: usize = 64;

pub fn run(args: &LatencyArgs) -> Result<(), String> {
    let outl = args.outl()?;
    let load_before = stats::load_average();
    eprintln!("copying {} ...", args.workspace.display());
    let scratch = Scratch::copy_of(&args.workspace)
        .map_err(|e| format!("cannot copy {}: {e}", args.workspace.display()))?;
    let root = scratch.path().to_path_buf();
    let fail = |what: &str| {
        let what = what.to_owned();
        move |e: std::io::Error| format!("{what}: {e}")
    };

    eprintln!("cold start ...");
    let cold = start(&outl, &root).map_err(fail("cold start"))?;
    drop(cold.server);
    eprintln!("choosing targets ...");
    let targets = keeping_server_cache(&root, || Targets::of(&root))?;
    let (pages, journals, blocks) = (targets.page_count, targets.journal_count, targets.blocks);
    let mut warm_lists = Vec::new();
    let mut warm_calls = Vec::new();
    let mut opened = None;
    for _ in 0..args.startups.max(1) {
        let started = start(&outl, &root).map_err(fail("warm start"))?;
        warm_lists.push(started.to_tools_list);
        warm_calls.push(started.to_first_call);
        opened = Some(started);
    }
    let Some(Started {
        server: mut session,
        memory: memory_after_open,
        ..
    }) = opened
    else {
        return Err("no warm start".into());
    };

    let mut rows = Vec::new();
    for class in classes() {
        eprintln!("{} ...", class.name);
        let mut samples = Vec::with_capacity(args.calls);
        let mut errors = 0;
        let mut reply_bytes = 0u64;
        for i in 0..WARMUP_CALLS + args.calls {
            let arguments = (class.arguments)(&targets, i);
            let begun = Instant::now();
            let outcome = call(&mut session, class.tool, &arguments);
            let elapsed = begun.elapsed();
            if i < WARMUP_CALLS {
                continue;
            }
            match outcome {
                Ok(result) => {
                    samples.push(elapsed);
                    reply_bytes += result.to_string().len() as u64;
                }
                Err(e) => {
                    if errors == 0 {
                        eprintln!("{}: {e}", class.tool);
                    }
                    errors += 1;
                }
            }
        }
        let timed = samples.len().max(1) as u64;
        rows.push((class, Timings::new(samples), errors, reply_bytes / timed));
    }

    eprintln!("pipelined reads ...");
    let begun = Instant::now();
    let pipelined_errors = session
        .pipelined(args.pipelined, |i| {
            ("outl_page_get".to_owned(), page_arguments(&targets, i))
        })
        .map_err(fail("pipelined reads"))?;
    let pipelined_wall = begun.elapsed();
    let memory_after_calls = Memory::of(session.pid());
    drop(session);

    eprintln!("Streamable HTTP ...");
    let http = http_run(&outl, &root, &targets, args).map_err(fail("HTTP"))?;

    let load_after = stats::load_average();
    println!("## Workspace\n");
    println!("| pages | journal days | blocks | markdown |");
    println!("| ---: | ---: | ---: | ---: |");
    println!(
        "| {pages} | {journals} | {blocks} | {} |\n",
        stats::bytes(scratch.markdown_bytes)
    );
    println!(
        "Load average (1, 5, 15 min): {load_before} before, {load_after} after; {} cores.\n",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );

    println!("## Start-up\n");
    println!(
        "From spawn: to `tools/list` answered (after `initialize` and \
         `notifications/initialized`), and to the first `tools/call` (`{FIRST_CALL}`, sent right \
         after) answered, which waits for the workspace to open.\n"
    );
    println!(
        "| start | runs | tools/list p50 | tools/list max | first tools/call p50 | first tools/call max |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let cold_row = [
        Timings::new(vec![cold.to_tools_list]),
        Timings::new(vec![cold.to_first_call]),
    ];
    let warm_row = [Timings::new(warm_lists), Timings::new(warm_calls)];
    for (start, [lists, calls]) in [
        (
            "cold (no `.outl/`: every page read, ids minted, sidecars and cache written)",
            &cold_row,
        ),
        ("warm (sidecars and `.outl/cache` in place)", &warm_row),
    ] {
        println!(
            "| {start} | {} | {} | {} | {} | {} |",
            lists.len(),
            stats::duration(lists.percentile(50)),
            stats::duration(lists.max()),
            stats::duration(calls.percentile(50)),
            stats::duration(calls.max())
        );
    }
    println!();

    println!("## Memory\n");
    println!("| when | resident (VmRSS) | peak (VmHWM) | resident / markdown |");
    println!("| --- | ---: | ---: | ---: |");
    for (when, memory) in [
        ("after open (warm)", memory_after_open),
        ("after the stdio runs", memory_after_calls),
    ] {
        match memory {
            Some(m) => println!(
                "| {when} | {} | {} | {:.2}x |",
                stats::bytes(m.resident),
                stats::bytes(m.peak),
                m.resident as f64 / scratch.markdown_bytes.max(1) as f64
            ),
            None => println!("| {when} | unknown | unknown | |"),
        }
    }
    println!();

    println!("## tools/call over stdio, one at a time\n");
    println!("| class | tool | calls | errors | p50 | p90 | p99 | max | mean reply |");
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (class, timings, errors, mean_reply) in &rows {
        println!(
            "| {} | `{}` | {} | {errors} | {} | {} | {} | {} | {} |",
            class.name,
            class.tool,
            timings.len(),
            stats::duration(timings.percentile(50)),
            stats::duration(timings.percentile(90)),
            stats::duration(timings.percentile(99)),
            stats::duration(timings.max()),
            stats::bytes(*mean_reply)
        );
    }
    println!();

    println!("## Pipelined reads over one stdio connection\n");
    println!("| requests | errors | wall | throughput |");
    println!("| ---: | ---: | ---: | ---: |");
    println!(
        "| {} | {pipelined_errors} | {} | {:.0} calls/s |\n",
        args.pipelined,
        stats::duration(pipelined_wall),
        args.pipelined as f64 / pipelined_wall.as_secs_f64()
    );

    println!("## Streamable HTTP, concurrent sessions\n");
    println!(
        "| sessions | calls | errors | wall | throughput | p50 | p90 | p99 | server peak memory |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    println!(
        "| {} | {} | {} | {} | {:.0} calls/s | {} | {} | {} | {} |",
        args.http_clients,
        http.timings.len(),
        http.errors,
        stats::duration(http.wall),
        http.timings.len() as f64 / http.wall.as_secs_f64(),
        stats::duration(http.timings.percentile(50)),
        stats::duration(http.timings.percentile(90)),
        stats::duration(http.timings.percentile(99)),
        http.memory
            .map_or_else(|| "unknown".to_owned(), |m| stats::bytes(m.peak))
    );
    Ok(())
}

/// The first `tools/call` of a start: a cheap read that needs the open workspace.
const FIRST_CALL: &str = "outl_workspace_info";

/// A server that has answered its first `tools/list` and its first `tools/call`.
struct Started {
    server: StdioSession,
    to_tools_list: Duration,
    to_first_call: Duration,
    /// Taken once the first call is answered, so the workspace is open.
    memory: Option<Memory>,
}

fn start(outl: &Path, root: &Path) -> std::io::Result<Started> {
    let begun = Instant::now();
    let mut mcp = Command::new(outl);
    mcp.arg("mcp").arg("--workspace").arg(root);
    let mut server = StdioSession::spawn(mcp, REPLY_LIMIT)?;
    result_of(server.initialize(PROTOCOL_VERSION, CLIENT)?)?;
    let tools = result_of(server.request("tools/list", json!({}))?)?;
    let to_tools_list = begun.elapsed();
    if tools["tools"].as_array().is_none_or(Vec::is_empty) {
        return Err(std::io::Error::other("tools/list listed no tools"));
    }
    call(&mut server, FIRST_CALL, &json!({}))?;
    let to_first_call = begun.elapsed();
    let memory = Memory::of(server.pid());
    Ok(Started {
        server,
        to_tools_list,
        to_first_call,
        memory,
    })
}

/// A tools/call; its result, or an error for a JSON-RPC error or an `isError` result.
fn call(server: &mut StdioSession, tool: &str, arguments: &Value) -> std::io::Result<Value> {
    result_of(server.request("tools/call", tool_call(tool, arguments))?)
}

/// Runs `open` (which opens the copy in this process) and puts back the `.outl/cache` the
/// server wrote. A cache is used only by the build that wrote it, and this binary is not
/// `outl`: the cache its open leaves would send the first warm start back to every page file.
fn keeping_server_cache<T>(
    root: &Path,
    open: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    let cache = root.join(STATE_DIR).join("cache");
    let written_by_server = std::fs::read(&cache).ok();
    let opened = open()?;
    if let Some(bytes) = written_by_server {
        std::fs::write(&cache, bytes)
            .map_err(|e| format!("cannot put back {}: {e}", cache.display()))?;
    }
    Ok(opened)
}

/// What the calls cycle through: a spread of pages of every size, journal days, blocks.
struct Targets {
    pages: Vec<String>,
    journals: Vec<String>,
    /// A block with children on each sampled page, else its first block.
    trees: Vec<String>,
    /// A block without children on each sampled page: updated in place.
    leaves: Vec<(String, String)>,
    queries: Vec<String>,
    page_count: usize,
    journal_count: usize,
    blocks: usize,
}

impl Targets {
    /// Reads the copy (after a server has written its sidecars, so ids are the server's).
    fn of(root: &Path) -> Result<Targets, String> {
        let ws = Workspace::open(root).map_err(|e| format!("cannot open the copy: {e}"))?;
        let graph = ws.snapshot();
        let all: Vec<&Page> = graph.pages().filter(|p| p.body.count() > 0).collect();
        let (journals, pages): (Vec<&Page>, Vec<&Page>) =
            all.iter().partition(|p| p.date().is_some());
        let journal_count = graph.journals().count();
        let page_count = graph.page_count() - journal_count;
        let pages = spread(&pages);
        let journals = spread(&journals);
        if pages.is_empty() || journals.is_empty() {
            return Err("the workspace needs pages and journal days with blocks".into());
        }
        let mut trees = Vec::new();
        let mut leaves = Vec::new();
        let mut queries = Vec::new();
        for page in pages.iter().chain(&journals) {
            let blocks = page.blocks();
            let tree = blocks
                .iter()
                .find(|b| !b.children.is_empty())
                .unwrap_or(&blocks[0]);
            trees.push(tree.id.to_string());
            if let Some(leaf) = first_leaf(&blocks) {
                leaves.push((leaf.id.to_string(), leaf.text.clone()));
            }
            if let Some(word) = longest_word(&blocks[0].text) {
                queries.push(word);
            }
        }
        queries.sort();
        queries.dedup();
        Ok(Targets {
            pages: pages.iter().map(|p| p.slug.clone()).collect(),
            journals: journals.iter().map(|p| p.slug.clone()).collect(),
            trees,
            leaves,
            queries,
            page_count,
            journal_count,
            blocks: graph.block_count(),
        })
    }
}

/// [`SAMPLE`] pages evenly spread over `pages` (all of them when fewer).
fn spread<'a>(pages: &[&'a Page]) -> Vec<&'a Page> {
    let step = (pages.len() / SAMPLE).max(1);
    pages.iter().step_by(step).take(SAMPLE).copied().collect()
}

fn first_leaf(blocks: &[Block]) -> Option<&Block> {
    blocks
        .iter()
        .find(|b| b.children.is_empty() && !b.text.contains('\n'))
}

fn longest_word(text: &str) -> Option<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .max_by_key(|w| w.len())
        .map(str::to_lowercase)
}

/// One class of timed calls.
struct Class {
    name: &'static str,
    tool: &'static str,
    arguments: fn(&Targets, usize) -> Value,
}

fn classes() -> Vec<Class> {
    vec![
        Class {
            name: "page read",
            tool: "outl_page_get",
            arguments: page_arguments,
        },
        Class {
            name: "block-tree read",
            tool: "outl_block_tree",
            arguments: |t, i| json!({"id": t.trees[i % t.trees.len()]}),
        },
        Class {
            name: "journal read",
            tool: "outl_daily_get",
            arguments: |t, i| json!({"date": t.journals[i % t.journals.len()]}),
        },
        Class {
            name: "search",
            tool: "outl_search",
            arguments: |t, i| json!({"query": t.queries[i % t.queries.len()]}),
        },
        Class {
            name: "block write (fsync)",
            tool: "outl_block_update",
            arguments: |t, i| {
                let (id, text) = &t.leaves[i % t.leaves.len()];
                json!({"id": id, "text": format!("{text} (edit {i})")})
            },
        },
        Class {
            name: "block insert (fsync)",
            tool: "outl_block_insert",
            arguments: |t, i| json!({"page": t.pages[i % t.pages.len()], "text": format!("Inserted by the benchmark, number {i}")}),
        },
    ]
}

fn page_arguments(targets: &Targets, i: usize) -> Value {
    json!({"slug": targets.pages[i % targets.pages.len()]})
}

struct HttpOutcome {
    timings: Timings,
    errors: usize,
    wall: Duration,
    memory: Option<Memory>,
}

/// `http_clients` sessions, each on its own connection, reading pages until `http_calls`
/// each or the deadline.
fn http_run(
    outl: &Path,
    root: &Path,
    targets: &Targets,
    args: &LatencyArgs,
) -> std::io::Result<HttpOutcome> {
    let mut serve = Command::new(outl);
    serve
        .args(["serve", "--host", "127.0.0.1", "--port", "0", "--workspace"])
        .arg(root)
        .env_remove("OUTL_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    let server = HttpServer::spawn(serve, HTTP_LIMIT)?;
    // The server listens before its workspace is open; one call waits for the open, so the
    // timed calls measure serving, not opening.
    result_of(
        server
            .session(PROTOCOL_VERSION, CLIENT)?
            .call(FIRST_CALL, &json!({}))?,
    )?;
    let deadline = Instant::now() + Duration::from_secs(args.http_seconds);
    let pages = &targets.pages;
    let server = &server;
    let begun = Instant::now();
    let results = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..args.http_clients)
            .map(|client| {
                let calls = args.http_calls;
                scope.spawn(move || {
                    let mut samples = Vec::with_capacity(calls);
                    let mut errors = 0;
                    let mut session = match server.session(PROTOCOL_VERSION, CLIENT) {
                        Ok(session) => session,
                        Err(e) => {
                            eprintln!("HTTP session: {e}");
                            return (samples, calls);
                        }
                    };
                    for i in 0..calls {
                        if Instant::now() >= deadline {
                            break;
                        }
                        let slug = &pages[(client * 7 + i) % pages.len()];
                        let begun = Instant::now();
                        match session
                            .call("outl_page_get", &json!({"slug": slug}))
                            .and_then(result_of)
                        {
                            Ok(_) => samples.push(begun.elapsed()),
                            Err(e) => {
                                if errors == 0 {
                                    eprintln!("HTTP call: {e}");
                                }
                                errors += 1;
                            }
                        }
                    }
                    (samples, errors)
                })
            })
            .collect();
        let mut all = Vec::new();
        let mut errors = 0;
        for client in clients {
            match client.join() {
                Ok((samples, failed)) => {
                    all.extend(samples);
                    errors += failed;
                }
                Err(_) => errors += 1,
            }
        }
        (all, errors)
    });
    let wall = begun.elapsed();
    let memory = Memory::of(server.pid());
    Ok(HttpOutcome {
        timings: Timings::new(results.0),
        errors: results.1,
        wall,
        memory,
    })
}
