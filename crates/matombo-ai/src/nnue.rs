//! A small NNUE-style evaluation network: sparse inputs (which hole holds how many stones),
//! one hidden layer kept as an accumulator per point of view and updated by the holes a turn
//! changed, and a linear output over both points of view.
//!
//! Inputs, for the point of view of side `p`: for every hole `t` (track order, `0..2N`) of
//! side `s` that holds `c ≥ 1` stones, the feature `((s ≠ p) · 2N + t) · BUCKETS + bucket(c)`
//! (see [`bucket`]); an empty hole has none. The network, in real numbers:
//!
//! ```text
//! a_p   = b1 + Σ_{f active for p} W1[f]          (HIDDEN values, for p = South and North)
//! h_p   = clamp(a_p, 0, 1)
//! out   = b2 + W2[..HIDDEN] · h_mover + W2[HIDDEN..] · h_other     (stones)
//! score = 100 · out                                (hundredths of a stone, as `evaluate`)
//! ```
//!
//! Stored quantised (integers, so that the result is the same on every machine and in the
//! browser): `W1`, `b1` times [`QA`] as `i16`, `W2` times [`QB`] as `i16`, `b2` times
//! `QA · QB` as `i32`. A network is trained for one board (a game and a size) by
//! `matombo train`; the engine uses it only on that board.

use std::fmt;

use matombo_core::{Position, Ruleset, Side};

/// Stone-count buckets of a hole: 1, 2, 3, 4, 5, 6, 7–9, 10–14, 15 and more.
pub const BUCKETS: usize = 9;

/// Width of the hidden layer (one accumulator per point of view).
pub const HIDDEN: usize = 32;

/// Scale of the hidden layer's integers: 1.0 is `QA`.
pub const QA: i32 = 255;

/// Scale of the output weights' integers: 1.0 is `QB`.
pub const QB: i32 = 64;

const MAGIC: &[u8; 12] = b"MATOMBO-NNUE";
const VERSION: u32 = 1;

/// The bucket of a hole of `c` stones, `None` for an empty hole.
#[inline]
pub fn bucket(c: u16) -> Option<usize> {
    // A table rather than a match: the search asks for every hole a turn changed.
    const TABLE: [u8; 16] = [u8::MAX, 0, 1, 2, 3, 4, 5, 6, 6, 6, 7, 7, 7, 7, 7, 8];
    let b = TABLE[c.min(15) as usize];
    (b != u8::MAX).then_some(b as usize)
}

/// Number of inputs of a network for boards of `size` holes a row.
pub fn inputs(size: usize) -> usize {
    2 * 2 * size * BUCKETS
}

/// The input index of side `side`'s hole `t` (track order) holding bucket `b`, seen from
/// `view`, on boards of `size` holes a row.
#[inline]
pub fn feature(view: Side, side: Side, t: usize, b: usize, size: usize) -> usize {
    (((side != view) as usize * 2 * size) + t) * BUCKETS + b
}

/// Appends the active inputs of `pos` seen from `view` to `out`.
pub fn active(pos: &Position, view: Side, out: &mut Vec<usize>) {
    let n = pos.ruleset().size();
    for side in [Side::South, Side::North] {
        for (t, &c) in pos.track(side).iter().enumerate() {
            if let Some(b) = bucket(c) {
                out.push(feature(view, side, t, b, n));
            }
        }
    }
}

/// Why a network could not be built or read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum NetError {
    /// The bytes are not a network file of this version.
    #[error("not a matombo network file (expected the MATOMBO-NNUE header, version {VERSION})")]
    BadHeader,
    /// The file ends early or has bytes left over.
    #[error("network file has {found} bytes where {expected} were expected")]
    BadLength {
        /// Bytes expected from the header.
        expected: usize,
        /// Bytes found.
        found: usize,
    },
    /// The board named in the file is not a ruleset.
    #[error("network file names an unknown board: {0}")]
    BadRuleset(String),
    /// A weight does not fit its integer after scaling.
    #[error("weight {value} of {layer} does not fit the network's integers")]
    OutOfRange {
        /// Which layer.
        layer: &'static str,
        /// The weight.
        value: f32,
    },
    /// A hidden unit's weights could add up past the accumulators' 16-bit integers.
    #[error("hidden unit {unit}'s weights can add up to {bound}, past the accumulators' limit {}", i16::MAX)]
    AccumulatorRange {
        /// The unit.
        unit: usize,
        /// The largest sum its weights can reach.
        bound: i32,
    },
    /// The weights given do not have the sizes of the board's network.
    #[error("{layer} has {found} weights where {expected} were expected")]
    BadShape {
        /// Which layer.
        layer: &'static str,
        /// Weights expected.
        expected: usize,
        /// Weights found.
        found: usize,
    },
}

