//! The checks `#[tool]` and `registry!` cannot make while expanding, because they need the
//! fields of a type declared elsewhere. The macros emit `const` items that call these `const
//! fn`s and panic with the returned message, spanned at the offending token, so a violation
//! is a compile error that says which rule and what to do.
//!
//! Plus the one check that needs values: in debug builds, a field dropped as `arg` must come
//! back as the caller sent it.

use serde_json::{Map, Value};

use super::{Field, Justification, Payload, ToolSpec};

/// A compile-time message: `const fn`s cannot allocate, so text is appended into a fixed
/// buffer (cut at a character boundary if it ever overflows).
pub struct Msg {
    buf: [u8; Msg::CAPACITY],
    len: usize,
}

impl Msg {
    const CAPACITY: usize = 8192;

    pub const fn new() -> Self {
        Msg {
            buf: [0; Msg::CAPACITY],
            len: 0,
        }
    }

    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub const fn push(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < Msg::CAPACITY {
            self.buf[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        // Cut short inside a character (the next byte continues it): take its start back too.
        while i > 0 && i < bytes.len() && (bytes[i] & 0xC0) == 0x80 {
            self.len -= 1;
            i -= 1;
        }
    }

    pub const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(s) => s,
            Err(_) => "",
        }
    }

    /// `a`, `b` and `c`, each in backticks.
    const fn push_names(&mut self, names: &[&str]) {
        let mut i = 0;
        while i < names.len() {
            if i > 0 {
                self.push(if i + 1 == names.len() { " and " } else { ", " });
            }
            self.push("`");
            self.push(names[i]);
            self.push("`");
            i += 1;
        }
    }

    /// ` (fields: `a`, `b`)`, or ` (it has no fields)`.
    const fn push_fields_note(&mut self, fields: &[Field]) {
        if fields.is_empty() {
            self.push(" (it has no fields)");
            return;
        }
        self.push(" (fields: ");
        let mut i = 0;
        while i < fields.len() {
            if i > 0 {
                self.push(", ");
            }
            self.push("`");
            self.push(fields[i].name);
            self.push("`");
            i += 1;
        }
        self.push(")");
    }

    /// A tool's `tools.toml` table: the one format the build prints and
    /// [`ToolSpec::contract_table`] returns, in canonical key order.
    pub const fn push_contract_table(&mut self, spec: &ToolSpec) {
        self.push("[");
        self.push_toml_key(spec.name);
        self.push("]\npayload = ");
        match spec.payload {
            Payload::Json => self.push("\"json\"\n"),
            Payload::Markdown { field, cut } => {
                self.push("\"markdown\"\nmarkdown_field = ");
                self.push_toml_string(field);
                self.push("\n");
                if let Some(cut) = cut {
                    self.push("markdown_cut = ");
                    self.push_toml_string(cut);
                    self.push("\n");
                }
            }
        }
        self.push("annotations = [");
        let flags = [
            ("read_only", spec.annotations.read_only),
            ("destructive", spec.annotations.destructive),
            ("idempotent", spec.annotations.idempotent),
        ];
        let (mut i, mut first) = (0, true);
        while i < flags.len() {
            if flags[i].1 {
                if !first {
                    self.push(", ");
                }
                self.push_toml_string(flags[i].0);
                first = false;
            }
            i += 1;
        }
        self.push("]\n");
        let mut i = 0;
        while i < spec.params.len() {
            self.push("params.");
            self.push_toml_key(spec.params[i].name);
            self.push(" = ");
            self.push_toml_string(spec.params[i].ty);
            self.push("\n");
            i += 1;
        }
        let mut i = 0;
        while i < spec.drops.len() {
            self.push("drops.");
            self.push_toml_key(spec.drops[i].field);
            self.push(" = ");
            self.push_toml_string(match spec.drops[i].why {
                Justification::Arg => "arg",
                Justification::Elsewhere(where_else) => where_else,
            });
            self.push("\n");
            i += 1;
        }
    }

