#!/usr/bin/env bash
# The figures of docs/serving.md "Running several nodes", in one run on one machine:
# `matombo loadtest` against one `serve` node, then against two nodes on the same
# PostgreSQL database (each game's players on different nodes), and the time another node
# takes to become the leader after the leader is killed with SIGKILL.
#
#   bash scripts/cluster-figures.sh [BIN] [ROOMS] [SECONDS]
#
# BIN defaults to target/debug/matombo (the workspace's dev profile is optimised). Starts
# and stops its own throwaway PostgreSQL (scripts/pg-cluster.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/debug/matombo}
rooms=${2:-100}
seconds=${3:-15}
eval "$(bash scripts/pg-cluster.sh start)"
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  bash scripts/pg-cluster.sh stop "$PG_CLUSTER_DIR"
  rm -rf "$work"
}
trap cleanup EXIT

# Starts a node; prints its URL. Its log goes to $work/NAME.log.
node() {
  local name=$1
  MATOMBO_LOG=matombo_online=info "$bin" serve --port 0 --loadtest-limits "$((2 * rooms))" --db "$MATOMBO_TEST_PG" \
    >"$work/$name.url" 2>"$work/$name.log" &
  pids+=($!)
  echo $! >"$work/$name.pid"
  for _ in $(seq 100); do
    [ -s "$work/$name.url" ] && break
    sleep 0.1
  done
  head -n 1 "$work/$name.url"
}

a=$(node a)
b=$(node b)
load() {
  "$bin" loadtest "$@" --rooms "$rooms" --duration "$seconds" --ramp 3 --json |
    python3 -c 'import json,sys; r=json.load(sys.stdin); print("%.1f %.1f %d" % (r["turns_per_sec"], r["p99_ms"], r["errors"]))'
}
read -r one_tps one_p99 one_err < <(load --url "$a")
read -r two_tps two_p99 two_err < <(load --url "$a" --url "$b")
echo "one node:  $one_tps turns/s, p99 $one_p99 ms, $one_err errors"
echo "two nodes: $two_tps turns/s, p99 $two_p99 ms, $two_err errors"
python3 -c "print(f'ratio two/one: {$two_tps / $one_tps:.2f} (turns/s), {$two_p99 / $one_p99:.2f} (p99)')"

# Fail-over: kill the leader, time until the other node logs that it leads.
leader=a
grep -q "leader: this node" "$work/b.log" && leader=b
other=$([ $leader = a ] && echo b || echo a)
before=$(grep -c "leader: this node" "$work/$other.log" || true)
t0=$(date +%s.%N)
kill -9 "$(cat "$work/$leader.pid")"
for _ in $(seq 200); do
  [ "$(grep -c "leader: this node" "$work/$other.log" || true)" -gt "$before" ] && break
  sleep 0.05
done
t1=$(date +%s.%N)
python3 -c "print(f'leader fail-over: {$t1 - $t0:.2f} s')"