/// A quantised network for one board.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    ruleset: Ruleset,
    /// `inputs × HIDDEN`, input-major.
    w1: Vec<i16>,
    b1: [i16; HIDDEN],
    w2: [i16; 2 * HIDDEN],
    b2: i32,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Network({}, {} inputs)", self.ruleset, self.w1.len() / HIDDEN)
    }
}

fn quantise<const N: usize>(layer: &'static str, w: &[f32], scale: f32) -> Result<Vec<i16>, NetError> {
    if N != 0 && w.len() != N {
        return Err(NetError::BadShape { layer, expected: N, found: w.len() });
    }
    w.iter()
        .map(|&x| {
            let q = (x * scale).round();
            if q.is_finite() && (i16::MIN as f32..=i16::MAX as f32).contains(&q) {
                Ok(q as i16)
            } else {
                Err(NetError::OutOfRange { layer, value: x })
            }
        })
        .collect()
}

impl Network {
    /// The network of the real weights `w1` (`inputs(size) × HIDDEN`, input-major), `b1`,
    /// `w2` (`2 × HIDDEN`: the mover's half first) and `b2`, for `ruleset`'s board.
    pub fn from_float(ruleset: Ruleset, w1: &[f32], b1: &[f32], w2: &[f32], b2: f32) -> Result<Network, NetError> {
        let expected = inputs(ruleset.size()) * HIDDEN;
        if w1.len() != expected {
            return Err(NetError::BadShape { layer: "w1", expected, found: w1.len() });
        }
        let b2q = (b2 * (QA * QB) as f32).round();
        if !b2q.is_finite() || b2q.abs() > (1u32 << 30) as f32 {
            return Err(NetError::OutOfRange { layer: "b2", value: b2 });
        }
        Network {
            ruleset,
            w1: quantise::<0>("w1", w1, QA as f32)?,
            b1: quantise::<HIDDEN>("b1", b1, QA as f32)?.try_into().expect("length checked"),
            w2: quantise::<{ 2 * HIDDEN }>("w2", w2, QB as f32)?.try_into().expect("length checked"),
            b2: b2q as i32,
        }
        .checked()
    }

    /// The network if no accumulator can overflow: for every hidden unit, its bias and
    /// the largest weight of each hole (a hole has one bucket at a time) add up within `i16`.
    fn checked(self) -> Result<Network, NetError> {
        let holes = 2 * 2 * self.ruleset.size();
        for unit in 0..HIDDEN {
            let worst: i32 = (0..holes)
                .map(|h| {
                    (0..BUCKETS).map(|b| (self.w1[(h * BUCKETS + b) * HIDDEN + unit] as i32).abs()).max().unwrap_or(0)
                })
                .sum();
            let bound = worst + (self.b1[unit] as i32).abs();
            if bound > i16::MAX as i32 {
                return Err(NetError::AccumulatorRange { unit, bound });
            }
        }
        if self.b2.unsigned_abs() > 1 << 30 {
            return Err(NetError::OutOfRange { layer: "b2", value: self.b2 as f32 / (QA * QB) as f32 });
        }
        Ok(self)
    }

    /// The board the network was trained for (its game and size are what count).
    pub fn ruleset(&self) -> Ruleset {
        self.ruleset
    }

    /// Whether the network evaluates positions of `ruleset`: same game, same size.
    pub fn fits(&self, ruleset: Ruleset) -> bool {
        ruleset.kind() == self.ruleset.kind() && ruleset.size() == self.ruleset.size()
    }

