//! Retrograde analysis of one layer.
//!
//! Stones only leave the board, so a turn either keeps the stone count (a sowing without
//! capture) or leads to a lower layer, whose values are already known. Within a layer the
//! turns form a graph with cycles: the builder generates every position's turns once,
//! keeps the same-layer edges reversed, seeds the positions decided by the lower layers
//! (and those with no legal turn), then settles positions in increasing distance, like a
//! breadth-first search backwards from the ends. What is never settled is a draw.

use std::sync::atomic::{AtomicU64, Ordering};

use matombo_core::Position;

use crate::index::LayerIndex;
use crate::value::{Value, MAX_DISTANCE};
use crate::{Error, Layer};

/// The solved lower layers, indexed by stone count.
pub type Lower<'a> = &'a [Layer];

/// What one position's turns said, before the same-layer graph is solved.
#[derive(Clone, Copy, Default)]
struct Seed {
    /// Shortest win through a lower-layer child that is lost for its mover (0: none).
    win: u16,
    /// Longest loss through lower-layer children that are all won for their movers.
    loss: u16,
    /// Some lower-layer child is a draw or a loss for its mover: this position is no loss.
    not_lost: bool,
    /// The position has at least one legal turn.
    moves: bool,
}

const UNSET: u16 = u16::MAX;
const LOSS_BIT: u32 = 1 << 31;

/// How a build may use the machine.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Worker threads for generating turns.
    pub threads: usize,
    /// Bytes the build may hold at once (the lower layers' codes included); a layer that
    /// would need more stops with [`Error::Memory`] before it takes it.
    pub memory: u64,
}

/// Bytes held per position of the layer being built, besides its edges: the seed (6),
/// same-layer degree (2), the reversed edges' row start (4), the code (2), and the
/// per-thread copies made while joining (8).
pub const BYTES_PER_POSITION: u64 = 22;
/// Bytes per same-layer edge: forward and reversed, 4 each.
pub const BYTES_PER_EDGE: u64 = 8;

