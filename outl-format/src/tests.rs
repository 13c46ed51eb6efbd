//! Round-trip, tokenizer and golden tests of the outline format.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;

fn node(text: &str, properties: &[(&str, &str)], children: Vec<ParsedBlock>) -> ParsedBlock {
    ParsedBlock {
        text: text.to_owned(),
        properties: properties
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        children,
    }
}

fn leaf(text: &str) -> ParsedBlock {
    node(text, &[], Vec::new())
}

const EXAMPLE: &str = "title:: Project X\ntags:: project\n\n- TODO Call [[Bob]] about #launch\n  collapsed:: true\n  priority:: high\n\t- child block with a ((6f3a2c))\n- DONE shipped\n";

#[test]
fn a_page_id_is_a_page_property_kept_byte_for_byte() {
    let md = "id:: 6a1f2e3d-4c5b-4a69-8877-665544332211\ntype:: note\n\n- first\n";
    let doc = parse(md);
    assert_eq!(
        doc.properties.get("id").map(String::as_str),
        Some("6a1f2e3d-4c5b-4a69-8877-665544332211")
    );
    assert_eq!(doc.blocks, vec![leaf("first")]);
    assert_eq!(serialize(&doc), md);
}

#[test]
fn parses_the_example_page() {
    let doc = parse(EXAMPLE);
    let expected = Document {
        front_matter: None,
        properties: [("title", "Project X"), ("tags", "project")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        blocks: vec![
            node(
                "TODO Call [[Bob]] about #launch",
                &[("collapsed", "true"), ("priority", "high")],
                vec![leaf("child block with a ((6f3a2c))")],
            ),
            leaf("DONE shipped"),
        ],
    };
    assert_eq!(doc, expected);
    assert_eq!(serialize(&doc), EXAMPLE);
}

#[test]
fn nesting_follows_columns_whatever_the_indentation() {
    let tree = |doc: &Document| {
        fn shape(nodes: &[ParsedBlock]) -> String {
            nodes
                .iter()
                .map(|n| format!("{}({})", n.text, shape(&n.children)))
                .collect()
        }
        shape(&doc.blocks)
    };
    assert_eq!(tree(&parse("- a\n\t- b\n\t\t- c\n- d")), "a(b(c()))d()");
    assert_eq!(tree(&parse("- a\n  - b\n    - c\n  - d")), "a(b(c())d())");
    assert_eq!(tree(&parse("- a\n    - b\n  - c\n    - d")), "a(b()c(d()))");
    // As mldoc counts a level: each tab or space one column, so four spaces nest under a tab,
    // and a tab after two spaces sits under neither.
    assert_eq!(tree(&parse("- a\n\t- b\n    - c")), "a(b(c()))");
    assert_eq!(tree(&parse("- a\n  - b\n      - c\n\t- d")), "a(b(c())d())");
    assert_eq!(tree(&parse("\t- a\n- b")), "a()b()");
}

#[test]
fn multi_line_text_and_properties() {
    let doc = parse(
        "- first\n  id:: 6f3a2c\n  second line\n    indented more\n\t- child\n\t  child line two\n",
    );
    assert_eq!(
        doc.blocks,
        [node(
            "first\nsecond line\n  indented more",
            &[("id", "6f3a2c")],
            vec![leaf("child\nchild line two")]
        )]
    );
}

#[test]
fn a_block_takes_its_first_run_of_property_lines() {
    // As Logseq reads mldoc's AST: the first run of `key:: value` lines, under the first line
    // or below the text; a later run is text, and so is one inside a fence.
    let doc = parse("- a\n  text\n  k:: v\n  j:: w\n  more\n- b\n\n  k:: v\n");
    assert_eq!(
        doc.blocks,
        [
            node("a\ntext\nmore", &[("k", "v"), ("j", "w")], vec![]),
            node("b", &[("k", "v")], vec![])
        ]
    );
    // Of a key's lines the last gives its value, as Logseq builds the properties' map.
    let repeated = parse("- a\n  k:: 1\n  k:: 2\n  text\n  j:: 3\n");
    assert_eq!(
        repeated.blocks,
        [node("a\ntext\nj:: 3", &[("k", "2")], vec![])]
    );
    let page = parse("tags:: [[A]]\nvia:: x\ntags:: [[B]]\n\n- foo\n");
    assert_eq!(
        page.properties.get("tags").map(String::as_str),
        Some("[[B]]")
    );
    assert_eq!(page.blocks, [leaf("foo")]);
    let fenced = parse("- a\n  ```\n  k:: v\n  ```\n");
    assert_eq!(fenced.blocks, [leaf("a\n```\nk:: v\n```")]);
    // A text line that would read so is escaped, and reads back as it was.
    let text = Document {
        front_matter: None,
        properties: Properties::new(),
        blocks: vec![leaf("a\ntext\nk:: v")],
    };
    assert_eq!(parse(&serialize(&text)), text);
}

#[test]
fn a_properties_drawer_under_the_first_line_is_the_block_s_properties() {
    // As pages imported from org-roam hold them, and mldoc reads them in markdown.
    let doc = parse(
        "## Clojure\n:PROPERTIES:\n:ID:06dec093-7938-4926-9da4-589713449fa8\n:Type: lang\n:END:\nbody\n- next\n",
    );
    assert_eq!(
        doc.blocks,
        [
            node(
                "## Clojure\nbody",
                &[
                    ("id", "06dec093-7938-4926-9da4-589713449fa8"),
                    ("type", "lang")
                ],
                vec![],
            ),
            leaf("next"),
        ]
    );
    // Never closed, after the text, or broken by another line: the text it looks like.
    for text in [
        "a\n:PROPERTIES:\n:x: 1",
        "a\nbody\n:PROPERTIES:\n:x: 1\n:END:",
        "a\n:PROPERTIES:\n:x: 1\nnot a property\n:END:",
        "a\n:PROPERTIES:\n\n:x: 1\n:END:",
    ] {
        let doc = parse(&format!("- {}\n", text.replace('\n', "\n  ")));
        assert_eq!(doc.blocks, [leaf(text)], "{text:?}");
    }
    let doc = parse("- a\n  :PROPERTIES:\n  :x: 1\n\t- child\n");
    assert_eq!(
        doc.blocks,
        [node("a\n:PROPERTIES:\n:x: 1", &[], vec![leaf("child")])]
    );
}

#[test]
fn a_heading_in_a_block_s_text_is_a_block_of_its_own() {
    // As Logseq levels mldoc's blocks: a heading no bullet opens is at the top level, and the
    // bullets indented after it are its children.
    let doc = parse("- a\n  # b\n  its text\n\t- child\n- c\n");
    assert_eq!(
        doc.blocks,
        [
            leaf("a"),
            node("# b\nits text", &[], vec![leaf("child")]),
            leaf("c")
        ]
    );
    let deep = parse("- a\n\t- a2\n\t  ## b\n\t- a3\n");
    assert_eq!(
        deep.blocks,
        [
            node("a", &[], vec![leaf("a2")]),
            node("## b", &[], vec![leaf("a3")])
        ]
    );
    // A text line that would read so is escaped, and reads back as it was.
    let text = Document {
        front_matter: None,
        properties: Properties::new(),
        blocks: vec![leaf("a\n## not a block")],
    };
    assert_eq!(serialize(&text), "- a\n  \\## not a block\n");
    assert_eq!(parse(&serialize(&text)), text);
}

#[test]
fn a_list_inside_a_quote_is_the_quote_s() {
    // As mldoc reads it: the `- ` lines of a `#+BEGIN_QUOTE` block are its list, not blocks.
    let page = "- said\n  #+BEGIN_QUOTE\n  - local files\n  - outliner\n  #+END_QUOTE\n\t- a child\n- next\n";
    let doc = parse(page);
    assert_eq!(
        doc.blocks,
        [
            node(
                "said\n#+BEGIN_QUOTE\n- local files\n- outliner\n#+END_QUOTE",
                &[],
                vec![leaf("a child")]
            ),
            leaf("next")
        ]
    );
    assert_eq!(parse(&serialize(&doc)), doc);
    // Not closed among the block's own lines, it is no block: its child and the next block
    // stay blocks.
    let unclosed = parse("- #+BEGIN_QUOTE\n\t- child\n- #+END_QUOTE\n");
    assert_eq!(
        unclosed.blocks,
        [
            node("#+BEGIN_QUOTE", &[], vec![leaf("child")]),
            leaf("#+END_QUOTE")
        ]
    );
}

#[test]
fn a_fence_on_a_bullet_s_line_holds_the_lines_under_the_bullet() {
    // As mldoc reads it: the comment is code, not a heading, and `d` stays a child of `a`.
    let doc = parse("- a\n  - ```sh\n  # c\n  ```\n  - d\n");
    assert_eq!(
        doc.blocks,
        [node("a", &[], vec![leaf("```sh\n# c\n```"), leaf("d")])]
    );
    assert_eq!(parse(&serialize(&doc)), doc);
}

#[test]
fn a_verbatim_block_keeps_its_nested_list() {
    // As mldoc reads it: up to its `#+END_…` line, a `#+BEGIN_…` block holds every line, a
    // list nested in it too, and a page link in an example is no link.
    let page = "- sample output\n  #+BEGIN_EXAMPLE\n  - see [[Tools]]\n    - nested\n  # not a heading\n  #+END_EXAMPLE\n\t- a child\n- next\n";
    let doc = parse(page);
    assert_eq!(
        doc.blocks,
        [
            node(
                "sample output\n#+BEGIN_EXAMPLE\n- see [[Tools]]\n  - nested\n# not a heading\n#+END_EXAMPLE",
                &[],
                vec![leaf("a child")]
            ),
            leaf("next")
        ]
    );
    assert!(page_links(&doc.blocks[0].text).is_empty());
    assert_eq!(parse(&serialize(&doc)), doc);
    // Its lines are written as they are, escapes and all, as mldoc keeps them.
    let code = "x\n#+BEGIN_SRC python\n- y\n# comment\nk:: v\n\\- z\n#+END_SRC";
    let source = Document {
        front_matter: None,
        properties: Properties::new(),
        blocks: vec![leaf(code)],
    };
    let written = serialize(&source);
    assert_eq!(
        written,
        "- x\n  #+BEGIN_SRC python\n  - y\n  # comment\n  k:: v\n  \\- z\n  #+END_SRC\n"
    );
    assert_eq!(parse(&written), source);
    // A block its text never ends is written so that it opens none: its `#+END_…` line in a
    // child's text keeps the child a child.
    let unclosed = Document {
        front_matter: None,
        properties: Properties::new(),
        blocks: vec![node("#+BEGIN_SRC", &[], vec![leaf("x\n#+END_SRC")])],
    };
    let written = serialize(&unclosed);
    assert_eq!(written, "- \\#+BEGIN_SRC\n\t- x\n\t  #+END_SRC\n");
    assert_eq!(parse(&written), unclosed);
}

#[test]
fn a_heading_can_open_a_fence() {
    // As mldoc reads it: an empty heading over a code block, whose `###` lines are code.
    let page = "### ```javascript\nnpm ERR\n\n\t```\n\n### TODO b\n";
    let doc = parse(page);
    assert_eq!(
        doc.blocks
            .iter()
            .map(|b| b.text.as_str())
            .collect::<Vec<_>>(),
        ["### ```javascript\nnpm ERR\n\n\t```", "### TODO b"]
    );
    let doc = parse("- ## ```js\n  - code\n  ```\n- next\n");
    assert_eq!(doc.blocks, [leaf("## ```js\n- code\n```"), leaf("next")]);
    // Never closed, it is escaped so that it opens none.
    let unclosed = Document {
        front_matter: None,
        properties: Properties::new(),
        blocks: vec![leaf("## ```js\n- x")],
    };
    assert_eq!(parse(&serialize(&unclosed)), unclosed);
}

#[test]
fn a_fence_keeps_its_lines_verbatim() {
    let md =
        "- config:\n  ```yaml\n  - name: web\n    ports:\n  - name: db\n  ```\n  after\n- next\n";
    let doc = parse(md);
    assert_eq!(
        doc.blocks,
        [
            leaf("config:\n```yaml\n- name: web\n  ports:\n- name: db\n```\nafter"),
            leaf("next")
        ]
    );
    assert_eq!(serialize(&doc), md);
    // As mldoc reads it, a fence no later line closes is no fence: the lines after it are
    // what they are (here a child block), up to the end of the page.
    let unclosed = parse("- a\n  ```\n  - inside\n- outside");
    assert_eq!(
        unclosed.blocks,
        [node("a\n```", &[], vec![leaf("inside")]), leaf("outside")]
    );
    let headings = parse("## h\n```\nx\n\n## TODO b\n");
    assert_eq!(headings.blocks.len(), 2, "{headings:?}");
}

#[test]
fn display_math_keeps_its_lines_as_text() {
    // As mldoc reads it: `$$` at a line's start opens display math, the next `$$` closes it,
    // and the lines between are the math's, a `- ` line too.
    let page = "- a matrix\n  $$\\left(\\begin{matrix}\n  - x & y\\\\\n    - z\n  \\end{matrix}\\right)$$\n  after\n\t- a child\n- next\n";
    let doc = parse(page);
    assert_eq!(
        doc.blocks,
        [
            node(
                "a matrix\n$$\\left(\\begin{matrix}\n- x & y\\\\\n  - z\n\\end{matrix}\\right)$$\nafter",
                &[],
                vec![leaf("a child")]
            ),
            leaf("next")
        ]
    );
    assert_eq!(parse(&serialize(&doc)), doc);
    // On the first line too, after a heading's marks; and math closed on its line holds none.
    let first = parse("- ## $$\n  - sum\n  $$\n- $$x$$\n  - child\n");
    assert_eq!(
        first.blocks,
        [
            leaf("## $$\n- sum\n$$"),
            node("$$x$$", &[], vec![leaf("child")])
        ]
    );
    // A closing `$$` may open math again right after it; an opener no later line closes is
    // no math, and `$$` inside a line opens none.
    let again = parse("- $$a$$ $$b\n  - c\n  $$\n- see $$e\n  - f\n- $$ never closed\n  - d\n");
    assert_eq!(
        again.blocks,
        [
            leaf("$$a$$ $$b\n- c\n$$"),
            node("see $$e", &[], vec![leaf("f")]),
            node("$$ never closed", &[], vec![leaf("d")])
        ]
    );
    // A text whose math never closes is written so that it opens none.
    let unclosed = Document {
        front_matter: None,
        properties: Properties::new(),
        blocks: vec![node("$$x", &[], vec![leaf("y $$")]), leaf("z")],
    };
    let written = serialize(&unclosed);
    assert_eq!(written, "- \\$$x\n\t- y $$\n- z\n");
    assert_eq!(parse(&written), unclosed);
}

#[test]
fn free_text_before_the_first_bullet_is_a_block() {
    let doc = parse("title:: Notes\n\nA page can start with prose.\nSecond line.\n\n- a bullet\n");
    assert_eq!(
        doc.properties.get("title").map(String::as_str),
        Some("Notes")
    );
    assert_eq!(
        doc.blocks,
        [
            leaf("A page can start with prose.\nSecond line."),
            leaf("a bullet")
        ]
    );
    let prose = parse("just text\n\n  more\n");
    assert_eq!(prose.blocks, [leaf("just text\n\n  more")]);
}

#[test]
fn blank_lines() {
    assert_eq!(parse("- a\n\n- b\n").blocks, [leaf("a"), leaf("b")]);
    assert_eq!(parse("- a\n\n  b\n").blocks, [leaf("a\n\nb")]);
    assert_eq!(parse("- a\n  \n- b\n").blocks, [leaf("a\n"), leaf("b")]);
    assert_eq!(
        serialize(&Document {
            front_matter: None,
            properties: Properties::new(),
            blocks: vec![leaf("a\n\nb\n")]
        }),
        "- a\n  \n  b\n  \n"
    );
}

fn descendant_count(blocks: &[ParsedBlock]) -> usize {
    blocks
        .iter()
        .map(|block| 1 + descendant_count(&block.children))
        .sum()
}

#[test]
fn nesting_is_cut_at_max_depth() {
    let too_deep: String = (0..MAX_DEPTH + 3)
        .map(|depth| format!("{}- level {depth}\n", "\t".repeat(depth)))
        .collect();
    let doc = parse(&too_deep);
    let mut deepest = &doc.blocks;
    for _ in 1..MAX_DEPTH {
        assert_eq!(deepest.len(), 1);
        deepest = &deepest[0].children;
    }
    let texts: Vec<&str> = deepest.iter().map(|block| block.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            format!("level {}", MAX_DEPTH - 1),
            format!("level {MAX_DEPTH}"),
            format!("level {}", MAX_DEPTH + 1),
            format!("level {}", MAX_DEPTH + 2)
        ]
    );
    assert!(deepest.iter().all(|block| block.children.is_empty()));

    // A tree built deeper than markdown holds is written and normalized the same way.
    let mut built = leaf("bottom");
    for depth in (0..MAX_DEPTH + 5).rev() {
        built = node(
            &format!("level {depth}"),
            &[],
            vec![built, leaf(&format!("after {depth}"))],
        );
    }
    let built = Document {
        front_matter: None,
        properties: Properties::new(),
        blocks: vec![built],
    };
    let md = serialize(&built);
    assert_eq!(parse(&md), built.normalized());
    assert_eq!(serialize(&built.normalized()), md);

    // A thousand levels neither overflow the stack nor lose a block.
    let huge: String = (0..1_000)
        .map(|depth| format!("{}- {depth}\n", "\t".repeat(depth)))
        .collect();
    let doc = parse(&huge);
    assert_eq!(parse(&serialize(&doc)), doc);
    assert_eq!(descendant_count(&doc.blocks), 1_000);
}