    /// The accumulators of `pos`, computed from scratch.
    pub fn refresh(&self, pos: &Position) -> Accumulator {
        let mut acc = Accumulator::default();
        let n = pos.ruleset().size();
        for view in [Side::South, Side::North] {
            let a = &mut acc.v[view.index()];
            *a = self.b1;
            for side in [Side::South, Side::North] {
                for (t, &c) in pos.track(side).iter().enumerate() {
                    if let Some(b) = bucket(c) {
                        self.add(a, feature(view, side, t, b, n));
                    }
                }
            }
        }
        acc
    }

    /// Input `f`'s weights into the hidden layer (a fixed-size row, so that the loops
    /// over it compile to vector instructions).
    #[inline]
    fn row(&self, f: usize) -> &[i16; HIDDEN] {
        self.w1[f * HIDDEN..(f + 1) * HIDDEN].try_into().expect("a row is HIDDEN long")
    }

    // No overflow in these: `checked` bounds every sum a position can make, and the
    // wrapping operations give that sum whatever the order.
    #[inline]
    fn add(&self, a: &mut [i16; HIDDEN], f: usize) {
        let w = self.row(f);
        for i in 0..HIDDEN {
            a[i] = a[i].wrapping_add(w[i]);
        }
    }

    /// Moves one hole from bucket `old` to bucket `new` (either may be none: empty).
    #[inline]
    fn replace(&self, a: &mut [i16; HIDDEN], old: Option<usize>, new: Option<usize>) {
        match (old, new) {
            (Some(o), Some(n)) => {
                let (wo, wn) = (self.row(o), self.row(n));
                for i in 0..HIDDEN {
                    a[i] = a[i].wrapping_add(wn[i].wrapping_sub(wo[i]));
                }
            }
            (Some(o), None) => {
                let w = self.row(o);
                for i in 0..HIDDEN {
                    a[i] = a[i].wrapping_sub(w[i]);
                }
            }
            (None, Some(n)) => self.add(a, n),
            (None, None) => {}
        }
    }

    /// The accumulators of `child` from those of `parent` (`from`): only the holes whose
    /// counts differ are taken out and put back.
    pub fn update(&self, from: &Accumulator, parent: &Position, child: &Position, to: &mut Accumulator) {
        *to = *from;
        let n = child.ruleset().size();
        for side in [Side::South, Side::North] {
            for (t, (&c0, &c1)) in parent.track(side).iter().zip(child.track(side)).enumerate() {
                if c0 == c1 {
                    continue;
                }
                let (b0, b1) = (bucket(c0), bucket(c1));
                if b0 == b1 {
                    continue;
                }
                for view in [Side::South, Side::North] {
                    let f = |b: usize| feature(view, side, t, b, n);
                    self.replace(&mut to.v[view.index()], b0.map(f), b1.map(f));
                }
            }
        }
    }

    /// The score of a position with accumulators `acc` and `mover` to move, in hundredths
    /// of a stone for the mover.
    #[inline]
    pub fn output(&self, acc: &Accumulator, mover: Side) -> i32 {
        let (me, them) = (&acc.v[mover.index()], &acc.v[mover.opponent().index()]);
        // At most 2·HIDDEN · 32767 · 255 ≈ 5.3e8 plus |b2| ≤ 2^30: within i32.
        let (w_me, w_them) = self.w2.split_at(HIDDEN);
        let mut sum = 0i32;
        for ((&a, &b), (&wa, &wb)) in me.iter().zip(them).zip(w_me.iter().zip(w_them)) {
            sum += wa as i32 * (a as i32).clamp(0, QA) + wb as i32 * (b as i32).clamp(0, QA);
        }
        ((sum + self.b2) as i64 * 100 / (QA * QB) as i64) as i32
    }