    /// A TOML key: bare when it can be, quoted otherwise.
    pub const fn push_toml_key(&mut self, key: &str) {
        if is_bare_key(key) {
            self.push(key);
        } else {
            self.push_toml_string(key);
        }
    }

    pub const fn push_toml_string(&mut self, s: &str) {
        self.push("\"");
        let bytes = s.as_bytes();
        let (mut start, mut i) = (0, 0);
        while i < bytes.len() {
            let escape = match bytes[i] {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\t' => "\\t",
                b'\r' => "\\r",
                _ => "",
            };
            let control = bytes[i] < 0x20 || bytes[i] == 0x7f;
            if !escape.is_empty() || control {
                self.push(slice(s, start, i));
                if escape.is_empty() {
                    const HEX: &[u8; 16] = b"0123456789ABCDEF";
                    let code = [
                        b'\\',
                        b'u',
                        b'0',
                        b'0',
                        HEX[(bytes[i] >> 4) as usize],
                        HEX[(bytes[i] & 0xF) as usize],
                    ];
                    self.push(match core::str::from_utf8(&code) {
                        Ok(code) => code,
                        Err(_) => "",
                    });
                } else {
                    self.push(escape);
                }
                start = i + 1;
            }
            i += 1;
        }
        self.push(slice(s, start, bytes.len()));
        self.push("\"");
    }
}

impl Default for Msg {
    fn default() -> Self {
        Msg::new()
    }
}

const fn slice(s: &str, start: usize, end: usize) -> &str {
    // Only called at ASCII positions, which are character boundaries.
    let bytes = s.as_bytes().split_at(end).0.split_at(start).1;
    match core::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(_) => "",
    }
}

const fn is_bare_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
            return false;
        }
        i += 1;
    }
    !bytes.is_empty()
}

pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Types compared as written, whitespace aside (`Option<u32>` = `Option < u32 >`).
const fn same_type(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    loop {
        while i < a.len() && a[i].is_ascii_whitespace() {
            i += 1;
        }
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if i == a.len() || j == b.len() {
            return i == a.len() && j == b.len();
        }
        if a[i] != b[j] {
            return false;
        }
        i += 1;
        j += 1;
    }
}

const fn field<'a>(fields: &'a [Field], name: &str) -> Option<&'a Field> {
    let mut i = 0;
    while i < fields.len() {
        if str_eq(fields[i].name, name) {
            return Some(&fields[i]);
        }
        i += 1;
    }
    None
}

const fn contains(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        if str_eq(names[i], name) {
            return true;
        }
        i += 1;
    }
    false
}

/// `payload = markdown(FIELD)`: FIELD is a `String` field of the return type.
pub const fn markdown_field(tool: &str, ret: &str, fields: &[Field], name: &str) -> Msg {
    let mut msg = Msg::new();
    match field(fields, name) {
        Some(f) if f.is_string => {}
        Some(f) => {
            msg.push("`");
            msg.push(tool);
            msg.push("`: payload = markdown(");
            msg.push(name);
            msg.push(") needs a `String` field, but `");
            msg.push(ret);
            msg.push(".");
            msg.push(name);
            msg.push("` is `");
            msg.push(f.ty);
            msg.push("`.\nThe markdown payload is sent as the reply's text, so it must be the markdown string itself; otherwise use payload = json.");
        }
        None => {
            msg.push("`");
            msg.push(tool);
            msg.push("`: payload = markdown(");
            msg.push(name);
            msg.push(") names no field of the return type `");
            msg.push(ret);
            msg.push("`");
            msg.push_fields_note(fields);
            msg.push(".\nName the `String` field that holds the markdown, or use payload = json.");
        }
    }
    msg
}

