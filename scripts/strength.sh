#!/usr/bin/env bash
# The AI strength grid of the README: for each ruleset, hard against the baselines, each
# level against the level below, and max with twice the time against max. Prints a
# Markdown table (one row per match, as it finishes) and keeps every match's JSON summary
# and game records in $OUT.
#
#   bash scripts/strength.sh                      # the full grid: 200 games per match
#   GAMES=20 RULESETS="tsoro:8" bash scripts/strength.sh
#   PAIRS="hard:greedy max,time=6000:max" bash scripts/strength.sh
#
# Settings (environment): GAMES (200), THREADS (number of cores), RULESETS (tsoro:8
# tsoro:21 nsolo:8 nsolo:36), PAIRS (first:second specs, see `matombo match --help`),
# OUT (strength-results), BALANCED (150: `--balanced` tolerance of the openings, empty for
# plain random openings), BIN (a built matombo; default: build it). Timed levels lose
# strength when cores are shared: run it on an otherwise idle machine with THREADS no
# larger than the number of cores.
set -euo pipefail

cd "$(dirname "$0")/.."
GAMES=${GAMES:-200}
THREADS=${THREADS:-$(nproc)}
RULESETS=${RULESETS:-"tsoro:8 tsoro:21 nsolo:8 nsolo:36"}
PAIRS=${PAIRS:-"hard:greedy hard:random easy:beginner medium:easy hard:medium max:hard max,time=6000:max"}
OUT=${OUT:-strength-results}
BALANCED=${BALANCED-150}
balance=()
if [ -n "$BALANCED" ]; then balance=(--balanced "$BALANCED"); fi

if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=${CARGO_TARGET_DIR:-target}/release/matombo
fi
bin=$BIN
mkdir -p "$OUT"

field() { # field NAME FILE: a number or string field of a match's JSON summary
  sed -n "s/^ *\"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$2" | head -n 1
}

echo "| ruleset | first | second | games | wins | losses | draws | unfinished | score | Elo (95% interval) |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---|"
for ruleset in $RULESETS; do
  for pair in $PAIRS; do
    first=${pair%%:*}
    second=${pair#*:}
    name="${ruleset/:/-}_${first//[,=]/-}_vs_${second//[,=]/-}"
    "$bin" match "$first" "$second" --ruleset "$ruleset" --games "$GAMES" --threads "$THREADS" \
      "${balance[@]}" --records "$OUT/$name.pgn" --json >"$OUT/$name.json"
    j="$OUT/$name.json"
    score=$(field score "$j")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %.1f%% | %+.0f (%+.0f .. %+.0f) |\n' \
      "$ruleset" "$first" "$second" "$(field games "$j")" "$(field wins "$j")" "$(field losses "$j")" \
      "$(field draws "$j")" "$(field unfinished "$j")" "$(awk "BEGIN { print ${score:-0} * 100 }")" \
      "$(field elo "$j")" "$(field elo_low "$j")" "$(field elo_high "$j")"
  done
done
