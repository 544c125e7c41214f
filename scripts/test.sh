#!/usr/bin/env bash
# The whole test suite, as CI runs it: formatting, lints, unit/integration/doc tests, the
# check that the served wasm engine is the current source's build, brief fuzzing, the
# terminal and browser end-to-end tests.
# Installs what the tests need beyond Rust (tmux, Chromium, playwright-core) on the way.
#
# Environment: SKIP_E2E=1 skips the browser and tmux tests; SKIP_FUZZ=1 skips fuzzing;
# FUZZ_SECONDS (default 10) is the time per fuzz target.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# One build from scratch gains nothing from incremental data, which would take a further
# gigabyte of disk.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
failed=()
passed=()
started=$SECONDS
# Free disk at the start and the end: a linker killed by a full disk says only "Bus error".
disk_free() { df -Ph . | awk 'NR == 2 {print $4 " free on " $6}'; }
echo "disk: $(disk_free)"
# A failing step leaves the lines that say why here (its own note, else the tail of its
# output), repeated after the summary so that they are among the last lines CI prints.
notes=$(mktemp -d)
trap 'rm -rf "$notes"' EXIT
step() {
  local name=$1 log="$notes/.step.log"
  shift
  echo
  echo "=== $name"
  local t0=$SECONDS
  if "$@" 2>&1 | tee "$log"; then
    passed+=("$name ($((SECONDS - t0)) s)")
  else
    echo "!!! $name FAILED"
    failed+=("$name ($((SECONDS - t0)) s)")
    [ -f "$notes/$name" ] || tail -n 30 "$log" >"$notes/$name"
  fi
}

apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "need root to install: ${missing[*]}" >&2
    return 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# System packages first: the tmux test runs inside `cargo test`.
if [ "${SKIP_E2E:-0}" != 1 ]; then
  step "install tmux, chromium and a Bengali font" apt_install tmux chromium fonts-lohit-beng-bengali
fi

# PostgreSQL for the store tests (both backends run them): Debian's package and a
# throwaway cluster (scripts/pg-cluster.sh), stopped at exit. Without it the PostgreSQL
# tests fail under CI rather than skip.
step "install postgresql" apt_install postgresql
if pg_env=$(bash scripts/pg-cluster.sh start); then
  eval "$pg_env"
  trap 'bash scripts/pg-cluster.sh stop "$PG_CLUSTER_DIR"; rm -rf "$notes"' EXIT
else
  failed+=("postgresql cluster")
fi
# crates/matombo/tests/behind_nginx.rs puts Debian's nginx in front of `serve`.
step "install nginx" apt_install nginx

step "format" cargo fmt --all -- --check
step "clippy" cargo clippy --workspace --all-targets -q -- -D warnings
step "tests" cargo test --workspace -q
# The binary those tests built (the test profile: optimised, with debug assertions) serves
# the steps below; `cargo run` would compile the whole workspace again in the dev profile.
bin="${CARGO_TARGET_DIR:-target}/debug/matombo"
# A small online load test: 50 rooms, two WebSocket clients each, on loopback; fails on
# any error (the full-size figures are in the README).
step "online load test" "$bin" loadtest --rooms 50 --duration 5 --ramp 2 --json
# Every attack of docs/security.md, a few seconds each, against an in-process server with
# the production limits; fails if a bound breaks or the honest client suffers.
step "attack harness" "$bin" attack --short --json
step "docs build" env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps -q
# The systemd unit of deploy/, pointed at the binary the tests built.
systemd_unit() {
  local d
  d=$(mktemp -d)
  sed "s|/usr/local/bin/matombo|$PWD/${CARGO_TARGET_DIR:-target}/debug/matombo|" deploy/matombo.service >"$d/matombo.service"
  systemd-analyze verify "$d/matombo.service"
  local rc=$?
  rm -rf "$d"
  return $rc
}
if command -v systemd-analyze >/dev/null; then
  step "systemd unit verified" systemd_unit
else
  echo "(no systemd-analyze: deploy/matombo.service not verified)"
fi

# The board's engine is served from a checked-in WebAssembly build
# (crates/matombo-web/assets/wasm/matombo.wasm); it must be exactly what the current
# source builds, or the page would play by stale rules.
step "served wasm engine is the current source's build" bash scripts/build-wasm.sh --check

if [ "${SKIP_FUZZ:-0}" != 1 ] && rustup toolchain list | grep -q nightly; then
  fuzz() {
    if ! command -v cargo-fuzz >/dev/null; then
      # Pinned, with its own lock file, so that a new release of one of its dependencies
      # cannot break the install.
      cargo install -q --locked cargo-fuzz@0.13.2 || {
        echo "cannot install cargo-fuzz"
        return 1
      }
    fi
    cargo +nightly --version
    local t targets key log="$notes/.fuzz.log"
    targets=$(cargo +nightly fuzz list --fuzz-dir fuzz) || {
      echo "cannot list the fuzz targets"
      return 1
    }
    for t in $targets; do
      echo "fuzzing $t for ${FUZZ_SECONDS:-10}s"
      if ! cargo +nightly fuzz run -s none --fuzz-dir fuzz "$t" -- -max_total_time="${FUZZ_SECONDS:-10}" >"$log" 2>&1; then
        tail -n 80 "$log"
        # The lines that say what broke (a panic and its input, saved under
        # fuzz/artifacts/$t; a build error) become the step's note; without them, the
        # step's tail is the note.
        key=$({
          grep -A1 "panicked at" "$log"
          grep -E "^Base64|Test unit written|^error|out-of-memory|timeout" "$log"
        } | head -n 20)
        [ -z "$key" ] || printf 'fuzz target %s:\n%s\n' "$t" "$key" >"$notes/fuzz"
        echo "fuzz target $t FAILED"
        return 1
      fi
      tail -n 1 "$log"
    done
  }
  step "fuzz" fuzz
else
  echo "(no nightly toolchain: fuzzing skipped)"
fi

if [ "${SKIP_E2E:-0}" != 1 ]; then
  if [ -f e2e/run.sh ]; then
    # The debug binary that `cargo test` built is enough for the browser tests and saves
    # a release build.
    step "browser end-to-end" env MATOMBO_BIN="${CARGO_TARGET_DIR:-target}/debug/matombo" bash e2e/run.sh
  fi
fi

echo
echo "=== summary"
for s in "${passed[@]}"; do echo "ok   $s"; done
for s in "${failed[@]}"; do echo "FAIL $s"; done
for f in "$notes"/*; do
  [ -f "$f" ] && { echo "--- $(basename "$f")"; cat "$f"; }
done
echo "disk at the end: $(disk_free)"
echo "${#passed[@]} passed, ${#failed[@]} failed, $((SECONDS - started)) s in all"
[ ${#failed[@]} -eq 0 ]
