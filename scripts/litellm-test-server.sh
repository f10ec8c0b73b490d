#!/usr/bin/env bash
# Starts a LiteLLM proxy on loopback as a real OpenAI-compatible server for the
# passrate-models tests, and prints
#   export PASSRATE_TEST_OPENAI_URL=http://127.0.0.1:PORT/v1 PASSRATE_TEST_OPENAI_KEY=... PASSRATE_TEST_OPENAI_MODEL=passrate-mock
# on stdout (everything else goes to stderr), so `eval "$(scripts/litellm-test-server.sh)"`
# sets them. The same line is written to $STATE_DIR/env.
#
# The proxy serves one model, `passrate-mock`, whose every answer is a fixed
# `mock_response` (no upstream provider is called). Requests need the generated key: any
# other key gets the proxy's own 401. A custom auth hook does that check, because without a
# database LiteLLM answers a wrong key with `400 No connected db.` rather than 401.
#
# Idempotent: a proxy already running from the state directory is reused; a dead one is
# started again. LiteLLM is installed from PyPI into a virtualenv only when missing.
#
#   scripts/litellm-test-server.sh          start (or reuse) and print the export line
#   scripts/litellm-test-server.sh --stop   stop the proxy and remove its state directory
#
# Environment: PASSRATE_LITELLM_DIR (state directory, default
# ${TMPDIR:-/tmp}/passrate-test-litellm), PASSRATE_LITELLM_VENV (virtualenv, default
# ${XDG_CACHE_HOME:-~/.cache}/passrate/litellm-VERSION), PASSRATE_LITELLM_PORT (first port
# to try, default 40110).
set -euo pipefail

# Pinned: from 1.108 on, the `proxy` extra depends on a `litellm-proxy` package that the
# registry does not have, and a release in that range was reported compromised.
LITELLM_VERSION=1.106.12
MODEL=passrate-mock
STATE_DIR="${PASSRATE_LITELLM_DIR:-${TMPDIR:-/tmp}/passrate-test-litellm}"
VENV_DIR="${PASSRATE_LITELLM_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/passrate/litellm-$LITELLM_VERSION}"
LOG_FILE="$STATE_DIR/server.log"

log() { printf 'litellm-test-server: %s\n' "$*" >&2; }

stop_server() {
    if [[ -f "$STATE_DIR/pid" ]]; then
        local pid
        pid=$(cat "$STATE_DIR/pid")
        # The proxy runs in its own session: end the whole group (uvicorn workers too).
        kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 -- "-$pid" 2>/dev/null || true
    fi
}

if [[ "${1:-}" == "--stop" ]]; then
    stop_server
    rm -rf "$STATE_DIR"
    log "stopped and removed $STATE_DIR"
    exit 0
fi

# ---- install (only when missing) -----------------------------------------------------------

PYTHON="$VENV_DIR/bin/python"
# Importing the proxy takes ~10 s: a marker written after a checked install is enough later.
MARKER="$VENV_DIR/.passrate-installed"
if [[ "$(cat "$MARKER" 2>/dev/null)" != "$LITELLM_VERSION" || ! -x "$VENV_DIR/bin/litellm" ]]; then
    log "installing litellm[proxy]==$LITELLM_VERSION into $VENV_DIR (about 2 minutes)"
    rm -rf "$VENV_DIR"
    mkdir -p "$(dirname "$VENV_DIR")"
    if ! python3 -m venv "$VENV_DIR" >&2; then
        if [[ $(id -u) -ne 0 ]]; then
            log "python3 cannot create a virtualenv and installing python3-venv needs root"
            exit 1
        fi
        log "installing python3-venv from Debian packages"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update >&2
        apt-get install -y --no-install-recommends python3-venv >&2
        rm -rf "$VENV_DIR"
        python3 -m venv "$VENV_DIR" >&2
    fi
    "$VENV_DIR/bin/pip" install --quiet --disable-pip-version-check \
        "litellm[proxy]==$LITELLM_VERSION" >&2
    if ! "$PYTHON" -c "import litellm.proxy.proxy_server" >/dev/null 2>&1; then
        log "litellm installed but its proxy does not import; see the pip output above"
        exit 1
    fi
    printf '%s\n' "$LITELLM_VERSION" >"$MARKER"
