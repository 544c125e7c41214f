//! Criterion benchmarks of the rules core: random playouts, perft with bulk counting at
//! the last ply, turn listing. Run with `cargo bench -p matombo-core`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use matombo_core::{random_playout, Position};
use rand::rngs::SmallRng;
use rand::SeedableRng;

const RULESETS: [&str; 4] = ["tsoro:8", "tsoro:21", "nsolo:8", "nsolo:36"];
/// The rulesets of the playout comparison with Ludii (no heads, no bonus).
const LUDII: [&str; 2] = ["tsoro:8,heads=0,bonus=0", "tsoro:21,heads=0,bonus=0"];

fn playouts(c: &mut Criterion) {
    let mut g = c.benchmark_group("playout");
    for name in RULESETS.into_iter().chain(LUDII) {
        let start = Position::start(name.parse().unwrap());
        let mut rng = SmallRng::seed_from_u64(7);
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::from_parameter(name), |b| b.iter(|| random_playout(&start, &mut rng, 5000)));
    }
    g.finish();
}

fn perft(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    for (name, depth) in [("tsoro:8", 4), ("tsoro:21", 3), ("nsolo:8", 3), ("nsolo:36", 1)] {
        let start = Position::start(name.parse().unwrap());
        let count = start.perft(depth) as u64;
        g.throughput(Throughput::Elements(count));
        g.bench_function(BenchmarkId::new(name, depth), |b| b.iter(|| start.perft(depth)));
    }
    g.finish();
}

fn turn_listing(c: &mut Criterion) {
    let mut g = c.benchmark_group("turns");
    for name in RULESETS {
        let start = Position::start(name.parse().unwrap());
        g.bench_function(BenchmarkId::from_parameter(name), |b| b.iter(|| start.turns().count()));
    }
    g.finish();
}

criterion_group!(benches, playouts, perft, turn_listing);
criterion_main!(benches);