/// `payload = markdown(..)`: every other field of the return type is in `drops(..)`.
pub const fn undropped_fields(
    tool: &str,
    ret: &str,
    fields: &[Field],
    markdown: &str,
    drops: &[&str],
) -> Msg {
    let mut missing: [&str; 64] = [""; 64];
    let mut count = 0;
    let mut i = 0;
    while i < fields.len() {
        let name = fields[i].name;
        if !str_eq(name, markdown) && !contains(drops, name) && count < missing.len() {
            missing[count] = name;
            count += 1;
        }
        i += 1;
    }
    let mut msg = Msg::new();
    if count == 0 {
        return msg;
    }
    let missing = missing.split_at(count).0;
    msg.push("`");
    msg.push(tool);
    msg.push("` sends only `");
    msg.push(ret);
    msg.push(".");
    msg.push(markdown);
    msg.push("` (payload = markdown(");
    msg.push(markdown);
    msg.push(")), which drops ");
    msg.push_names(missing);
    msg.push(" without saying where the caller gets ");
    msg.push(if count == 1 { "it" } else { "them" });
    msg.push(".\nRFC 0276: a projection is a place to drop what the reader can re-derive, never the only copy; flattening a reply that carries ids or a date the caller does not have loses them.\nFor each, answer \"does the caller already have it?\": drops(");
    msg.push(missing[0]);
    msg.push(" = arg) if the caller sent it as an argument, drops(");
    msg.push(missing[0]);
    msg.push(" = \"where else\") naming where the caller gets it; if it is nowhere else, keep it with payload = json.");
    msg
}

/// `payload = markdown(.., cut = CUT)`: the return type has CUT.
pub const fn cut_field(tool: &str, ret: &str, fields: &[Field], name: &str) -> Msg {
    let mut msg = Msg::new();
    if field(fields, name).is_none() {
        msg.push("`");
        msg.push(tool);
        msg.push("`: payload = markdown(.., cut = ");
        msg.push(name);
        msg.push(") names no field of the return type `");
        msg.push(ret);
        msg.push("`");
        msg.push_fields_note(fields);
        msg.push(".\nName the field that says where a cut slice continues (sent after the markdown as JSON), or leave `cut` out.");
    }
    msg
}

/// `drops(FIELD = ..)`: the return type has FIELD.
pub const fn dropped_field(tool: &str, ret: &str, fields: &[Field], name: &str) -> Msg {
    let mut msg = Msg::new();
    if field(fields, name).is_none() {
        msg.push("`");
        msg.push(tool);
        msg.push("` drops `");
        msg.push(name);
        msg.push("`, but the return type `");
        msg.push(ret);
        msg.push("` has no such field");
        msg.push_fields_note(fields);
        msg.push(".\nRemove it from drops(...), or fix the name (it is the name on the wire, after serde renames).");
    }
    msg
}

/// `drops(FIELD = arg)`: the argument type has FIELD.
pub const fn arg_field(tool: &str, args: &str, fields: &[Field], name: &str) -> Msg {
    let mut msg = Msg::new();
    if field(fields, name).is_none() {
        msg.push("`");
        msg.push(tool);
        msg.push("`: drops(");
        msg.push(name);
        msg.push(" = arg) says the caller sent `");
        msg.push(name);
        msg.push("`, but the argument type `");
        msg.push(args);
        msg.push("` has no field `");
        msg.push(name);
        msg.push("`");
        msg.push_fields_note(fields);
        msg.push(".\nIf the caller gets it somewhere else, say where: drops(");
        msg.push(name);
        msg.push(" = \"...\"); if nowhere, keep it with payload = json.");
    }
    msg
}

