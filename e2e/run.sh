#!/usr/bin/env bash
# End-to-end tests of the web board in headless Chromium.
#
#   bash e2e/run.sh            # builds `matombo` (release), serves it on a free loopback
#                              # port, runs e2e/tests.mjs and every e2e/*.test.mjs
#                              # (board, engine, offline, online, review…), stops the server
#   node e2e/review.test.mjs http://127.0.0.1:PORT/    # one file against a running server
#   MATOMBO_BIN=target/debug/matombo bash e2e/run.sh   # use an existing binary
#   E2E_ONLY=rules bash e2e/run.sh                      # only tests (or *.test.mjs files) whose name contains "rules"
#
# Installs what it needs: Debian's chromium (apt), playwright-core, typescript and axe-core (npm ci).
# First type-checks the site's JavaScript (tsc --checkJs --noEmit, e2e/tsconfig.json).
# Screenshots go to e2e/out/. Exits non-zero if any test fails.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$here"

if [ ! -x /usr/bin/chromium ]; then
  echo "installing chromium" >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -q && apt-get install -y -q chromium >&2
  else sudo apt-get update -q && sudo apt-get install -y -q chromium >&2; fi
fi
if ! command -v npm >/dev/null 2>&1; then
  # playwright-core needs Node.js 18 or newer.
  echo "installing nodejs and npm" >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -q && apt-get install -y -q nodejs npm >&2
  else sudo apt-get update -q && sudo apt-get install -y -q nodejs npm >&2; fi
fi
if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/typescript ] || [ ! -d node_modules/axe-core ]; then
  if ! npm ci --no-audit --no-fund >&2; then
    echo "npm ci failed: playwright-core, typescript and axe-core are not installed (see above; $(df -Ph . | awk 'NR == 2 {print $4}') free on disk)" >&2
    exit 1
  fi
fi

# The site's JavaScript type-checked (JSDoc types; tsconfig.json, wire types in
# assets/js/wire.js): a type error fails the run like a failed test.
echo "== tsc --checkJs" >&2
tsc_failed=0
if ! node_modules/.bin/tsc -p tsconfig.json >&2; then tsc_failed=1; echo "tsc: type errors (above)" >&2; fi

if [ -z "${MATOMBO_BIN:-}" ]; then
  (cd "$root" && cargo build --release -p matombo >&2)
  MATOMBO_BIN="${CARGO_TARGET_DIR:-$root/target}/release/matombo"
fi
case "$MATOMBO_BIN" in /*) ;; *) MATOMBO_BIN="$root/$MATOMBO_BIN" ;; esac
# Tests that need a server of their own (to stop it) start this binary.
export MATOMBO_BIN

mkdir -p out
rm -f out/*.png out/server.url out/online.sqlite*
"$MATOMBO_BIN" serve --host 127.0.0.1 --port 0 --db "$here/out/online.sqlite" >out/server.url 2>out/server.log &
server=$!
cleanup() { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
trap cleanup EXIT

url=""
for _ in $(seq 1 100); do
  url="$(head -n1 out/server.url 2>/dev/null || true)"
  [ -n "$url" ] && break
  if ! kill -0 "$server" 2>/dev/null; then echo "the server did not start:" >&2; cat out/server.log >&2; exit 1; fi
  sleep 0.1
done
[ -n "$url" ] || { echo "the server printed no address" >&2; exit 1; }
echo "server at $url" >&2

# tests.mjs (the board) and every *.test.mjs (e.g. online play) take the server's address
# and end with "N passed, N failed"; the totals are summed here.
passed=0
failed=0
for script in tests.mjs *.test.mjs; do
  [ -e "$script" ] || continue
  # E2E_ONLY: tests.mjs runs its tests of that name; a *.test.mjs whose file name holds it
  # runs whole (e.g. E2E_ONLY=teams: teams.test.mjs), the others not at all.
  only="${E2E_ONLY:-}"
  if [ -n "$only" ] && [ "$script" != tests.mjs ]; then
    case "$script" in *"$only"*) only="" ;; *) continue ;; esac
  fi
  echo "== $script" >&2
  rc=0
  E2E_ONLY="$only" node "$script" "$url" | tee out/last.log || rc=$?
  line="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' out/last.log | tail -n1 || true)"
  if [ -n "$line" ]; then
    p=$(echo "$line" | cut -d' ' -f1)
    f=$(echo "$line" | cut -d' ' -f3)
  else
    # No summary line: count TAP-style "ok" / "not ok" lines.
    p=$(grep -cE '^ok\b' out/last.log || true)
    f=$(grep -cE '^not ok\b' out/last.log || true)
  fi
  # A script that failed without saying so counts as one failure.
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  passed=$((passed + p))
  failed=$((failed + f))
done
failed=$((failed + tsc_failed))
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