#[test]
fn crlf_and_empty_input() {
    assert_eq!(
        parse("k:: v\r\n\r\n- a\r\n  b\r\n"),
        parse("k:: v\n\n- a\n  b\n")
    );
    assert_eq!(parse(""), Document::default());
    assert_eq!(parse("\n\n"), Document::default());
    assert_eq!(serialize(&Document::default()), "");
}

#[test]
fn texts_that_look_like_structure_are_escaped() {
    let doc = Document {
        front_matter: None,
        properties: Properties::new(),
        blocks: vec![
            node("a\n- not a child\nk:: v", &[], vec![]),
            node("b\nk:: v", &[("p", "1")], vec![]),
            node("```", &[], vec![leaf("\\- literal backslash")]),
            node("", &[("id", "x")], vec![]),
        ],
    };
    let md = serialize(&doc);
    assert_eq!(
        md,
        "- a\n  \\- not a child\n  \\k:: v\n- b\n  p:: 1\n  \\k:: v\n- \\```\n\t- \\- literal backslash\n-\n  id:: x\n"
    );
    assert_eq!(parse(&md), doc);
}

#[test]
fn serialize_normalizes_what_markdown_cannot_hold() {
    let doc = Document {
        front_matter: None,
        properties: [
            ("due date", " friday\nnoon "),
            ("", "x"),
            ("due_date", "dropped"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
        blocks: vec![leaf("a\r\nb\rc")],
    };
    let normalized = doc.normalized();
    assert_eq!(
        normalized.properties.get("due_date").map(String::as_str),
        Some("friday noon")
    );
    assert_eq!(
        normalized.properties.get("_").map(String::as_str),
        Some("x")
    );
    assert_eq!(normalized.properties.len(), 2);
    assert_eq!(normalized.blocks, [leaf("a\nb\nc")]);
    assert_eq!(parse(&serialize(&doc)), normalized);
    assert!(is_property_key("logseq.order-list-type"));
    assert!(!is_property_key("two words"));
    assert!(is_property_value("high"));
    assert!(!is_property_value("two\nlines"));
}

#[test]
fn parser_ast_keeps_properties_in_json() {
    let doc = parse("- a\n");
    let json = serde_json::to_string(&doc).unwrap_or_default();
    assert_eq!(
        json,
        r#"{"properties":{},"blocks":[{"text":"a","properties":{},"children":[]}]}"#
    );
    assert_eq!(serde_json::from_str::<Document>(&json).ok(), Some(doc));
}

#[test]
fn tokens() {
    let json = |text| serde_json::to_string(&tokenize(text)).unwrap_or_default();
    assert_eq!(
        json("TODO [#A] Call [[Bob]] about #launch"),
        r#"[{"t":"task","s":"TODO"},{"t":"text","s":" "},{"t":"priority","s":"A"},{"t":"text","s":" Call "},{"t":"page","s":"Bob"},{"t":"text","s":" about "},{"t":"tag","s":"launch"}]"#
    );
    assert_eq!(
        json("**see [[X]]** *it* _too_ `**no**` #[[a b]] ((6f3a2c))"),
        r#"[{"t":"bold","c":[{"t":"text","s":"see "},{"t":"page","s":"X"}]},{"t":"text","s":" "},{"t":"italic","c":[{"t":"text","s":"it"}]},{"t":"text","s":" "},{"t":"italic","c":[{"t":"text","s":"too"}],"u":true},{"t":"text","s":" "},{"t":"code","s":"**no**"},{"t":"text","s":" "},{"t":"tag","s":"a b","b":true},{"t":"text","s":" "},{"t":"ref","id":"6f3a2c"}]"#
    );
    assert_eq!(
        json("[**docs**](https://x.org/a_(b)) ``a`b``"),
        r#"[{"t":"link","c":[{"t":"bold","c":[{"t":"text","s":"docs"}]}],"url":"https://x.org/a_(b)"},{"t":"text","s":" "},{"t":"code","s":"a`b","n":2}]"#
    );
    assert_eq!(
        json("2 * 3 * 4, snake_case_name, ***x***"),
        r#"[{"t":"text","s":"2 * 3 * 4, snake_case_name, ***x***"}]"#
    );
    assert_eq!(json(""), "[]");
    assert_eq!(
        json("[the plan]([[Launch plan]]) [no](a b)"),
        r#"[{"t":"link","c":[{"t":"text","s":"the plan"}],"url":"[[Launch plan]]"},{"t":"text","s":" [no](a b)"}]"#
    );
    let tokens = tokenize("**a [b](c)** d");
    let back: Vec<Token> =
        serde_json::from_str(&serde_json::to_string(&tokens).unwrap_or_default())
            .unwrap_or_default();
    assert_eq!(back, tokens);
}

/// Fragments that exercise every rule of the grammar when glued together.
const NASTY: &[&str] = &[
    "",
    "a",
    "word",
    " ",
    "  ",
    "\t",
    "-",
    "- ",
    "-x",
    "\\",
    "\\- ",
    "k:: v",
    "---",
    "title: x",
    "tags: [a, b]",
    "id::",
    "key::",
    "::",
    "```",
    "~~~",
    "````",
    "```rust",
    "``",
    "`",
    "*",
    "**",
    "_",
    "[[",
    "]]",
    "((",
    "))",
    "#",
    "#[[",
    "[",
    "](",
    ")",
    "(",
    "TODO ",
    "DONE",
    "[#A]",
    "#+",
    "$$",
    "$",
    "#+BEGIN_SRC",
    "#+BEGIN_EXAMPLE",
    "#+END_EXAMPLE",
    "#+end_src",
    "#+BEGIN_QUERY",
    "#+END_QUERY",
    "://",
    "é",
    "日本語",
    "🙂",
    "\u{a0}",
    "\r",
    "\r\n",
];

fn nasty_line() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(NASTY), 0..5).prop_map(|parts| parts.concat())
}