    /// Evaluates `pos` from scratch, in hundredths of a stone for the side to move.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.output(&self.refresh(pos), pos.side_to_move())
    }

    /// The network as bytes: a header, the board, then the integers little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let name = self.ruleset.to_string();
        let mut out = Vec::with_capacity(32 + name.len() + 2 * self.w1.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        for w in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.b2.to_le_bytes());
        out
    }

    /// Reads a network written by [`Network::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        let head = MAGIC.len() + 6;
        if bytes.len() < head || &bytes[..MAGIC.len()] != MAGIC || bytes[12..16] != VERSION.to_le_bytes() {
            return Err(NetError::BadHeader);
        }
        let len = u16::from_le_bytes([bytes[16], bytes[17]]) as usize;
        let name =
            bytes.get(head..head + len).ok_or(NetError::BadLength { expected: head + len, found: bytes.len() })?;
        let name = std::str::from_utf8(name).map_err(|_| NetError::BadRuleset("(not UTF-8)".into()))?;
        let ruleset: Ruleset = name.parse().map_err(|_| NetError::BadRuleset(name.to_string()))?;
        let n1 = inputs(ruleset.size()) * HIDDEN;
        let expected = head + len + 2 * (n1 + 3 * HIDDEN) + 4;
        if bytes.len() != expected {
            return Err(NetError::BadLength { expected, found: bytes.len() });
        }
        let mut ints = bytes[head + len..expected - 4].chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]]));
        let w1: Vec<i16> = ints.by_ref().take(n1).collect();
        let mut b1 = [0; HIDDEN];
        let mut w2 = [0; 2 * HIDDEN];
        for x in b1.iter_mut().chain(w2.iter_mut()) {
            *x = ints.next().expect("length checked");
        }
        let b2 = i32::from_le_bytes(bytes[expected - 4..].try_into().expect("four bytes"));
        Network { ruleset, w1, b1, w2, b2 }.checked()
    }
}

/// Random real weights of a network for `ruleset`'s board (for tests).
#[cfg(test)]
pub(crate) fn random_weights(ruleset: Ruleset, seed: u64) -> (Vec<f32>, Vec<f32>, Vec<f32>, f32) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let w1: Vec<f32> = (0..inputs(ruleset.size()) * HIDDEN).map(|_| rng.random_range(-0.3..0.3)).collect();
    let b1: Vec<f32> = (0..HIDDEN).map(|_| rng.random_range(0.0..0.5)).collect();
    let w2: Vec<f32> = (0..2 * HIDDEN).map(|_| rng.random_range(-2.0..2.0)).collect();
    (w1, b1, w2, 0.25)
}

/// The networks built into matombo, each proved stronger than the weights on its board by an
/// SPRT match (docs/strength.md, "A learned evaluation"); trained by `matombo train`.
const BUILTIN: [(&str, &[u8]); 1] = [("nsolo:8", include_bytes!("../nets/nsolo-8.nnue"))];

/// The built-in network of `ruleset`'s board, if it has one: engines evaluate with it
/// unless given weights or another network.
pub fn builtin(ruleset: Ruleset) -> Option<&'static Network> {
    static NETS: std::sync::OnceLock<Vec<Network>> = std::sync::OnceLock::new();
    let nets = NETS.get_or_init(|| {
        BUILTIN
            .iter()
            .map(|(name, bytes)| {
                let net = Network::from_bytes(bytes).expect("a built-in network reads back");
                assert_eq!(net.ruleset().to_string(), *name, "built-in network of the wrong board");
                net
            })
            .collect()
    });
    nets.iter().find(|n| n.fits(ruleset))
}

