#!/usr/bin/env bash
# Runs the official MCP conformance suite against `outl serve` (Streamable HTTP) on a fresh copy
# of examples/demo.
#
#   conformance.sh                      the scenarios of conformance.txt; any failure fails the run
#   conformance.sh NAME[@VERSION] ...   those scenarios (at VERSION, else the suite's default)
#   conformance.sh --survey             every server scenario at every spec version it applies
#                                       to, without the baseline; reports, fails only if the
#                                       server dies
#
# Checks listed in conformance-baseline.yml may fail (they need the suite's own fixtures).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"
require_outl_bin
require_clients

survey=false
scenarios=()
if [[ ${1:-} == --survey ]]; then
    survey=true
    # `conformance list` prints each server scenario as `  - NAME [VERSION,...]`.
    while read -r name versions; do
        for version in ${versions//,/ }; do
            # Extension scenarios carry no spec version: run them at the suite's default.
            if [[ $version == extension ]]; then scenarios+=("$name"); else scenarios+=("$name@$version"); fi
        done
    done < <("$CLIENTS_NODE" "$CONFORMANCE_JS" list --server \
        | sed -n 's/^  - \([^ ]*\) \[\(.*\)\]$/\1 \2/p')
elif (($#)); then
    scenarios=("$@")
else
    while read -r name version; do
        [[ -z $name || $name == \#* ]] && continue
        scenarios+=("$name@$version")
    done < "$here/conformance.txt"
fi
if ((${#scenarios[@]} == 0)); then
    echo "conformance.sh: no scenarios to run" >&2
    exit 2
fi

workdir=$(mktemp -d "${TMPDIR:-/tmp}/outl-conformance.XXXXXX")
workspace=$(demo_copy)
cleanup() {
    stop_outl_serve
    rm -rf "$workdir" "$workspace"
}
trap cleanup EXIT

if ! start_outl_serve "$workspace" "$workdir/serve.log"; then
    echo "conformance.sh: outl serve did not start" >&2
    cat "$workdir/serve.log" >&2
    exit 1
fi

# The suite colours its output; the lines quoted below are read without the colour codes.
plain() { sed 's/\x1b\[[0-9;]*m//g' "$1"; }

for scenario in "${scenarios[@]}"; do
    name=${scenario%@*}
    args=(server --url "$OUTL_SERVE_URL" --scenario "$name" -o "$workdir/results")
    [[ $scenario == *@* ]] && args+=(--spec-version "${scenario#*@}")
    $survey || args+=(--expected-failures "$here/conformance-baseline.yml")
    log=$workdir/$scenario.log
    # The suite writes nothing into the working directory it is run from, but make sure.
    status=0
    (cd "$workdir" && timeout 300 "$CLIENTS_NODE" "$CONFORMANCE_JS" "${args[@]}") \
        < /dev/null > "$log" 2>&1 || status=$?
    tally=$(plain "$log" | sed -n 's/^Passed: \(.*\)$/\1/p' | tail -n 1)
    if ((status == 0)); then
        check_pass "conformance $scenario (${tally:-no tally})"
    else
        details=$(plain "$log" | grep -E ' (FAILURE|WARNING) |^ +Error: |[Bb]aseline|Error:' | cut -c1-400 || true)
        check_fail "conformance $scenario (${tally:-exit $status})" "${details:-$(plain "$log" | tail -n 20)}"
    fi
    if ! kill -0 "$OUTL_SERVE_PID" 2> /dev/null; then
        echo "conformance.sh: outl serve died during $scenario" >&2
        cat "$workdir/serve.log" >&2
        exit 1
    fi
done

if $survey; then
    echo "survey: failures are reported, not fatal"
    checks_summary || true
    exit 0
fi
checks_summary