fn nasty_text() -> impl Strategy<Value = String> {
    prop::collection::vec(nasty_line(), 1..5).prop_map(|lines| lines.join("\n"))
}

fn nasty_properties() -> impl Strategy<Value = Properties> {
    let key = prop::sample::select(
        &[
            "id",
            "collapsed",
            "tags",
            "a-b.c",
            "",
            "two words",
            "k::",
            "é",
        ][..],
    );
    prop::collection::vec((key, nasty_line()), 0..3).prop_map(|entries| {
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect()
    })
}

fn nasty_node() -> impl Strategy<Value = ParsedBlock> {
    let leaf = (nasty_text(), nasty_properties()).prop_map(|(text, properties)| ParsedBlock {
        text,
        properties,
        children: Vec::new(),
    });
    leaf.prop_recursive(4, 24, 3, |inner| {
        (
            nasty_text(),
            nasty_properties(),
            prop::collection::vec(inner, 0..3),
        )
            .prop_map(|(text, properties, children)| ParsedBlock {
                text,
                properties,
                children,
            })
    })
}

/// No front matter, or one in a style Logseq or a person wrote: scalars, quotes, lists of
/// both kinds, a comment, CRLF.
fn nasty_front_matter() -> impl Strategy<Value = Option<String>> {
    prop::sample::select(
        &[
            None,
            Some("---\ntitle: Apr 9th, 2021\n---\n"),
            Some("---\ntitle: 'Deep work'\ntags: [book, 'time management']\n---\n"),
            Some("---\r\nalias:\r\n  - DW\r\n# a comment\r\npublic: true\r\n---\r\n"),
            Some("---\n---\n"),
        ][..],
    )
    .prop_map(|front_matter| front_matter.map(str::to_owned))
}