/// Every argument field has a description for `inputSchema`, but for the arguments the
/// server's instructions describe for every tool (`shared`, its server's
/// [`SHARED_ARGS`](crate::Server::SHARED_ARGS)), which have none, so that the model reads
/// what each means once.
pub const fn documented_args(tool: &str, args: &str, fields: &[Field], shared: &[&str]) -> Msg {
    let mut undocumented = Msg::new();
    let mut redescribed = Msg::new();
    let mut i = 0;
    while i < fields.len() {
        let is_shared = contains(shared, fields[i].name);
        let list = if is_shared && fields[i].documented {
            &mut redescribed
        } else if !is_shared && !fields[i].documented {
            &mut undocumented
        } else {
            i += 1;
            continue;
        };
        list.push(if list.is_empty() { "`" } else { "`, `" });
        list.push(fields[i].name);
        i += 1;
    }
    let mut msg = Msg::new();
    if !undocumented.is_empty() {
        msg.push("`");
        msg.push(tool);
        msg.push("`: argument fields without a doc comment in `");
        msg.push(args);
        msg.push("`: ");
        msg.push(undocumented.as_str());
        msg.push("`.\nEach property of the inputSchema is described by its field's doc comment, and that description is all the model reads about it: add a `///` line to each.");
    }
    if !redescribed.is_empty() {
        if !msg.is_empty() {
            msg.push("\n");
        }
        msg.push("`");
        msg.push(tool);
        msg.push("`: argument fields with a doc comment in `");
        msg.push(args);
        msg.push("`: ");
        msg.push(redescribed.as_str());
        msg.push("`.\nThe server's instructions say once, for every tool, what these arguments mean; a description in each inputSchema would say it again in every `tools/list`: remove the `///` lines, or give the field another name if it means something else here.");
    }
    msg
}

/// What `#[tool]` found when it compared the handler with its `tools.toml` entry; the
/// parameters are compared here because only the argument type's fields know them.
pub struct Contract<'a> {
    /// Disagreements found while expanding, one line each (empty when there are none).
    pub disagreements: &'a [&'a str],
    /// The entry's `params`, or `None` when there is no entry.
    pub params: Option<&'a [(&'a str, &'a str)]>,
}

pub const fn contract(spec: &ToolSpec, c: &Contract<'_>) -> Msg {
    let mut msg = Msg::new();
    let mut i = 0;
    while i < c.disagreements.len() {
        msg.push("\n  - ");
        msg.push(c.disagreements[i]);
        i += 1;
    }
    if let Some(params) = c.params {
        let fields = spec.params;
        let mut i = 0;
        while i < fields.len() {
            let f = &fields[i];
            let mut found = None;
            let mut j = 0;
            while j < params.len() {
                if str_eq(params[j].0, f.name) {
                    found = Some(params[j].1);
                }
                j += 1;
            }
            match found {
                Some(ty) if same_type(ty, f.ty) => {}
                Some(ty) => {
                    msg.push("\n  - params.");
                    msg.push(f.name);
                    msg.push(": tools.toml says \"");
                    msg.push(ty);
                    msg.push("\", the argument type has `");
                    msg.push(f.ty);
                    msg.push("`");
                }
                None => {
                    msg.push("\n  - params.");
                    msg.push(f.name);
                    msg.push(": the argument type has it, tools.toml does not");
                }
            }
            i += 1;
        }
        let mut j = 0;
        while j < params.len() {
            if field(fields, params[j].0).is_none() {
                msg.push("\n  - params.");
                msg.push(params[j].0);
                msg.push(": tools.toml lists it, the argument type has no such field");
            }
            j += 1;
        }
    }
    if msg.is_empty() {
        return msg;
    }
    let mut out = Msg::new();
    out.push("`");
    out.push(spec.name);
    if c.params.is_none() {
        out.push("` has no entry in tools.toml.\ntools.toml is the reviewed wire contract of every tool, so a new tool shows there. Add:\n\n");
    } else {
        out.push("` disagrees with its entry in tools.toml:");
        out.push(msg.as_str());
        out.push("\ntools.toml is the reviewed wire contract: a wire change lands with a visible diff there. If the handler is right, replace the entry with:\n\n");
    }
    out.push_contract_table(spec);
    out
}

