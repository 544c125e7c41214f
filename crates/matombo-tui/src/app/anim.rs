//! The sowing animation: the frames that show a turn lap by lap.

use matombo_core::{Event, Hole, Position, Side};

/// One picture of the sowing animation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnimFrame {
    /// Counts by side (South, North) and track position.
    pub counts: [Vec<u16>; 2],
    /// The hole the lap started from, or the hole just captured from.
    pub from: Option<Hole>,
    /// The hole that received the last stone.
    pub last: Option<Hole>,
    /// What happened, in words.
    pub caption: String,
    /// The side whose turn this is (the turn on screen may already be the next one).
    pub mover: Side,
}

/// The frames showing, lap by lap, what `events` did to `before` (whose side to move is `mover`).
pub fn frames(before: &Position, mover: Side, events: &[Event]) -> Vec<AnimFrame> {
    let n = before.ruleset().size();
    let len = 2 * n;
    let mut counts = [before.track(Side::South).to_vec(), before.track(Side::North).to_vec()];
    let mut out = Vec::new();
    let mut lap = 0;
    for e in events {
        match *e {
            Event::Lap { from, stones, last, .. } => {
                lap += 1;
                let track = &mut counts[mover.index()];
                let t = from.track(n);
                track[t] -= stones.min(track[t]);
                for i in 1..=stones as usize {
                    track[(t + i) % len] += 1;
                }
                out.push(AnimFrame {
                    counts: counts.clone(),
                    from: Some(from),
                    last: Some(last),
                    caption: format!("lap {lap}: {stones} from {from}, last into {last}"),
                    mover,
                });
            }
            Event::Capture { hole, stones } => {
                let c = &mut counts[hole.side.index()][hole.track(n)];
                *c -= stones.min(*c);
                out.push(AnimFrame {
                    counts: counts.clone(),
                    from: Some(hole),
                    last: None,
                    caption: format!("captured {stones} from {hole}"),
                    mover,
                });
            }
        }
    }
    out
}