fn nasty_document() -> impl Strategy<Value = Document> {
    (
        nasty_front_matter(),
        nasty_properties(),
        prop::collection::vec(nasty_node(), 0..4),
    )
        .prop_map(|(front_matter, line_properties, blocks)| {
            // The front matter's keys come first, as parse gives them; a nasty value may
            // replace one.
            let mut properties = front_matter
                .as_deref()
                .map(front_matter::front_matter_properties)
                .unwrap_or_default();
            properties.extend(line_properties.iter().map(|(k, v)| (k.clone(), v.clone())));
            Document {
                front_matter,
                properties,
                blocks,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_document_round_trips_through_markdown(doc in nasty_document()) {
        let md = serialize(&doc);
        let normalized = doc.normalized();
        prop_assert_eq!(&parse(&md), &normalized);
        prop_assert_eq!(&normalized.normalized(), &normalized);
        // What serialize writes is canonical: it reads and writes back byte for byte.
        prop_assert_eq!(serialize(&parse(&md)), md);
    }

    #[test]
    fn any_markdown_parses_to_a_fixed_point(md in prop::collection::vec(nasty_line(), 0..12).prop_map(|l| l.join("\n"))) {
        let doc = parse(&md);
        prop_assert_eq!(&doc.normalized(), &doc);
        prop_assert_eq!(parse(&serialize(&doc)), doc);
    }

    #[test]
    fn block_starts_cut_markdown_into_its_blocks(md in prop::collection::vec(nasty_line(), 0..12).prop_map(|l| l.join("\n"))) {
        let (doc, starts) = parse_with_starts(&md);
        let mut blocks = Vec::new();
        preorder(&doc.blocks, &mut blocks);
        prop_assert_eq!(starts.len(), blocks.len());
        prop_assert!(starts.windows(2).all(|pair| pair[0] < pair[1]));
        let ends = starts.iter().skip(1).copied().chain([md.len()]);
        for ((start, end), block) in starts.iter().copied().zip(ends).zip(&blocks) {
            prop_assert!(start == 0 || matches!(md.as_bytes()[start - 1], b'\n' | b'\r'));
            // A block's own lines, read after the page's properties, give that block (read
            // alone, a first line `k:: v` would be a page property, not a repeat of one).
            let alone = parse(&format!("{}{}", &md[..starts[0]], &md[start..end]));
            prop_assert_eq!(&alone.blocks[0].text, &block.text);
            prop_assert_eq!(&alone.blocks[0].properties, &block.properties);
        }
    }

    #[test]
    fn tokens_give_back_their_text(text in nasty_text()) {
        let tokens = tokenize(&text);
        prop_assert_eq!(source(&tokens), text);
        let adjacent_texts = tokens.windows(2).any(|pair| matches!(pair, [Token::Text { .. }, Token::Text { .. }]));
        let empty_text = tokens.iter().any(|token| matches!(token, Token::Text { text } if text.is_empty()));
        prop_assert!(!adjacent_texts, "adjacent text tokens in {:?}", tokens);
        prop_assert!(!empty_text, "empty text token in {:?}", tokens);
    }

    #[test]
    fn tokens_of_arbitrary_strings_give_back_their_text(text in any::<String>()) {
        prop_assert_eq!(source(&tokenize(&text)), text);
    }

    #[test]
    fn renaming_keeps_the_rest_of_the_text(text in nasty_text()) {
        let renamed = rename_page_links(&text, "a", "b c");
        prop_assert_eq!(tokenize(&renamed).len(), tokenize(&text).len());
        prop_assert!(!page_links(&renamed).iter().any(|page| same_page_name(page, "a")));
    }
}

/// Fragments of org pages: headlines, drawers, page and planning lines, and markdown's.
fn org_line() -> impl Strategy<Value = String> {
    let org = prop::sample::select(
        &[
            "* ",
            "** ",
            "*",
            ":PROPERTIES:",
            ":END:",
            ":id: x",
            ":LOGBOOK:",
            "#+TITLE: ",
            "#+alias:",
            "SCHEDULED: <2020-05-14 Thu>",
            "   ",
        ][..],
    );
    prop::collection::vec(prop_oneof![org, prop::sample::select(NASTY)], 0..4)
        .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn org_writes_reach_a_fixed_point_and_keep_a_page_written_over_itself(
        text in prop::collection::vec(org_line(), 0..12).prop_map(|l| l.join("\n")),
    ) {
        let (doc, starts) = Syntax::Org.parse_with_starts(&text);
        let written = serialize_org(&doc);
        let read = Syntax::Org.parse(&written);
        prop_assert_eq!(&Syntax::Org.parse(&serialize_org(&read)), &read);
        let mut blocks = Vec::new();
        preorder(&doc.blocks, &mut blocks);
        let unchanged: Vec<Former> = (0..blocks.len()).map(Former::Unchanged).collect();
        prop_assert_eq!(
            serialize_over(Syntax::Org, &doc, &text, &starts, &unchanged),
            text.clone()
        );
        // Every block written anew reads back as the page did.
        let changed: Vec<Former> = (0..blocks.len()).map(Former::Changed).collect();
        let rewritten = serialize_over(Syntax::Org, &read, &text, &starts, &changed);
        prop_assert_eq!(Syntax::Org.parse(&rewritten), read);
    }
}

/// `blocks` and their descendants in document order.
fn preorder<'a>(blocks: &'a [ParsedBlock], out: &mut Vec<&'a ParsedBlock>) {
    for block in blocks {
        out.push(block);
        preorder(&block.children, out);
    }
}

fn demo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/demo")
}

fn markdown_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            markdown_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "md") {
            found.push(path);
        }
    }
}

