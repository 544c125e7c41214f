//! Dense numbering of the positions of one layer (a fixed number of stones, either side
//! to move): the combinatorial number system over compositions of the stones into holes.

use matombo_core::{Hole, Position, Ruleset, Setup, Side};

/// Numbers the positions of `ruleset` holding exactly `stones` stones, South to move first
/// (`0..per_side`) then North (`per_side..2 * per_side`).
///
/// Holes are ordered South's track (`t = 0..2N`) then North's, as
/// [`Position::track`] gives them, so that ranking a position reads its counts in place.
#[derive(Clone, Debug)]
pub struct LayerIndex {
    ruleset: Ruleset,
    stones: u32,
    holes: usize,
    per_side: u64,
    /// `binom[a][b]` = C(a, b) for `a <= stones + holes`, `b <= holes`.
    binom: Vec<Vec<u64>>,
    /// For each hole in index order, its row (0..4 as in [`Setup::rows`]) and column.
    cells: Vec<(usize, usize)>,
}

impl LayerIndex {
    /// The index of the layer of `stones` stones, or `None` when the layer is too big to
    /// number with 32-bit indices (the builder's limit).
    pub fn new(ruleset: Ruleset, stones: u32) -> Option<LayerIndex> {
        let n = ruleset.size();
        let holes = 4 * n;
        let top = stones as usize + holes;
        let mut binom = vec![vec![0u64; holes + 1]; top + 1];
        for a in 0..=top {
            binom[a][0] = 1;
            for b in 1..=holes.min(a) {
                binom[a][b] = binom[a - 1][b - 1].checked_add(binom[a - 1][b])?;
            }
        }
        // Compositions of `stones` into `holes` parts.
        let per_side = binom[stones as usize + holes - 1][holes - 1];
        if per_side.checked_mul(2)? > u32::MAX as u64 {
            return None;
        }
        let mut cells = Vec::with_capacity(holes);
        for side in Side::BOTH {
            for t in 0..2 * n {
                let h = Hole::from_track(side, t, n);
                let k = h.number as usize;
                cells.push(match (side, h.row) {
                    (Side::South, matombo_core::Row::Outer) => (3, k - 1),
                    (Side::South, matombo_core::Row::Inner) => (2, k - 1),
                    (Side::North, matombo_core::Row::Outer) => (0, n - k),
                    (Side::North, matombo_core::Row::Inner) => (1, n - k),
                });
            }
        }
        Some(LayerIndex { ruleset, stones, holes, per_side, binom, cells })
    }

    /// Positions in the layer, both sides to move.
    pub fn len(&self) -> u64 {
        2 * self.per_side
    }

    /// Whether the layer is empty (never: even 0 stones make one position per side).
    pub fn is_empty(&self) -> bool {
        self.per_side == 0
    }

    /// The layer's stone count.
    pub fn stones(&self) -> u32 {
        self.stones
    }

    /// The index of `pos`, which must be of this ruleset and layer.
    pub fn rank(&self, pos: &Position) -> u64 {
        debug_assert_eq!(pos.ruleset(), self.ruleset);
        let mut left = self.stones as usize;
        let mut rank = 0u64;
        let mut i = 0;
        for side in Side::BOTH {
            for &c in pos.track(side) {
                let after = self.holes - i - 1;
                // Compositions whose hole i holds fewer than c stones, by the hockey stick:
                // sum over v < c of C(left - v + after - 1, after - 1).
                let c = c as usize;
                if after > 0 && c > 0 {
                    rank += self.binom[left + after][after] - self.binom[left - c + after][after];
                }
                left -= c;
                i += 1;
            }
        }
        debug_assert_eq!(left, 0, "position not in layer {}", self.stones);
        rank + if pos.side_to_move() == Side::North { self.per_side } else { 0 }
    }

    /// The position with index `index` (`< len()`).
    pub fn unrank(&self, index: u64) -> Position {
        let (side, mut rank) =
            if index >= self.per_side { (Side::North, index - self.per_side) } else { (Side::South, index) };
        let n = self.ruleset.size();
        let mut rows: [Vec<u32>; 4] = std::array::from_fn(|_| vec![0; n]);
        let mut left = self.stones as usize;
        for i in 0..self.holes {
            let after = self.holes - i - 1;
            let c = if after == 0 {
                left
            } else {
                let mut v = 0;
                loop {
                    let with_v = self.binom[left - v + after - 1][after - 1];
                    if rank < with_v {
                        break v;
                    }
                    rank -= with_v;
                    v += 1;
                }
            };
            let (row, col) = self.cells[i];
            rows[row][col] = c as u32;
            left -= c;
        }
        Position::from_setup(&Setup { ruleset: self.ruleset, rows, side }).expect("a layer within the ruleset's stones")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_dense_and_round_trip() {
        for (name, stones) in [("tsoro:6", 0), ("tsoro:6", 1), ("tsoro:6", 3), ("nsolo:8", 2)] {
            let r: Ruleset = name.parse().unwrap();
            let ix = LayerIndex::new(r, stones).unwrap();
            let mut seen = std::collections::HashSet::new();
            for i in 0..ix.len() {
                let p = ix.unrank(i);
                assert_eq!(p.total_stones(), stones);
                assert_eq!(ix.rank(&p), i, "{p}");
                assert!(seen.insert(p.to_string()));
            }
            // C(stones + 4N - 1, 4N - 1) per side.
            let h = 4 * r.size() as u64;
            let expect: u64 = ((h..h + stones as u64).product::<u64>()) / (1..=stones as u64).product::<u64>();
            assert_eq!(ix.len(), 2 * expect, "{name} {stones}");
        }
    }

    #[test]
    fn too_big_layers_are_refused() {
        assert!(LayerIndex::new("nsolo:36".parse().unwrap(), 40).is_none());
    }
}
