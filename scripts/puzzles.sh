#!/usr/bin/env bash
# Mines the shipped puzzles in chunks (docs/puzzles.md): each chunk is appended to the file
# (positions already there skipped), so an interrupted run keeps what it found. Run from
# the repository root after `cargo build --release -p matombo`; CHUNKS chunks (default 41).
set -e
cd "$(dirname "$0")/.."
B=target/release/matombo; F=crates/matombo-web/assets/content/puzzles.jsonl
for c in $(seq 0 $((${CHUNKS:-41} - 1))); do
  date
  $B puzzles generate --rulesets nsolo:8 --games 10 --first $((c*10)) --per-game 4 --out $F --append
  $B puzzles generate --rulesets tsoro:6 --games 20 --first $((c*20)) --per-game 4 --out $F --append
  $B puzzles generate --rulesets tsoro:8 --games 4 --first $((c*4)) --per-game 4 --out $F --append
  if [ "$c" -lt 3 ]; then
    $B puzzles generate --rulesets tsoro:21 --games 1 --first "$c" --per-game 4 --nodes 50000 --out $F --append
  fi
done
