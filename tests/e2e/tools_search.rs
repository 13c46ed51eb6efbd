//! Search over MCP stdio on a graph written here in Logseq's style: Chinese, Japanese and
//! Korean text found by any two or more characters, words by their stem, quoted phrases as
//! written, pages named by the query before the blocks that mention it, and `outl_page_list`
//! finding a page through a typo.

use std::path::Path;

use crate::mcp_support::{StdioSession, column, json_payload, problem_pointers, tool_error};
use serde_json::{Value, json};

fn write(root: &Path, file: &str, md: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("create the folder");
    std::fs::write(path, md).expect("write the page");
}

/// A small graph: notes in three scripts, a feature page and the pages that mention it.
fn graph() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp folder");
    let root = dir.path();
    write(
        root,
        "pages/前端笔记.md",
        "- 浏览器的跨域请求需要服务器配合\n- 跨域 请求 分开写\n- 今天没有别的\n",
    );
    write(
        root,
        "pages/日本語メモ.md",
        "- 東京に行きました\n- データベースの設計を見直す\n",
    );
    write(root, "pages/한국어.md", "- 학교에서 공부했다\n");
    write(
        root,
        "pages/Queries.md",
        "type:: [[Feature]]\nalias:: Simple queries\n\n- Ask your graph questions\n\t- Results show as a table\n",
    );
    write(
        root,
        "pages/Query.md",
        "type:: [[Command]]\n\n- Starts a query, as described in [[Queries]]\n",
    );
    write(
        root,
        "pages/Changelog.md",
        "- Fixed a bug where long queries with many words in them were slow to load on big graphs\n- ## Queries\n\t- Tables can be sorted\n",
    );
    write(
        root,
        "journals/2026_11_30.md",
        "- Read about [[Queries]] and the query command\n- Queried the team about the launch\n",
    );
    dir
}

fn search(s: &mut StdioSession, query: &str) -> Value {
    json_payload(&s.call("outl_search", json!({ "query": query })))
}

/// The blocks' snippets of a search, in order.
fn snippets(found: &Value) -> Vec<&str> {
    found["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter(|hit| hit.get("id").is_some())
        .map(|hit| hit["snippet"].as_str().expect("a snippet"))
        .collect()
}

#[test]
fn chinese_japanese_and_korean_are_found_by_any_two_characters() {
    let ws = graph();
    let mut s = StdioSession::initialized(ws.path());
    let zh = search(&mut s, "跨域");
    assert_eq!(zh["total"], 2);
    assert_eq!(column(&zh["hits"], "page"), ["前端笔记", "前端笔记"]);
    // Three characters and more must be one after the other in the text.
    for (query, snippet) in [
        ("跨域请求", "浏览器的跨域请求需要服务器配合"),
        ("域请求需", "浏览器的跨域请求需要服务器配合"),
        ("京に行", "東京に行きました"),
        ("ベース", "データベースの設計を見直す"),
        ("교에서", "학교에서 공부했다"),
    ] {
        assert_eq!(snippets(&search(&mut s, query)), [snippet], "{query}");
    }
    assert_eq!(search(&mut s, "请求跨域")["total"], 0);
    // A page name is found the same way, before the blocks.
    let named = search(&mut s, "笔记");
    assert_eq!(named["hits"][0]["page"], "前端笔记");
    assert!(named["hits"][0].get("id").is_none());
    // One character alone, wherever it is.
    assert_eq!(search(&mut s, "域")["total"], 2);
    s.finish();
}

#[test]
fn words_match_by_stem_and_quoted_words_as_written() {
    let ws = graph();
    let mut s = StdioSession::initialized(ws.path());
    let stems = search(&mut s, "queried");
    assert!(
        snippets(&stems).contains(&"Queried the team about the launch"),
        "{stems}"
    );
    let found = search(&mut s, "query command");
    assert_eq!(
        snippets(&found),
        ["Read about [[Queries]] and the query command"]
    );
    // Quoted, a word is matched as written, a phrase in order.
    let quoted = search(&mut s, "\"queried\"");
    assert_eq!(snippets(&quoted), ["Queried the team about the launch"]);
    assert_eq!(search(&mut s, "\"command query\"")["total"], 0);
    assert_eq!(
        snippets(&search(&mut s, "\"the query command\"")),
        ["Read about [[Queries]] and the query command"]
    );
    s.finish();
}

#[test]
fn a_page_named_by_the_query_ranks_first_and_a_heading_above_a_mention() {
    let ws = graph();
    let mut s = StdioSession::initialized(ws.path());
    for query in ["queries", "query", "Queries"] {
        let found = search(&mut s, query);
        let first = &found["hits"][0];
        assert_eq!(first["page"], "queries", "{query}: {found}");
        assert!(first.get("id").is_none());
        assert_eq!(first["snippet"], "Queries");
    }
    // The page found through its alias says which name matched.
    let alias = search(&mut s, "simple queries");
    assert_eq!(alias["hits"][0]["page"], "queries");
    assert_eq!(alias["hits"][0]["snippet"], "Simple queries");
    // The heading of the changelog above its passing mention.
    let found = search(&mut s, "queries");
    let changelog: Vec<&str> = found["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter(|hit| hit["page"] == "changelog")
        .map(|hit| hit["snippet"].as_str().expect("a snippet"))
        .collect();
    assert_eq!(changelog[0], "## Queries", "{found}");
    assert_eq!(changelog.len(), 2);
    // Page hits are sliced with the blocks.
    let first = json_payload(&s.call("outl_search", json!({ "query": "queries", "limit": 1 })));
    assert_eq!(first["hits"][0]["page"], "queries");
    let rest = json_payload(&s.call(
        "outl_search",
        json!({ "query": "queries", "cursor": first["next_cursor"] }),
    ));
    assert_eq!(
        rest["hits"].as_array().expect("hits").len() + 1,
        found["hits"].as_array().expect("hits").len()
    );
    s.finish();
}

#[test]
fn page_list_finds_names_and_aliases_by_words_prefixes_and_typos() {
    let ws = graph();
    let mut s = StdioSession::initialized(ws.path());
    let list = |s: &mut StdioSession, args: Value| {
        let reply = json_payload(&s.call("outl_page_list", args));
        column(&reply["pages"], "slug")
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        list(&mut s, json!({"query": "qeuries"})),
        ["queries", "query"]
    );
    assert_eq!(list(&mut s, json!({"query": "chang"})), ["changelog"]);
    assert_eq!(list(&mut s, json!({"query": "simple"})), ["queries"]);
    assert_eq!(list(&mut s, json!({"query": "前端"})), ["前端笔记"]);
    assert!(list(&mut s, json!({"query": "tomato"})).is_empty());
    // The other filters still apply, and slices follow the ranking.
    assert_eq!(
        list(
            &mut s,
            json!({"query": "query", "prefix": "que", "limit": 1})
        ),
        ["queries"]
    );
    let error = tool_error(&s.call("outl_page_list", json!({"query": "?!"})));
    assert_eq!(problem_pointers(&error), ["/query"]);
    s.finish();
}