fn demo_pages() -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    markdown_files(&demo_dir(), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let md = std::fs::read_to_string(&path)
                .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            (path, md)
        })
        .collect()
}

#[test]
fn the_demo_workspace_is_canonical() {
    let pages = demo_pages();
    assert!(
        pages.len() >= 19,
        "the demo has a dozen pages and a week of journals, found {}",
        pages.len()
    );
    for (path, md) in pages {
        assert_eq!(
            serialize(&parse(&md)),
            md,
            "{} is not in canonical style",
            path.display()
        );
    }
}

/// The demo is the workspace people try outl on: it must show every feature of the format.
#[test]
fn the_demo_workspace_uses_every_feature() {
    #[derive(Default)]
    struct Seen {
        markers: Vec<TaskMarker>,
        priorities: Vec<Priority>,
        ids: Vec<String>,
        refs: Vec<String>,
        page_properties: Vec<String>,
        links: Vec<String>,
        bare_tags: usize,
        bracketed_tags: usize,
        collapsed: usize,
        multi_line: usize,
        fence_with_dash_line: usize,
        max_depth: usize,
    }
    fn visit(block: &ParsedBlock, depth: usize, seen: &mut Seen) {
        seen.max_depth = seen.max_depth.max(depth);
        seen.markers
            .extend(task_marker(&block.text).map(|(marker, _)| marker));
        seen.priorities.extend(priority(&block.text));
        seen.ids.extend(block.properties.get("id").cloned());
        seen.refs.extend(block_refs(&block.text));
        seen.links.extend(page_links(&block.text));
        seen.links
            .extend(block.properties.iter().flat_map(|(key, value)| {
                property_links(value, ["tags", ALIAS].contains(&key.as_str()))
            }));
        for token in tokenize(&block.text) {
            match token {
                Token::Tag {
                    bracketed: false, ..
                } => seen.bare_tags += 1,
                Token::Tag {
                    bracketed: true, ..
                } => seen.bracketed_tags += 1,
                _ => {}
            }
        }
        seen.collapsed += usize::from(
            block
                .properties
                .get("collapsed")
                .is_some_and(|v| v == "true"),
        );
        seen.multi_line += usize::from(block.text.contains('\n'));
        let fenced_dash_line = block
            .text
            .split("```")
            .skip(1)
            .step_by(2)
            .any(|code| code.lines().any(|line| line.starts_with("- ")));
        seen.fence_with_dash_line += usize::from(fenced_dash_line);
        for child in &block.children {
            visit(child, depth + 1, seen);
        }
    }
    let mut seen = Seen::default();
    let mut file_names = Vec::new();
    for (path, md) in demo_pages() {
        file_names.extend(
            path.file_name()
                .map(|name| name.to_string_lossy().into_owned()),
        );
        let doc = parse(&md);
        seen.page_properties.extend(doc.properties.keys().cloned());
        seen.links
            .extend(doc.properties.iter().flat_map(|(key, value)| {
                property_links(value, ["tags", ALIAS].contains(&key.as_str()))
            }));
        for block in &doc.blocks {
            visit(block, 0, &mut seen);
        }
    }
    // The markers of both of Logseq's workflows, and the states it spells one way by default;
    // the other spellings (WAIT, CANCELLED, IN-PROGRESS, STARTED) are for graphs written so.
    for marker in [
        TaskMarker::Todo,
        TaskMarker::Doing,
        TaskMarker::Done,
        TaskMarker::Later,
        TaskMarker::Now,
        TaskMarker::Waiting,
        TaskMarker::Canceled,
    ] {
        assert!(seen.markers.contains(&marker), "no {marker} task");
    }
    for wanted in [Priority::A, Priority::B, Priority::C] {
        assert!(seen.priorities.contains(&wanted), "no priority {wanted:?}");
    }
    for key in ["title", "tags", "alias"] {
        assert!(
            seen.page_properties.iter().any(|k| k == key),
            "no page property {key}"
        );
    }
    let uuid_ref = seen.refs.iter().any(|id| id.len() == 36);
    let short_ref = seen.refs.iter().any(|id| id.len() < 10);
    assert!(uuid_ref && short_ref, "refs: {:?}", seen.refs);
    for id in &seen.refs {
        assert!(
            seen.ids.contains(id),
            "(({id})) points to no block with that id::"
        );
    }
    let journal_link = seen
        .links
        .iter()
        .any(|page| page.len() == 10 && page.starts_with("2026-11-"));
    assert!(journal_link, "no link to a journal day");
    assert!(
        seen.links.iter().any(|page| page.contains('/')),
        "no link to a namespace page"
    );
    assert!(seen.bare_tags > 0 && seen.bracketed_tags > 0);
    assert!(seen.collapsed > 0 && seen.multi_line > 0 && seen.fence_with_dash_line > 0);
    assert!(seen.max_depth >= 3, "deepest level {}", seen.max_depth);
    assert!(
        file_names.iter().any(|name| name.contains("___")),
        "no namespace file"
    );
    assert!(
        file_names.iter().any(|name| name.contains('%')),
        "no percent-encoded file name"
    );
    assert_eq!(
        file_names
            .iter()
            .filter(|name| name.starts_with("2026_11_"))
            .count(),
        7
    );
}

