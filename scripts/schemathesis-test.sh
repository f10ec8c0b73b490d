#!/usr/bin/env bash
# Installs schemathesis from PyPI into a virtualenv under ~/.cache/passrate (only when it is
# missing) and prints
#   export PASSRATE_TEST_SCHEMATHESIS=/path/to/st
# on stdout (everything else on stderr), so `eval "$(scripts/schemathesis-test.sh)"` lets the
# passrate-server fuzz test (tests/schemathesis.rs) find it.
#
# Environment: PASSRATE_SCHEMATHESIS_VERSION (default 4.*), PASSRATE_CACHE (default
# ~/.cache/passrate).
set -euo pipefail

CACHE="${PASSRATE_CACHE:-$HOME/.cache/passrate}"
VENV="$CACHE/schemathesis"
VERSION="${PASSRATE_SCHEMATHESIS_VERSION:-4.*}"
log() { printf 'schemathesis-test: %s\n' "$*" >&2; }

if [[ ! -x "$VENV/bin/st" ]]; then
    log "installing schemathesis $VERSION into $VENV"
    mkdir -p "$CACHE"
    if ! python3 -m venv "$VENV" >&2 2>&1; then
        log "python3 -m venv failed; installing python3-venv from Debian"
        apt-get update >&2 && apt-get install -y python3-venv >&2
        python3 -m venv "$VENV" >&2
    fi
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION" >&2
fi
"$VENV/bin/st" --version >&2
echo "export PASSRATE_TEST_SCHEMATHESIS=$VENV/bin/st"