fi

# ---- start (or reuse) ---------------------------------------------------------------------

ready() {
    "$PYTHON" - "$1" <<'EOF' >/dev/null 2>&1
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health/liveliness", timeout=2)
EOF
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

write_config() {
    # The mock answer is a Python function so a run through this proxy has code to judge.
    cat >"$STATE_DIR/config.yaml" <<EOF
model_list:
  - model_name: $MODEL
    litellm_params:
      model: openai/$MODEL
      api_key: unused
      mock_response: "def add(a, b):\n    return a + b\n"
general_settings:
  master_key: os.environ/PASSRATE_LITELLM_KEY
  custom_auth: custom_auth.user_api_key_auth
EOF
    cat >"$STATE_DIR/custom_auth.py" <<'EOF'
# Loaded by the proxy (general_settings.custom_auth): the test key passes, anything else
# gets a 401 with this message, which the tests expect to see verbatim.
import os

from fastapi import HTTPException, Request
from litellm.proxy._types import UserAPIKeyAuth

KEY = os.environ["PASSRATE_LITELLM_KEY"]


async def user_api_key_auth(request: Request, api_key: str) -> UserAPIKeyAuth:
    if api_key == KEY:
        return UserAPIKeyAuth(api_key=api_key)
    raise HTTPException(status_code=401, detail="Incorrect API key provided to the passrate test proxy")
EOF
}

start_server() {
    local port=$1
    write_config
    # Its own session, detached from this script's terminal and pipes, so it outlives the
    # script and `--stop` can end the whole group. LITELLM_LOCAL_MODEL_COST_MAP: use the
    # bundled price table instead of fetching one (no network here).
    (
        cd "$STATE_DIR"
        PASSRATE_LITELLM_KEY="$(cat "$STATE_DIR/key")" \
            LITELLM_LOCAL_MODEL_COST_MAP=True \
            setsid "$VENV_DIR/bin/litellm" --config "$STATE_DIR/config.yaml" \
            --host 127.0.0.1 --port "$port" --num_workers 1 \
            </dev/null >"$LOG_FILE" 2>&1 &
        echo $! >"$STATE_DIR/pid"
    )
    printf '%s\n' "$port" >"$STATE_DIR/port"
}

PORT=""
if [[ -f "$STATE_DIR/port" && -f "$STATE_DIR/key" ]]; then
    PORT=$(cat "$STATE_DIR/port")
    if ready "$PORT"; then
        log "reusing the proxy in $STATE_DIR on port $PORT"
    else
        stop_server
        if port_in_use "$PORT"; then
            PORT=""
        else
            log "restarting the proxy in $STATE_DIR on port $PORT"
            start_server "$PORT"
        fi
    fi
fi
if [[ -z "$PORT" ]]; then
    rm -rf "$STATE_DIR"
    mkdir -p "$STATE_DIR"
    chmod 0700 "$STATE_DIR"
    (umask 077 && "$PYTHON" -c 'import secrets; print("sk-passrate-" + secrets.token_hex(24))' >"$STATE_DIR/key")
    PORT=${PASSRATE_LITELLM_PORT:-40110}
    while port_in_use "$PORT"; do
        PORT=$((PORT + 1))
    done
    log "starting a proxy in $STATE_DIR on port $PORT"
    start_server "$PORT"
fi

for _ in $(seq 1 120); do
    ready "$PORT" && break
    if ! kill -0 "$(cat "$STATE_DIR/pid")" 2>/dev/null; then
        log "the proxy exited while starting; the end of $LOG_FILE:"
        tail -n 30 "$LOG_FILE" >&2 || true
        exit 1
    fi
    sleep 1
done
if ! ready "$PORT"; then
    log "the proxy on port $PORT does not answer after 120 s; see $LOG_FILE"
    exit 1
fi

LINE="export PASSRATE_TEST_OPENAI_URL=http://127.0.0.1:$PORT/v1 PASSRATE_TEST_OPENAI_KEY=$(cat "$STATE_DIR/key") PASSRATE_TEST_OPENAI_MODEL=$MODEL"
printf '%s\n' "$LINE" >"$STATE_DIR/env"
printf '%s\n' "$LINE"
