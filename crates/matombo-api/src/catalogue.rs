//! The catalogue: the games and their variant choices.

use matombo_core::GameKind;
use serde::Serialize;

/// One game in the catalogue, with its variant choices.
#[derive(Debug, Serialize)]
pub struct GameInfo {
    /// `tsoro` or `nsolo`.
    pub game: &'static str,
    /// Standard size.
    pub default_size: u8,
    /// Sizes offered, the traditional ones first.
    pub sizes: Vec<u8>,
    /// How many of `sizes` are traditional.
    pub traditional: usize,
    /// Head counts offered (Tsoro), default first.
    pub heads: Vec<u8>,
    /// Bonus hole counts offered (Tsoro), default first.
    pub bonus: Vec<u8>,
}

/// The games and their variants, traditional sizes first.
pub fn games() -> Vec<GameInfo> {
    let list = |kind: GameKind, trad: &[u8]| {
        let (lo, hi) = kind.size_range();
        let mut sizes = trad.to_vec();
        sizes.extend((lo..=hi).filter(|n| !trad.contains(n)));
        sizes
    };
    vec![
        GameInfo {
            game: "tsoro",
            default_size: GameKind::Tsoro.default_size(),
            sizes: list(GameKind::Tsoro, &TSORO_TRADITIONAL),
            traditional: TSORO_TRADITIONAL.len(),
            heads: vec![2, 1, 0],
            bonus: vec![2, 0, 1, 3],
        },
        GameInfo {
            game: "nsolo",
            default_size: GameKind::Nsolo.default_size(),
            sizes: list(GameKind::Nsolo, &NSOLO_TRADITIONAL),
            traditional: NSOLO_TRADITIONAL.len(),
            heads: vec![],
            bonus: vec![],
        },
    ]
}

/// Tsoro's full board and the smaller ones RULES.md §3.1 names, full board first.
pub const TSORO_TRADITIONAL: [u8; 6] = [21, 6, 8, 12, 15, 18];
/// Nsolo's standard board and the village match board (RULES.md §4.1).
pub const NSOLO_TRADITIONAL: [u8; 2] = [8, 36];
