#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the tests need (PostgreSQL from
# Debian packages), starts a throwaway PostgreSQL, then lints and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== toolchain and services" >&2
# Installs PostgreSQL from Debian packages if missing, starts a throwaway cluster and prints
# `export PASSRATE_TEST_POSTGRES_URL=...`; the store's tests run against it.
pg_env="$(scripts/postgres-test-server.sh)"
eval "$pg_env"
: "${PASSRATE_TEST_POSTGRES_URL:?the PostgreSQL test server did not start}"

# Installs LiteLLM's proxy from PyPI into ~/.cache/passrate (once), starts it on loopback and
# prints `export PASSRATE_TEST_OPENAI_URL=... PASSRATE_TEST_OPENAI_KEY=...
# PASSRATE_TEST_OPENAI_MODEL=...`; the model clients' real-server tests run against it.
openai_env="$(scripts/litellm-test-server.sh)"
eval "$openai_env"
: "${PASSRATE_TEST_OPENAI_URL:?the LiteLLM test server did not start}"

# Installs Debian's chromium and playwright-core (npm) when missing; the server's browser test
# drives them.
eval "$(scripts/chromium-test-deps.sh)"
# Installs schemathesis (PyPI) into ~/.cache/passrate when missing; the server's fuzz test
# runs it against the OpenAPI document.
eval "$(scripts/schemathesis-test.sh)"
# Installs ruff (PyPI) into ~/.cache/passrate when missing; maintainability lints Python with it.
eval "$(scripts/ruff-test.sh)"

echo "== format and lints" >&2
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== tests" >&2
cargo build --workspace --bins --locked
if command -v cargo-nextest >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
else
  cargo test --workspace --locked --no-fail-fast
fi

echo "== sandbox on pure cgroup v2 (User-Mode Linux guests)" >&2
# Fetches a User-Mode Linux kernel with apt (cached in ~/.cache/passrate/uml-v2), boots two
# pure cgroup v2 guests and runs the sandbox's corpus, limits, warm paths and passrate check
# in them; fails, never skips, when the kernel cannot be fetched.
scripts/test-cgroup-v2.sh
