#!/usr/bin/env bash
# The one command that runs every test, from any working directory:
#
#   1. cargo test --workspace --all-targets (dev profile; benches are built too, so they
#      cannot rot), which also builds the debug binary the clients drive;
#   2. the real MCP clients (tests/clients/install.sh puts them in $OUTL_CLIENTS_DIR, outside
#      the repository) against the debug binary: the Python SDK, the TypeScript SDK, the MCP
#      Inspector CLI, and the official conformance suite.
#
# Ends with `N passed, M failed` over the client suites' checks and exits non-zero when cargo
# test or any check failed.
set -uo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/clients/lib.sh"
cd "$OUTL_REPO"

step() { printf '\n== %s\n' "$*"; }

# Everything cargo test runs, target/debug/outl included, built once, by the very command that
# runs it: `cargo build -p outl-server --bin outl` (or even `cargo build --all-targets`) resolves
# features and profiles differently and would build a second copy of much of the tree.
step "cargo test --workspace --all-targets --no-run"
if ! cargo test --workspace --all-targets --no-run; then
    echo "run-all: the workspace does not build, so no test can run" >&2
    exit 1
fi

cargo_status=passed
step "cargo test --workspace --all-targets"
cargo test --workspace --all-targets || cargo_status=FAILED

step "install the MCP clients into $OUTL_CLIENTS_DIR"
if ! bash tests/clients/install.sh; then
    echo "run-all: the clients did not install, so no client suite can run" >&2
    exit 1
fi

total_passed=0
total_failed=0
failed_suites=()
# run_suite NAME COMMAND...: runs one client suite, shows its output, and adds its closing
# `N passed, M failed` to the totals. A suite that ends without that line (it crashed) or exits
# non-zero while reporting no failure counts as one more failure.
run_suite() {
    local name=$1 log passed failed tally status=0
    shift
    step "$name"
    log=$(mktemp "${TMPDIR:-/tmp}/outl-run-all.XXXXXX")
    "$@" < /dev/null 2>&1 | tee "$log" || status=$?
    tally=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    rm -f "$log"
    if [[ -z $tally ]]; then
        passed=0 failed=1
    else
        read -r passed _ failed _ <<< "${tally//,/}"
        ((status != 0 && failed == 0)) && failed=1
    fi
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    ((failed == 0)) || failed_suites+=("$name")
}

run_suite "Python SDK client" "$CLIENTS_PYTHON" tests/clients/python_client.py
run_suite "TypeScript SDK client" "$CLIENTS_NODE" tests/clients/node_client.mjs
run_suite "MCP Inspector CLI" bash tests/clients/inspector.sh
run_suite "MCP conformance suite" bash tests/clients/conformance.sh

step "summary"
echo "cargo test: $cargo_status"
if ((${#failed_suites[@]})); then
    echo "client suites with failures: ${failed_suites[*]}"
fi
printf '%d passed, %d failed\n' "$total_passed" "$total_failed"
[[ $cargo_status == passed && $total_failed -eq 0 ]]
