#!/usr/bin/env bash
# Mines the shipped puzzles in chunks (docs/puzzles.md). Run from the repository root after
# `cargo build --release -p matombo`.
set -e
cd "$(dirname "$0")/.."
B=target/release/matombo; F=crates/matombo-web/assets/content/puzzles.jsonl
for c in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do
  date
  $B puzzles generate --rulesets nsolo:8 --games 10 --first $((c*10)) --per-game 4 --out $F --append
  $B puzzles generate --rulesets tsoro:6 --games 10 --first $((c*10)) --per-game 4 --out $F --append
  $B puzzles generate --rulesets tsoro:21 --games 1 --first $c --per-game 4 --nodes 50000 --out $F --append
  $B puzzles generate --rulesets tsoro:8 --games 2 --first $((c*2)) --per-game 4 --out $F --append
done