/// Solves the layer `index` given every lower layer; `progress` is called with the number
/// of positions whose turns were generated. Returns the codes and the number of
/// same-layer edges (turns that capture nothing).
pub fn build_layer(
    index: &LayerIndex,
    lower: Lower<'_>,
    budget: Budget,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Vec<u16>, u64), Error> {
    let len = index.len() as usize;
    let threads = budget.threads.max(1);
    let chunk = len.div_ceil(threads).max(1);
    let done = AtomicU64::new(0);
    let held: u64 = lower.iter().map(|l| 2 * l.codes.len() as u64).sum::<u64>() + BYTES_PER_POSITION * len as u64;
    if held > budget.memory {
        return Err(Error::Memory { stones: index.stones(), needed: held, limit: budget.memory });
    }
    let edge_total = AtomicU64::new(0);
    let over = std::sync::atomic::AtomicBool::new(false);

    // Pass 1, in parallel: every position's turns.
    let parts: Vec<(Vec<Seed>, Vec<u16>, Vec<u32>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..len.div_ceil(chunk))
            .map(|w| {
                let (index, done, edge_total, over) = (&index, &done, &edge_total, &over);
                s.spawn(move || {
                    let range = w * chunk..((w + 1) * chunk).min(len);
                    let mut seeds = Vec::with_capacity(range.len());
                    let mut degrees = Vec::with_capacity(range.len());
                    let mut edges = Vec::new();
                    // Edges already counted in `edge_total`, which bounds the memory.
                    let mut reported = 0;
                    for (k, i) in range.enumerate() {
                        let pos = index.unrank(i as u64);
                        let before = edges.len();
                        seeds.push(expand(&pos, index, lower, &mut edges));
                        degrees.push((edges.len() - before) as u16);
                        if k % 4096 == 4095 {
                            progress(done.fetch_add(4096, Ordering::Relaxed) + 4096);
                            let new = (edges.len() - reported) as u64;
                            reported = edges.len();
                            let e = edge_total.fetch_add(new, Ordering::Relaxed) + new;
                            if held + BYTES_PER_EDGE * e > budget.memory || over.load(Ordering::Relaxed) {
                                over.store(true, Ordering::Relaxed);
                                break;
                            }
                        }
                    }
                    edge_total.fetch_add((edges.len() - reported) as u64, Ordering::Relaxed);
                    (seeds, degrees, edges)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a layer worker panicked")).collect()
    });
    let edges = edge_total.load(Ordering::Relaxed);
    if over.load(Ordering::Relaxed) {
        return Err(Error::Memory {
            stones: index.stones(),
            needed: held + BYTES_PER_EDGE * edges,
            limit: budget.memory,
        });
    }
    progress(len as u64);

    let mut seeds = Vec::with_capacity(len);
    let mut remaining = Vec::with_capacity(len);
    let mut forward = Vec::new();
    for (s, d, e) in parts {
        seeds.extend(s);
        remaining.extend(d);
        forward.extend(e);
    }

    // The same-layer edges reversed (compressed rows): the parents of each position.
    let mut start = vec![0u32; len + 1];
    for &c in &forward {
        start[c as usize + 1] += 1;
    }
    for i in 0..len {
        start[i + 1] += start[i];
    }
    let mut parents = vec![0u32; forward.len()];
    let mut fill = start.clone();
    let mut e = 0;
    for (p, &deg) in remaining.iter().enumerate() {
        for &c in &forward[e..e + deg as usize] {
            parents[fill[c as usize] as usize] = p as u32;
            fill[c as usize] += 1;
        }
        e += deg as usize;
    }
    drop(forward);
    drop(fill);

    // Buckets of (position, win or loss) by distance.
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    let push = |buckets: &mut Vec<Vec<u32>>, d: u16, entry: u32| -> Result<(), Error> {
        if d > MAX_DISTANCE {
            return Err(Error::TooDeep);
        }
        if buckets.len() <= d as usize {
            buckets.resize_with(d as usize + 1, Vec::new);
        }
        buckets[d as usize].push(entry);
        Ok(())
    };
    for (p, s) in seeds.iter().enumerate() {
        if !s.moves {
            push(&mut buckets, 0, p as u32 | LOSS_BIT)?;
        } else if s.win > 0 {
            push(&mut buckets, s.win, p as u32)?;
        } else if remaining[p] == 0 && !s.not_lost {
            push(&mut buckets, s.loss, p as u32 | LOSS_BIT)?;
        }
    }

    let mut codes = vec![UNSET; len];
    let mut d = 0usize;
    while d < buckets.len() {
        let bucket = std::mem::take(&mut buckets[d]);
        for entry in bucket {
            let p = (entry & !LOSS_BIT) as usize;
            if codes[p] != UNSET {
                continue;
            }
            let lost = entry & LOSS_BIT != 0;
            let value = if lost { Value::Loss(d as u16) } else { Value::Win(d as u16) };
            codes[p] = value.code();
            for &q in &parents[start[p] as usize..start[p + 1] as usize] {
                let q = q as usize;
                if codes[q] != UNSET {
                    continue;
                }
                if lost {
                    push(&mut buckets, d as u16 + 1, q as u32)?;
                } else {
                    remaining[q] -= 1;
                    let s = seeds[q];
                    if remaining[q] == 0 && !s.not_lost && s.win == 0 {
                        push(&mut buckets, (d as u16 + 1).max(s.loss), q as u32 | LOSS_BIT)?;
                    }
                }
            }
        }
        d += 1;
    }
    for c in &mut codes {
        if *c == UNSET {
            *c = Value::Draw.code();
        }
    }
    Ok((codes, edges))
}

/// Generates `pos`'s turns: same-layer children go to `edges`, lower ones into the seed.
fn expand(pos: &Position, index: &LayerIndex, lower: Lower<'_>, edges: &mut Vec<u32>) -> Seed {
    let mut seed = Seed::default();
    let stones = index.stones();
    pos.for_each_child(&mut |child| {
        seed.moves = true;
        let m = child.total_stones();
        if m == stones {
            edges.push(index.rank(child) as u32);
            return;
        }
        match lower[m as usize].value(child) {
            Value::Loss(d) => {
                if seed.win == 0 || d + 1 < seed.win {
                    seed.win = d + 1;
                }
                seed.not_lost = true;
            }
            Value::Win(d) => seed.loss = seed.loss.max(d + 1),
            Value::Draw => seed.not_lost = true,
        }
    });
    seed
}
