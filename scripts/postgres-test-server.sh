#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the passrate-store tests and prints
#   export PASSRATE_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:PORT/passrate_test
# on stdout (everything else goes to stderr), so `eval "$(scripts/postgres-test-server.sh)"`
# sets it. The same line is written to $STATE_DIR/env.
#
# Idempotent: a cluster already running in the state directory is reused; a stopped one is
# started again; a broken one is recreated. Installs PostgreSQL from Debian packages when no
# server binaries are found. Works as root (the cluster runs as the `postgres` user) or as an
# ordinary user (the cluster runs as that user).
#
#   scripts/postgres-test-server.sh          start (or reuse) and print the export line
#   scripts/postgres-test-server.sh --stop   stop the cluster and remove its state directory
#
# Environment: PASSRATE_PG_DIR (state directory, default ${TMPDIR:-/tmp}/passrate-test-pg),
# PASSRATE_PG_PORT (first port to try, default 54329).
set -euo pipefail

STATE_DIR="${PASSRATE_PG_DIR:-${TMPDIR:-/tmp}/passrate-test-pg}"
DATA_DIR="$STATE_DIR/data"
SOCKET_DIR="$STATE_DIR/socket"
LOG_FILE="$STATE_DIR/server.log"
DATABASE=passrate_test

log() { printf 'postgres-test-server: %s\n' "$*" >&2; }

find_bin_dir() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [[ -n "$dir" && -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
        printf '%s\n' "$dir"
    fi
}

BIN_DIR=$(find_bin_dir)
if [[ -z "$BIN_DIR" ]]; then
    if [[ $(id -u) -ne 0 ]]; then
        log "PostgreSQL is not installed and installing it needs root: apt-get install -y postgresql"
        exit 1
    fi
    log "installing PostgreSQL from Debian packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update >&2
    apt-get install -y --no-install-recommends postgresql >&2
    BIN_DIR=$(find_bin_dir)
    if [[ -z "$BIN_DIR" ]]; then
        log "apt-get installed postgresql but no server binaries were found under /usr/lib/postgresql"
        exit 1
    fi
fi

# The server refuses to run as root: as root, run it as the packaged `postgres` user.
if [[ $(id -u) -eq 0 ]]; then
    if ! id postgres >/dev/null 2>&1; then
        log "the postgres user is missing; reinstall the postgresql package"
        exit 1
    fi
    as_pg() { runuser -u postgres -- "$@"; }
    OWNER=postgres
else
    as_pg() { "$@"; }
    OWNER=$(id -un)
fi

pg_ctl_() { as_pg "$BIN_DIR/pg_ctl" -D "$DATA_DIR" "$@"; }

if [[ "${1:-}" == "--stop" ]]; then
    if [[ -d "$DATA_DIR" ]]; then
        pg_ctl_ -m immediate stop >&2 || true
    fi
    rm -rf "$STATE_DIR"
    log "stopped and removed $STATE_DIR"
    exit 0
fi

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

ready() {
    local port=$1
    "$BIN_DIR/pg_isready" -q -h 127.0.0.1 -p "$port" -d postgres -U postgres -t 2 2>/dev/null
}

start_cluster() {
    local port=$1
    pg_ctl_ -w -t 60 -l "$LOG_FILE" \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $SOCKET_DIR -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >&2
}

create_cluster() {
    rm -rf "$STATE_DIR"
    mkdir -p "$SOCKET_DIR"
    chmod 0755 "$STATE_DIR"
    chown -R "$OWNER" "$STATE_DIR"
    # Trust authentication is acceptable only because the cluster listens on loopback and a
    # private socket directory, and holds nothing but test data.
    as_pg "$BIN_DIR/initdb" -D "$DATA_DIR" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >&2 \
        || as_pg "$BIN_DIR/initdb" -D "$DATA_DIR" -U postgres --auth=trust -E UTF8 --no-locale >&2
    local port=${PASSRATE_PG_PORT:-54329}
    while port_in_use "$port"; do
        port=$((port + 1))
    done
    printf '%s\n' "$port" >"$STATE_DIR/port"
    start_cluster "$port"
}

# A cluster left stopped (machine reused, server killed): stop whatever half-state remains,
# then start it on its port if that port is still free.
restart_cluster() {
    local port=$1
    pg_ctl_ -m immediate stop >/dev/null 2>&1 || true
    ! port_in_use "$port" || return 1
    rm -f "$DATA_DIR/postmaster.pid"
    start_cluster "$port" && ready "$port"
}

PORT=""
if [[ -f "$STATE_DIR/port" && -f "$DATA_DIR/PG_VERSION" ]]; then
    PORT=$(cat "$STATE_DIR/port")
    if ready "$PORT"; then
        log "reusing the cluster in $STATE_DIR on port $PORT"
    elif restart_cluster "$PORT"; then
        log "restarted the cluster in $STATE_DIR on port $PORT"
    else
        log "the cluster in $STATE_DIR is unusable; recreating it"
        PORT=""
    fi
fi
if [[ -z "$PORT" ]]; then
    create_cluster
    PORT=$(cat "$STATE_DIR/port")
    log "started a new cluster in $STATE_DIR on port $PORT"
fi

for _ in $(seq 1 30); do
    ready "$PORT" && break
    sleep 1
done
if ! ready "$PORT"; then
    log "the server on port $PORT does not answer; see $LOG_FILE"
    exit 1
fi

PSQL=("$BIN_DIR/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres -d postgres)
if [[ -z $("${PSQL[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'") ]]; then
    "${PSQL[@]}" -c "CREATE DATABASE $DATABASE" >&2
fi

LINE="export PASSRATE_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$PORT/$DATABASE"
printf '%s\n' "$LINE" >"$STATE_DIR/env"
printf '%s\n' "$LINE"
