#!/usr/bin/env bash
# Installs ruff from PyPI into a virtualenv under ~/.cache/passrate (only when it is missing)
# and prints
#   export PASSRATE_RUFF=/path/to/ruff
# on stdout (everything else on stderr), so `eval "$(scripts/ruff-test.sh)"` lets the
# maintainability tests and the cycle's quality checks lint Python answers with a real linter.
#
# Environment: PASSRATE_RUFF_VERSION (default 0.17.6, pinned: ruff's default rule set changes
# between releases), PASSRATE_CACHE (default ~/.cache/passrate).
set -euo pipefail

CACHE="${PASSRATE_CACHE:-$HOME/.cache/passrate}"
VENV="$CACHE/ruff"
VERSION="${PASSRATE_RUFF_VERSION:-0.17.6}"
log() { printf 'ruff-test: %s\n' "$*" >&2; }

if [[ ! -x "$VENV/bin/ruff" ]]; then
    log "installing ruff $VERSION into $VENV"
    mkdir -p "$CACHE"
    if ! python3 -m venv "$VENV" >&2 2>&1; then
        log "python3 -m venv failed; installing python3-venv from Debian"
        apt-get update >&2 && apt-get install -y python3-venv >&2
        python3 -m venv "$VENV" >&2
    fi
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "ruff==$VERSION" >&2
fi
"$VENV/bin/ruff" --version >&2
echo "export PASSRATE_RUFF=$VENV/bin/ruff"
