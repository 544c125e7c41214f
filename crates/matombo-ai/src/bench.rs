//! The search's node-count signature, as Stockfish's `bench` gives one: a fixed search
//! (fixed depth, fresh engine, fixed seed, no clock) over a fixed set of positions, its
//! node total printed by `matombo bench`. Any change that alters what the search does
//! (ordering, pruning, evaluation, table, move generation) changes the total; a change
//! that only makes it faster does not. A test compares it with the number committed in
//! `crates/matombo-ai/tests/bench.rs` (docs/performance.md says how to update it).

use std::sync::atomic::AtomicBool;

use matombo_core::{Position, Ruleset};

use crate::{Engine, Limits};

/// One position of the signature and the depth it is searched to.
#[derive(Clone, Debug)]
pub struct BenchPosition {
    /// The position.
    pub position: Position,
    /// Search depth in turns.
    pub depth: u32,
}

/// The rulesets of the signature, each with its search depth and the plies played before
/// each of its positions (the depths keep the whole run short in a debug build).
const SET: [(&str, u32, [usize; 3]); 4] =
    [("tsoro:8", 6, [0, 6, 14]), ("tsoro:21", 4, [0, 4, 10]), ("nsolo:8", 5, [0, 5, 12]), ("nsolo:36", 2, [0, 3, 8])];

/// The walk to a position chooses among this many first legal turns.
const WALK_WIDTH: usize = 16;
/// Seed of the engines of the signature.
const SEED: u64 = 1;
/// Transposition table of the signature's engines, in MiB.
const HASH_MIB: usize = 4;

/// The position after `plies` turns from the start of `r`, each the `(7 * ply + 3)`-th
/// of the first [`WALK_WIDTH`] legal turns of `Position::turns` (counted round): varied,
/// written with the core alone (no random generator, so it does not change with a
/// dependency), and quick (a big Nsolo capture has too many bonus sets to list).
fn walk(r: Ruleset, plies: usize) -> Position {
    let mut pos = Position::start(r);
    for ply in 0..plies {
        let turns: Vec<Position> = pos.turns().take(WALK_WIDTH).map(|(_, child)| child).collect();
        if turns.is_empty() {
            break;
        }
        pos = turns[(7 * ply + 3) % turns.len()].clone();
    }
    pos
}

/// The positions of the signature, in order.
pub fn positions() -> Vec<BenchPosition> {
    SET.iter()
        .flat_map(|&(name, depth, plies)| {
            let r: Ruleset = name.parse().expect("the signature's rulesets are valid");
            plies.into_iter().map(move |p| BenchPosition { position: walk(r, p), depth })
        })
        .collect()
}

/// The signature: the nodes of each position's search, in [`positions`]'s order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// Nodes searched per position.
    pub nodes: Vec<u64>,
}

impl Signature {
    /// The node total: the number `matombo bench` prints.
    pub fn total(&self) -> u64 {
        self.nodes.iter().sum()
    }
}

/// Runs the signature's searches (a fresh engine for each position, so none depends on
/// the one before).
pub fn signature() -> Signature {
    let stop = AtomicBool::new(false);
    let nodes = positions()
        .iter()
        .map(|b| {
            let limits = Limits { depth: Some(b.depth), ..Limits::default() };
            let mut engine = Engine::new(SEED).with_hash_mib(HASH_MIB);
            engine.search(&b.position, limits, &stop).map_or(0, |r| r.nodes)
        })
        .collect();
    Signature { nodes }
}