/// The hidden layer of one position before clamping, for both points of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accumulator {
    v: [[i16; HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Accumulator {
        Accumulator { v: [[0; HIDDEN]; 2] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn random_net(ruleset: Ruleset, seed: u64) -> (Network, Vec<f32>, Vec<f32>, Vec<f32>, f32) {
        let (w1, b1, w2, b2) = random_weights(ruleset, seed);
        (Network::from_float(ruleset, &w1, &b1, &w2, b2).unwrap(), w1, b1, w2, b2)
    }

    /// The network in real numbers, as the module documentation writes it, with the
    /// quantised weights scaled back.
    fn plain(pos: &Position, net: &Network) -> f64 {
        let h = |view: Side| -> Vec<f64> {
            let mut f = Vec::new();
            active(pos, view, &mut f);
            (0..HIDDEN)
                .map(|j| {
                    let a = net.b1[j] as f64 + f.iter().map(|&i| net.w1[i * HIDDEN + j] as f64).sum::<f64>();
                    (a / QA as f64).clamp(0.0, 1.0)
                })
                .collect()
        };
        let (me, them) = (h(pos.side_to_move()), h(pos.side_to_move().opponent()));
        let w2 = |j: usize| net.w2[j] as f64 / QB as f64;
        let b2 = net.b2 as f64 / (QA * QB) as f64;
        100.0 * (b2 + (0..HIDDEN).map(|j| w2(j) * me[j] + w2(HIDDEN + j) * them[j]).sum::<f64>())
    }

    #[test]
    fn incremental_updates_equal_refreshes_and_the_real_network() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        let mut checked = 0;
        for name in ["nsolo:8", "tsoro:8", "tsoro:21,heads=1", "nsolo:36"] {
            let ruleset: Ruleset = name.parse().unwrap();
            let (net, w1, b1, w2, b2) = random_net(ruleset, 9);
            let unquantised = |pos: &Position, w1: &[f32], b1: &[f32], w2: &[f32], b2: f32| -> f32 {
                let h = |view: Side| -> Vec<f32> {
                    let mut f = Vec::new();
                    active(pos, view, &mut f);
                    (0..HIDDEN)
                        .map(|j| (b1[j] + f.iter().map(|&i| w1[i * HIDDEN + j]).sum::<f32>()).clamp(0.0, 1.0))
                        .collect()
                };
                let (me, them) = (h(pos.side_to_move()), h(pos.side_to_move().opponent()));
                100.0 * (b2 + (0..HIDDEN).map(|j| w2[j] * me[j] + w2[HIDDEN + j] * them[j]).sum::<f32>())
            };
            for _ in 0..3 {
                let mut pos = Position::start(ruleset);
                let mut acc = net.refresh(&pos);
                while let Some(t) = crate::random_turn(&pos, &mut rng) {
                    let child = pos.play(&t).unwrap();
                    let mut next = Accumulator::default();
                    net.update(&acc, &pos, &child, &mut next);
                    assert_eq!(next, net.refresh(&child), "{child}");
                    let q = net.output(&next, child.side_to_move());
                    // The integer score is the real one rounded towards zero.
                    assert_eq!(q, plain(&child, &net).trunc() as i32, "{child}");
                    // Rounding the weights to 1/255 and 1/64 moves the score only a little.
                    let real = unquantised(&child, &w1, &b1, &w2, b2);
                    assert!((q as f32 - real).abs() <= 15.0 + 0.05 * real.abs(), "{q} vs {real} at {child}");
                    (pos, acc) = (child, next);
                    checked += 1;
                    if rng.random_bool(0.01) {
                        break;
                    }
                }
            }
        }
        assert!(checked > 200, "{checked}");
    }

    #[test]
    fn the_builtin_networks_read_back_and_fit_their_boards() {
        let net = builtin("nsolo:8".parse().unwrap()).expect("nsolo:8 has a network");
        assert!(net.fits("nsolo:8".parse().unwrap()));
        assert!(builtin("tsoro:8".parse().unwrap()).is_none());
        assert!(builtin("nsolo:9".parse().unwrap()).is_none());
        // It knows a stone from none: a side a whole hole of stones up scores better.
        let a: Position = "nsolo:8 2*7,0/2*8/2*7,0/2*7,0 S".parse().unwrap();
        let b: Position = "nsolo:8 2*7,0/2*7,0/2*7,0/2*8 S".parse().unwrap();
        let (up, down) = if a.stones(Side::South) > a.stones(Side::North) { (a, b) } else { (b, a) };
        assert!(up.stones(Side::South) > up.stones(Side::North) && down.stones(Side::South) < down.stones(Side::North));
        assert!(net.evaluate(&up) > net.evaluate(&down), "{} {}", net.evaluate(&up), net.evaluate(&down));
    }

    #[test]
    fn buckets_are_the_documented_ranges() {
        let expected = |c: u16| match c {
            0 => None,
            1..=6 => Some(c as usize - 1),
            7..=9 => Some(6),
            10..=14 => Some(7),
            _ => Some(8),
        };
        for c in 0..=600 {
            assert_eq!(bucket(c), expected(c), "{c}");
        }
    }

    #[test]
    fn files_round_trip_and_bad_files_are_refused() {
        let ruleset: Ruleset = "tsoro:6".parse().unwrap();
        let (net, ..) = random_net(ruleset, 1);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
        assert_eq!(Network::from_bytes(b"hello"), Err(NetError::BadHeader));
        assert!(matches!(Network::from_bytes(&bytes[..bytes.len() - 1]), Err(NetError::BadLength { .. })));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(Network::from_bytes(&longer), Err(NetError::BadLength { .. })));
        let mut bad = bytes.clone();
        bad[18] = b'x'; // "tsoro:6" becomes "xsoro:6"
        assert_eq!(Network::from_bytes(&bad), Err(NetError::BadRuleset("xsoro:6".into())));
        assert!(matches!(
            Network::from_float(ruleset, &[0.0; 3], &[0.0; HIDDEN], &[0.0; 2 * HIDDEN], 0.0),
            Err(NetError::BadShape { layer: "w1", .. })
        ));
        let w1 = vec![0.0; inputs(6) * HIDDEN];
        assert!(matches!(
            Network::from_float(ruleset, &w1, &[1e9; HIDDEN], &[0.0; 2 * HIDDEN], 0.0),
            Err(NetError::OutOfRange { layer: "b1", .. })
        ));
        // Weights that could push an accumulator past 16 bits are refused.
        let mut big = vec![0.0; inputs(6) * HIDDEN];
        for h in 0..24 {
            big[(h * BUCKETS + 2) * HIDDEN + 5] = 6.0; // 24 holes × 6.0 × 255 > 32767
        }
        assert_eq!(
            Network::from_float(ruleset, &big, &[0.0; HIDDEN], &[0.0; 2 * HIDDEN], 0.0),
            Err(NetError::AccumulatorRange { unit: 5, bound: 24 * 1530 })
        );
        assert!(net.fits("tsoro:6,heads=0".parse().unwrap()));
        assert!(!net.fits("tsoro:7".parse().unwrap()));
        assert!(!net.fits("nsolo:8".parse().unwrap()));
    }

    #[test]
    fn searches_evaluate_with_the_network_on_its_board_only() {
        use crate::{Engine, Limits, NetChoice};
        use std::sync::atomic::AtomicBool;
        use std::sync::Arc;
        let stop = AtomicBool::new(false);
        for name in ["nsolo:8", "tsoro:8"] {
            let ruleset: Ruleset = name.parse().unwrap();
            let (net, ..) = random_net(ruleset, 4);
            let net = Arc::new(net);
            let mut engine = Engine::new(1).with_net(NetChoice::Given(net.clone()));
            let mut pos = Position::start(ruleset);
            for turn in 0..24 {
                // One turn deep, the score is a child's network score; deeper
                // searches check every incremental accumulator against a refresh (debug
                // assertions in the search).
                let one = Limits { depth: Some(1), ..Limits::default() };
                let r = Engine::new(1).with_net(NetChoice::Given(net.clone())).search(&pos, one, &stop).unwrap();
                let best = pos.turns().map(|(_, c)| -net.evaluate(&c)).max().unwrap();
                // The root weighs a few bonus sets of a capture, not all: at most the
                // best of every turn, and exactly the network's score of the turn chosen.
                assert!(r.score <= best, "{pos}");
                assert_eq!(r.score, -net.evaluate(&pos.play(&r.best).unwrap()), "{pos}");
                let limits = Limits { depth: Some(4), nodes: Some(20_000), ..Limits::default() };
                let r = engine.search(&pos, limits, &stop).unwrap();
                pos = pos.play(&r.best).unwrap_or_else(|e| panic!("turn {turn}: {e}"));
                if !pos.has_legal_turn() {
                    break;
                }
            }
        }
        // On another board the engine keeps the weights: the very same search.
        let (net, ..) = random_net("nsolo:8".parse().unwrap(), 4);
        let pos = Position::start("tsoro:8".parse().unwrap());
        let limits = Limits { depth: Some(5), ..Limits::default() };
        let a = Engine::new(1).with_net(NetChoice::Given(Arc::new(net))).search(&pos, limits, &stop).unwrap();
        let b = Engine::new(1).search(&pos, limits, &stop).unwrap();
        assert_eq!((a.best, a.score, a.nodes), (b.best, b.score, b.nodes));
    }
}
