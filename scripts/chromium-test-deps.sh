#!/usr/bin/env bash
# Installs what the passrate-server browser test (tests/browser.rs) needs, only when missing:
# Debian's `chromium`, and `playwright-core` from npm into ~/.cache/passrate/playwright (no
# browser download: the test drives /usr/bin/chromium). Prints
#   export PASSRATE_TEST_CHROMIUM=/usr/bin/chromium PASSRATE_TEST_PLAYWRIGHT=<dir>
# on stdout (everything else on stderr), so `eval "$(scripts/chromium-test-deps.sh)"` sets them.
#
# Environment: PASSRATE_PLAYWRIGHT_VERSION (default 1), PASSRATE_CACHE (default
# ~/.cache/passrate).
set -euo pipefail

CACHE="${PASSRATE_CACHE:-$HOME/.cache/passrate}"
PW_DIR="$CACHE/playwright"
VERSION="${PASSRATE_PLAYWRIGHT_VERSION:-1}"
log() { printf 'chromium-test-deps: %s\n' "$*" >&2; }

if [[ ! -x /usr/bin/chromium ]]; then
    log "installing chromium from Debian"
    apt-get update >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-dejavu-core >&2
fi
if ! command -v node >/dev/null 2>&1; then
    log "installing nodejs and npm from Debian"
    apt-get update >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm >&2
fi
if [[ ! -f "$PW_DIR/node_modules/playwright-core/package.json" ]]; then
    log "installing playwright-core@$VERSION into $PW_DIR"
    mkdir -p "$PW_DIR"
    # playwright-core downloads no browser on install (that is the `playwright` package).
    npm install --prefix "$PW_DIR" --no-audit --no-fund --silent "playwright-core@$VERSION" >&2
fi
/usr/bin/chromium --version >&2
echo "export PASSRATE_TEST_CHROMIUM=/usr/bin/chromium PASSRATE_TEST_PLAYWRIGHT=$PW_DIR"
