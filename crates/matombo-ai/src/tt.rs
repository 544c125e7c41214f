//! The transposition table: scores of positions already searched, keyed by the position
//! hash (salted with the ruleset), kept between the searches of one engine.

use crate::search::MATE_BOUND;

#[derive(Clone, Copy, Default)]
pub(crate) struct Entry {
    pub key: u64,
    pub score: i32,
    pub best: u16,
    pub depth: u8,
    pub bound: u8,
}

pub(crate) const EXACT: u8 = 1;
pub(crate) const LOWER: u8 = 2;
pub(crate) const UPPER: u8 = 3;
/// Set in an entry's `bound` when its score is not what a search of every legal turn
/// would give (see `Searcher::taint`).
pub(crate) const TAINT: u8 = 4;
pub(crate) const BOUND: u8 = 3;

/// The transposition table: one entry per slot, replaced when the new search is at least
/// as deep or the slot holds another position.
pub(crate) struct Table {
    slots: Vec<Entry>,
    mask: usize,
}

impl Table {
    /// The largest table of a power-of-two number of slots that fits in `mib` MiB (at
    /// least one MiB).
    pub fn with_mib(mib: usize) -> Table {
        let slots = mib.max(1).saturating_mul((1 << 20) / std::mem::size_of::<Entry>());
        let log2 = usize::BITS - 1 - slots.leading_zeros();
        Table { slots: vec![Entry::default(); 1 << log2], mask: (1 << log2) - 1 }
    }

    /// The table's size in MiB.
    pub fn mib(&self) -> usize {
        (self.slots.len() * std::mem::size_of::<Entry>()) >> 20
    }
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = self.slots[key as usize & self.mask];
        (e.bound != 0 && e.key == key).then_some(e)
    }
    pub fn store(&mut self, key: u64, e: Entry) {
        let slot = &mut self.slots[key as usize & self.mask];
        if slot.key != key || e.depth >= slot.depth || e.bound & BOUND == EXACT {
            *slot = Entry { key, ..e };
        }
    }
}

/// Mate scores are stored relative to the node so that they stay right when the same
/// position is reached at another ply.
pub(crate) fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}
pub(crate) fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The kind of bound a score is, given the window it was searched with.
pub(crate) fn bound_of(best: i32, alpha: i32, beta: i32) -> u8 {
    if best >= beta {
        LOWER
    } else if best > alpha {
        EXACT
    } else {
        UPPER
    }
}
