#!/usr/bin/env bash
# Builds the board page's engine (crate matombo-wasm) for wasm32-unknown-unknown and puts
# it where the server embeds it: crates/matombo-web/assets/wasm/matombo.wasm. That file is
# checked in, so that `cargo run --release -- serve` works with nothing but the stable
# toolchain; run this script after changing the rules, the search or the API.
#
#   bash scripts/build-wasm.sh          # rebuild and replace the served copy
#   bash scripts/build-wasm.sh --check  # fail if the served copy is not what the source builds
#
# The build is reproducible: one codegen unit (profile `wasm` in Cargo.toml) and the
# machine-specific paths remapped, so the same source and toolchain give the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
served=crates/matombo-web/assets/wasm/matombo.wasm
target=wasm32-unknown-unknown

if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  rustup target add "$target" >&2
fi
cargo_home=${CARGO_HOME:-$HOME/.cargo}
rustc_sysroot=$(rustc --print sysroot)
export RUSTFLAGS="--remap-path-prefix=$cargo_home=/cargo --remap-path-prefix=$PWD=/matombo --remap-path-prefix=$rustc_sysroot=/rust"
# A target directory of its own: these flags would otherwise rebuild the native crates.
dir=${CARGO_TARGET_DIR:-target}/wasm-engine
cargo build -q -p matombo-wasm --target "$target" --profile wasm --target-dir "$dir"
built="$dir/$target/wasm/matombo_wasm.wasm"

if [ "${1:-}" = --check ]; then
  if cmp -s "$built" "$served"; then
    echo "the served engine $served is the current source's build ($(wc -c <"$served") bytes)"
  else
    echo "the served engine $served is stale or changed by hand: it differs from what the" >&2
    echo "current source builds ($(wc -c <"$built") bytes vs $(wc -c <"$served" 2>/dev/null || echo 0))." >&2
    echo "Run: bash scripts/build-wasm.sh, and commit $served" >&2
    exit 1
  fi
else
  cp "$built" "$served"
  echo "wrote $served ($(wc -c <"$served") bytes)"
fi