/// `registry!`: tool names are unique (`tools` pairs each handler path with its name).
pub const fn unique_names(tools: &[(&str, &str)]) -> Msg {
    let mut msg = Msg::new();
    let mut i = 0;
    while i < tools.len() {
        let mut j = 0;
        while j < i {
            if str_eq(tools[i].1, tools[j].1) && msg.is_empty() {
                msg.push("`");
                msg.push(tools[j].0);
                msg.push("` and `");
                msg.push(tools[i].0);
                msg.push("` are both named `");
                msg.push(tools[i].1);
                msg.push("`.\nA tool's name is how tools/call addresses it, so names are unique: rename one with #[tool(name = \"...\")], or list each handler once.");
            }
            j += 1;
        }
        i += 1;
    }
    msg
}

/// `registry!`: every `tools.toml` entry belongs to a listed handler.
pub const fn orphan_entries(names: &[&str], entries: &[&str]) -> Msg {
    let mut orphans: [&str; 64] = [""; 64];
    let mut count = 0;
    let mut i = 0;
    while i < entries.len() {
        if !contains(names, entries[i]) && count < orphans.len() {
            orphans[count] = entries[i];
            count += 1;
        }
        i += 1;
    }
    let mut msg = Msg::new();
    if count > 0 {
        msg.push("tools.toml has ");
        msg.push(if count == 1 { "an entry" } else { "entries" });
        msg.push(" that no handler in this registry has: ");
        msg.push_names(orphans.split_at(count).0);
        msg.push(".\ntools.toml lists exactly the tools the server offers: delete the entry, or add its handler to this list.");
    }
    msg
}

/// The arguments a tool drops as `arg`, as the caller sent them (absent ones left out).
pub fn sent_args(args: &Value, fields: &[&str]) -> Map<String, Value> {
    fields
        .iter()
        .filter_map(|&name| Some((name.to_owned(), args.get(name)?.clone())))
        .collect()
}

/// Debug builds: a field dropped as `arg` is only droppable if the handler returned what the
/// caller sent. A handler that canonicalizes it (a slug lower-cased, a date resolved) hands
/// back something the caller does not have. Panics, which the MCP layer reports as INTERNAL.
pub fn assert_args_returned(
    tool: &str,
    fields: &[&str],
    sent: &Map<String, Value>,
    output: &Value,
) {
    for &name in fields {
        let returned = output.get(name);
        if returned != sent.get(name) {
            let show = |v: Option<&Value>| v.map_or_else(|| "nothing".to_owned(), Value::to_string);
            panic!(
                "{tool} drops `{name}` as `arg`, but the caller sent {} and the handler returned {}: \
                 the handler canonicalized `{name}`, so the caller does not have the returned value. \
                 Justify the drop in words (drops({name} = \"...\")) or keep the field (payload = json).",
                show(sent.get(name)),
                show(returned),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_message_is_cut_at_a_character_boundary() {
        let mut msg = Msg::new();
        msg.push(&"a".repeat(Msg::CAPACITY - 1));
        msg.push("é and more");
        assert_eq!(
            msg.as_str().len(),
            Msg::CAPACITY - 1,
            "the two bytes of é do not fit in one"
        );
        msg.push("b");
        assert!(msg.as_str().ends_with("ab"));
    }

    #[test]
    fn toml_keys_and_strings_are_escaped() {
        let mut msg = Msg::new();
        msg.push_toml_key("outl.page");
        msg.push(" ");
        msg.push_toml_key("page_list-2");
        msg.push(" ");
        msg.push_toml_string("say \"hi\"\\\n");
        assert_eq!(msg.as_str(), r#""outl.page" page_list-2 "say \"hi\"\\\n""#);
    }

    #[test]
    fn types_compare_as_written_whitespace_aside() {
        assert!(same_type("Option<u32>", "Option < u32 >"));
        assert!(same_type("Vec<(String, u32)>", "Vec<(String,u32)>"));
        assert!(!same_type("Option<u32>", "Option<u64>"));
        assert!(!same_type("String", "Strin"));
    }
}
