#!/usr/bin/env bash
# Drives outl with the MCP Inspector CLI, over stdio (`outl mcp`) and over Streamable HTTP
# (`outl serve`), on fresh copies of examples/demo, and checks what it prints; then the
# reading-list server of examples/bookmarks over stdio.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"
require_outl_bin
require_clients

workdir=$(mktemp -d "${TMPDIR:-/tmp}/outl-inspector.XXXXXX")
stdio_workspace=$(demo_copy)
http_workspace=$(demo_copy)
bookmarks_folder=$(mktemp -d "${TMPDIR:-/tmp}/bookmarks-inspector.XXXXXX")
cleanup() {
    stop_outl_serve
    rm -rf "$workdir" "$stdio_workspace" "$http_workspace" "$bookmarks_folder"
}
trap cleanup EXIT

# The inspector CLI reads its own package.json relative to the working directory, and its
# launcher mis-orders arguments when installed alone: run its build/ entry from build/.
# A hung server must still end the run.
inspector() {
    (cd "$INSPECTOR_BUILD" && timeout 120 "$CLIENTS_NODE" index.js "$@") < /dev/null
}

# json_check FILE DESCRIPTION EXPRESSION: passes when the JavaScript EXPRESSION, with `out`
# bound to FILE's JSON, `expected` to $EXPECTED parsed (and `fs` to hand), is true.
json_check() {
    local file=$1 description=$2 expression=$3 verdict
    verdict=$("$CLIENTS_NODE" -e '
        const fs = require("fs");
        const out = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
        const expected = JSON.parse(process.env.EXPECTED || "null");
        process.stdout.write(String(Boolean(eval(process.argv[2]))));
    ' "$file" "$expression" 2>&1) || true
    if [[ $verdict == true ]]; then
        check_pass "$description"
    else
        check_fail "$description" "$expression -> ${verdict:-false}; output: $(head -c 600 "$file")"
    fi
}

# run_inspector NAME ARGS...: runs the inspector into $workdir/NAME.json; a failed run is a
# failed check (and the JSON checks on it fail too, with its output shown).
run_inspector() {
    local name=$1
    shift
    if ! inspector "$@" > "$workdir/$name.json" 2> "$workdir/$name.err"; then
        check_fail "inspector $name exits 0" "$(cat "$workdir/$name.err" "$workdir/$name.json")"
    fi
}

"$OUTL_BIN" tools > "$workdir/registry.json"
EXPECTED=$(cat "$workdir/registry.json")
export EXPECTED

# tools/list over stdio: the very list `outl tools` prints, each tool fit for a host.
run_inspector stdio-tools-list "$OUTL_BIN" mcp --workspace "$stdio_workspace" --method tools/list
json_check "$workdir/stdio-tools-list.json" "inspector stdio tools/list: the registry's tools, in order" \
    'JSON.stringify(out.tools.map(t => t.name)) === JSON.stringify(expected.tools.map(t => t.name)) && out.tools.length > 0'
json_check "$workdir/stdio-tools-list.json" "inspector stdio tools/list: annotations and an object inputSchema on every tool, no title, no outputSchema" \
    'out.tools.every(t => !("title" in t) && t.annotations && t.inputSchema.type === "object" && !("outputSchema" in t))'

# tools/call over stdio: the payload once, as compact JSON text, describing this workspace.
count_md() { find "$1" -maxdepth 1 -name '*.md' | wc -l | tr -d ' '; }
EXPECTED=$(printf '{"path":"%s","pages":%s,"journals":%s,"version":"%s"}' \
    "$(cd "$stdio_workspace" && pwd -P)" "$(count_md "$stdio_workspace/pages")" \
    "$(count_md "$stdio_workspace/journals")" "$("$OUTL_BIN" --version | cut -d' ' -f2)")
run_inspector stdio-call "$OUTL_BIN" mcp --workspace "$stdio_workspace" \
    --method tools/call --tool-name outl_workspace_info
json_check "$workdir/stdio-call.json" "inspector stdio tools/call: one text content, no structuredContent, not an error" \
    'out.content.length === 1 && out.content[0].type === "text" && !("structuredContent" in out) && !out.isError'
json_check "$workdir/stdio-call.json" "inspector stdio tools/call: compact JSON text" \
    'out.content[0].text === JSON.stringify(JSON.parse(out.content[0].text))'
json_check "$workdir/stdio-call.json" "inspector stdio tools/call: outl_workspace_info describes the workspace served" \
    '(r => r.path === expected.path && r.pages === expected.pages && r.journals === expected.journals && r.version === expected.version && r.blocks > 0)(JSON.parse(out.content[0].text))'

# A markdown payload: the raw markdown alone, byte for byte the page's (canonical) file.
EXPECTED=$(printf '{"file":"%s"}' "$stdio_workspace/pages/Shakshuka.md")
run_inspector stdio-render "$OUTL_BIN" mcp --workspace "$stdio_workspace" \
    --method tools/call --tool-name outl_page_render --tool-arg slug=shakshuka
json_check "$workdir/stdio-render.json" "inspector stdio tools/call: outl_page_render sends the page's markdown as it is on disk" \
    '!out.isError && !("structuredContent" in out) && out.content.length === 1 && out.content[0].text === fs.readFileSync(expected.file, "utf8")'

# The same client over Streamable HTTP.
if ! start_outl_serve "$http_workspace" "$workdir/serve.log"; then
    check_fail "outl serve starts" "$(cat "$workdir/serve.log")"
else
    EXPECTED=$(cat "$workdir/registry.json")
    run_inspector http-tools-list "$OUTL_SERVE_URL" --transport http --method tools/list
    json_check "$workdir/http-tools-list.json" "inspector http tools/list: the registry's tools, in order" \
        'JSON.stringify(out.tools.map(t => t.name)) === JSON.stringify(expected.tools.map(t => t.name))'
    run_inspector http-call "$OUTL_SERVE_URL" --transport http --method tools/call --tool-name outl_workspace_info
    json_check "$workdir/http-call.json" "inspector http tools/call: compact JSON text, no structuredContent" \
        '!out.isError && !("structuredContent" in out) && out.content[0].text === JSON.stringify(JSON.parse(out.content[0].text))'
fi

# Another server on the same registry runtime: its tools, and a markdown payload with nothing
# to read yet (the file is new), which is the markdown alone: empty.
bookmarks=("$BOOKMARKS_BIN" "$bookmarks_folder/bookmarks.json")
run_inspector bookmarks-tools-list "${bookmarks[@]}" --method tools/list
json_check "$workdir/bookmarks-tools-list.json" "inspector bookmarks tools/list: five tools, no outputSchema" \
    'out.tools.length === 5 && out.tools.every(t => t.inputSchema.type === "object" && !("outputSchema" in t))'
run_inspector bookmarks-call "${bookmarks[@]}" --method tools/call --tool-name reading_list_markdown
json_check "$workdir/bookmarks-call.json" "inspector bookmarks tools/call: a markdown payload is its text alone" \
    '!out.isError && !("structuredContent" in out) && out.content.length === 1 && out.content[0].text === ""'

checks_summary
