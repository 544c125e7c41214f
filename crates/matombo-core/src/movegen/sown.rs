//! A sown turn with its bonus still open, for searches that choose the bonus themselves.

use crate::error::IllegalError;
use crate::hole::Hole;
use crate::position::Position;
use crate::ruleset::GameKind;
/// A turn sown to its end with the capture made, the bonus still open
/// (see [`Position::for_each_sown`]).
pub struct Sown<'a> {
    pub(super) pos: &'a Position,
    pub(super) captured: u32,
    pub(super) bonus: u16,
}

impl Sown<'_> {
    /// The position after the turn if its bonus takes nothing, opponent to move. With no
    /// bonus open this is the turn's result.
    pub fn position(&self) -> &Position {
        self.pos
    }

    /// Stones the capture took, before any bonus (0 without a capture).
    pub fn captured(&self) -> u32 {
        self.captured
    }

    /// The bonus still open: in Tsoro up to this many opponent holes may be emptied; in
    /// Nsolo exactly this many opponent stones must be taken (already no more than he has).
    pub fn bonus(&self) -> u16 {
        self.bonus
    }

    /// The turn's result after the bonus `takes`, pairs of an opponent hole and the stones
    /// taken from it. Tsoro: whole holes, at most [`Sown::bonus`] of them, each once. Nsolo:
    /// exactly [`Sown::bonus`] stones in all.
    ///
    /// ```
    /// use matombo_core::{Hole, Position};
    /// // South's A7 ends in the empty A5 and captures the 3 stones facing it; the bonus
    /// // must take 1 more stone, and North has one left, in b8.
    /// let p: Position = "nsolo:8 1,0*7/0*4,3,0*3/0*6,2,0/0*7,1 S".parse().unwrap();
    /// let b8: Hole = "b8".parse().unwrap();
    /// p.for_each_sown(&mut |s| {
    ///     assert_eq!((s.captured(), s.bonus()), (3, 1));
    ///     assert!(s.with_bonus(&[]).is_err()); // the Nsolo bonus is not optional
    ///     assert_eq!(s.with_bonus(&[(b8, 1)]).unwrap(), p.play(&"A7xb8".parse().unwrap()).unwrap());
    /// });
    /// ```
    pub fn with_bonus(&self, takes: &[(Hole, u16)]) -> Result<Position, IllegalError> {
        let mut child = self.pos.clone();
        self.with_bonus_into(takes, &mut child)?;
        Ok(child)
    }

    /// [`Sown::with_bonus`] written into `into`, a position kept by the caller (a search
    /// reuses one instead of allocating a copy per bonus). On error `into` holds the
    /// position before the bonus.
    pub fn with_bonus_into(&self, takes: &[(Hole, u16)], into: &mut Position) -> Result<(), IllegalError> {
        into.clone_from(self.pos);
        self.take_bonus(takes, into).map_err(|reason| {
            into.clone_from(self.pos);
            IllegalError::Bonus(reason)
        })
    }

    /// Takes `takes` from `into` (a copy of the sown position), checking each take and the
    /// total; on a refusal `into` is left part-taken for the caller to restore.
    fn take_bonus(&self, takes: &[(Hole, u16)], into: &mut Position) -> Result<(), String> {
        let opp = self.pos.side;
        let n = self.pos.ruleset.size();
        let mut total = 0u32;
        for &(hole, k) in takes {
            if hole.side != opp || hole.check(n).is_err() {
                return Err(format!("{hole} is not a hole of the opponent"));
            }
            let t = hole.track(n);
            let c = into.counts[opp.index()][t];
            if k == 0 || k > c {
                return Err(format!("{hole} holds {c} stones, cannot take {k}"));
            }
            if self.pos.ruleset.kind() == GameKind::Tsoro && k != c {
                return Err(format!("a Tsoro bonus empties {hole} whole ({c} stones), not {k}"));
            }
            into.set(opp, t, c - k);
            total += k as u32;
        }
        match self.pos.ruleset.kind() {
            GameKind::Tsoro if takes.len() > self.bonus as usize => {
                Err(format!("the bonus empties at most {} holes, not {}", self.bonus, takes.len()))
            }
            GameKind::Nsolo if total != self.bonus as u32 => {
                Err(format!("the bonus takes exactly {} stones, not {total}", self.bonus))
            }
            _ => Ok(()),
        }
    }
}