#[test]
fn front_matter_is_page_properties_and_written_back_as_it_was() {
    let old_journal =
        "---\ntitle: Apr 9th, 2021\ntags: [diary]\n---\n\n- TODO a task\n\t- under it\n";
    let doc = parse(old_journal);
    assert_eq!(
        doc.properties.get("title").map(String::as_str),
        Some("Apr 9th, 2021")
    );
    assert_eq!(
        doc.properties.get("tags").map(String::as_str),
        Some("diary")
    );
    assert_eq!(doc.blocks[0].text, "TODO a task");
    assert_eq!(serialize(&doc), old_journal);

    // A `key::` line repeating a front matter key is text, so nothing of it is lost.
    let doc = parse("---\ntitle: A\n---\ntitle:: B\n- x\n");
    assert_eq!(doc.properties.get("title").map(String::as_str), Some("A"));
    assert_eq!(doc.blocks[0].text, "title:: B");
}

#[test]
fn a_bullet_that_starts_with_a_property_has_its_text_after_the_properties() {
    // Logseq writes a block whose properties come before any text this way.
    let md = "- id:: 63b70dc8-1d59-4348-9737-e62b17fdabca\n  collapsed:: true\n  3. Block text\n  more\n- title:: only properties\n";
    let doc = parse(md);
    assert_eq!(doc.blocks[0].text, "3. Block text\nmore");
    assert_eq!(
        doc.blocks[0].properties.get("id").map(String::as_str),
        Some("63b70dc8-1d59-4348-9737-e62b17fdabca")
    );
    assert_eq!(
        doc.blocks[0]
            .properties
            .get("collapsed")
            .map(String::as_str),
        Some("true")
    );
    assert_eq!(
        (doc.blocks[1].text.as_str(), doc.blocks[1].properties.len()),
        ("", 1)
    );
    // A text that starts with what reads as a property is written escaped.
    let text = Document {
        front_matter: None,
        properties: Properties::new(),
        blocks: vec![leaf("k:: v is the text")],
    };
    assert_eq!(serialize(&text), "- \\k:: v is the text\n");
    assert_eq!(parse(&serialize(&text)), text);
}

#[test]
fn headings_at_the_margin_are_top_level_blocks_whatever_their_level() {
    let md = "intro line\n## TODO contact julia\n### TODO read the texts\nbody of it\n\n## DONE the bag\n# Top\n- a bullet\n## a block after bullets too\n";
    let doc = parse(md);
    let outline: Vec<(&str, usize)> = doc
        .blocks
        .iter()
        .map(|b| (b.text.as_str(), b.children.len()))
        .collect();
    assert_eq!(
        outline,
        [
            ("intro line", 0),
            ("## TODO contact julia", 0),
            ("### TODO read the texts\nbody of it", 0),
            ("## DONE the bag", 0),
            ("# Top", 0),
            ("a bullet", 0),
            ("## a block after bullets too", 0),
        ]
    );
    let nested = parse("# Usage\n\t- first\n\t\t- deeper\n# Background\n");
    assert_eq!(
        nested.blocks,
        [
            node(
                "# Usage",
                &[],
                vec![node("first", &[], vec![leaf("deeper")])]
            ),
            leaf("# Background")
        ]
    );
    assert_eq!(parse(&serialize(&doc)), doc);
}
