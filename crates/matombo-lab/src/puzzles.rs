//! Puzzles mined from engine self-play and proved by the exact solver (`matombo puzzles`).
//!
//! The lichess-puzzler recipe with a proof instead of an engine's judgement: engines of
//! several strengths play games from random openings; near the end of each game, a
//! position is kept when the side to move has a forced win within [`MAX_DISTANCE`] turns
//! that the previous turn let in (the position before it was not already lost for the
//! player who moved), and when every move of the winner along the proved line is the only
//! one that wins within the distance left: every other turn is proved not to win that soon.
//! The defence is the solver's (the slowest loss). Everything is seeded: the same
//! settings give the same puzzles in the same order.

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use matombo_ai::{random_turn, Engine, Limits};
use matombo_core::{Game, Position, Ruleset, Token};
use matombo_egtb::{Solution, Solver, Tables, Value};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::random_opening;

/// The longest puzzle, in turns of both sides.
pub const MAX_DISTANCE: u32 = 9;

/// The themes a puzzle can carry, in the order they are listed.
pub const THEMES: [&str; 4] = ["capture", "bonus-choice", "head-choice", "singles-endgame"];

/// One puzzle: a line of `puzzles.jsonl`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Puzzle {
    /// A stable id: a hash of the position string.
    pub id: String,
    /// The position, the solver to move.
    pub position: String,
    /// The proved line, tokens of both sides, the solver's first and last.
    pub solution: Vec<String>,
    /// `win in N` (N turns of both sides).
    pub result: String,
    /// Themes from [`THEMES`], tagged from the solver's turns.
    pub themes: Vec<String>,
    /// The starting rating (Glicko-2 scale).
    pub rating: u32,
    /// Where the game came from when not self-play: `online:<room id>` for a finished
    /// online game (absent from self-play puzzles, so older files read and print the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

impl Puzzle {
    /// The distance written in `result`.
    pub fn distance(&self) -> Option<u32> {
        self.result.strip_prefix("win in ")?.parse().ok()
    }
}

/// A self-play player: a search depth and a chance of a random turn instead.
#[derive(Clone, Copy, Debug)]
struct Style {
    depth: u32,
    random: f64,
}

/// The strengths that play the games: roughly `beginner`, `easy` and `medium`, but with
/// fixed depths and node caps instead of time so that the games are reproducible.
const STYLES: [Style; 3] =
    [Style { depth: 1, random: 0.4 }, Style { depth: 2, random: 0.1 }, Style { depth: 4, random: 0.0 }];

/// Settings of [`mine`].
#[derive(Clone)]
pub struct MineConfig {
    /// The board.
    pub ruleset: Ruleset,
    /// The seed of everything.
    pub seed: u64,
    /// Solver nodes per question (a position whose proof needs more is skipped).
    pub nodes: u64,
    /// Endgame tables of `ruleset`, if any.
    pub tables: Option<Arc<Tables>>,
    /// The most puzzles one game gives.
    pub per_game: usize,
}

/// The self-play game `index` of `config`: a seeded opening then two seeded players.
pub fn self_play(config: &MineConfig, index: usize) -> Game {
    let seed = config.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(index as u64);
    let start = (0..100u64)
        .find_map(|a| random_opening(config.ruleset, 4, seed.wrapping_add(a << 32)))
        .unwrap_or_else(|| Position::start(config.ruleset));
    let styles = [STYLES[index % 3], STYLES[(index / 3) % 3]];
    let mut engines = [Engine::new(seed), Engine::new(seed ^ 1)];
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
    let stop = AtomicBool::new(false);
    let mut game = Game::new(start);
    while !game.is_over() && game.moves().len() < 600 {
        let who = game.moves().len() % 2;
        let style = styles[who];
        let pos = game.position().clone();
        let turn = if rng.random_bool(style.random) {
            random_turn(&pos, &mut rng)
        } else {
            let nodes = if config.ruleset.size() > 12 { 20_000 } else { 200_000 };
            let limits = Limits { depth: Some(style.depth), nodes: Some(nodes), time: None };
            let history = &game.positions()[..game.positions().len() - 1];
            engines[who].search_with(&pos, limits, &stop, history, &[], &mut |_| {}).map(|r| r.best)
        };
        let Some(t) = turn else { break };
        if game.play(&t).is_err() {
            break;
        }
    }
    game
}

/// Whether the side to move in `pos` loses within `d` turns whatever it plays: `None`
/// when the budget ran out before the answer.
fn loses_within(solver: &mut Solver<'_>, pos: &Position, d: u32) -> Option<bool> {
    if d == 0 {
        return Some(pos.turns().next().is_none());
    }
    match solver.solve(pos, d, &mut |_, _| {}) {
        Solution::Proved(Value::Loss(k), _) => Some(k as u32 <= d),
        Solution::Proved(_, _) => Some(false),
        Solution::Open { depth } => (depth >= d).then_some(false),
    }
}

/// Whether the side to move in `pos` wins within `d` turns (`None`: budget ran out).
fn wins_within(solver: &mut Solver<'_>, pos: &Position, d: u32) -> Option<bool> {
    match solver.solve(pos, d, &mut |_, _| {}) {
        Solution::Proved(Value::Win(k), _) => Some(k as u32 <= d),
        Solution::Proved(_, _) => Some(false),
        Solution::Open { depth } => (depth >= d).then_some(false),
    }
}

/// Checks that every solver move of `line` from `pos` (a win in `d`) is the only one that
/// wins within the distance left. `Ok(false)`: another move wins too; `Err`: out of budget.
fn unique_line(solver: &mut Solver<'_>, pos: &Position, d: u32, line: &[Token]) -> Result<bool, ()> {
    let mut p = pos.clone();
    for (i, t) in line.iter().enumerate() {
        let left = d - i as u32;
        if i % 2 == 0 {
            for (other, child) in p.turns() {
                if &other == t {
                    continue;
                }
                match loses_within(solver, &child, left - 1) {
                    Some(true) => return Ok(false),
                    Some(false) => {}
                    None => return Err(()),
                }
            }
        }
        p = p.play(t).map_err(|_| ())?;
    }
    Ok(true)
}

/// The themes of a proved line from `pos`, tagged from the solver's turns.
pub fn themes(pos: &Position, line: &[Token]) -> Vec<String> {
    let (mut capture, mut bonus, mut head) = (false, false, false);
    let solver = pos.side_to_move();
    let singles = pos.track(solver).iter().all(|&c| c <= 1);
    let mut p = pos.clone();
    for (i, t) in line.iter().enumerate() {
        let Ok(next) = p.play(t) else { break };
        if i % 2 == 0 {
            capture |= next.total_stones() < p.total_stones();
            head |= !t.marks.is_empty();
            // A choice of bonus: the same sowing could have taken other stones.
            bonus |= !t.picks.is_empty()
                && p.turns().filter(|(o, _)| o.start == t.start && o.marks == t.marks).nth(1).is_some();
        }
        p = next;
    }
    [capture, bonus, head, singles]
        .iter()
        .zip(THEMES)
        .filter(|(on, _)| **on)
        .map(|(_, name)| name.to_string())
        .collect()
}

/// The starting rating: longer lines and more turns to choose from are harder.
fn rating(pos: &Position, line: &[Token]) -> u32 {
    let mut p = pos.clone();
    let mut choices = 0usize;
    for (i, t) in line.iter().enumerate() {
        if i % 2 == 0 {
            choices += p.turns().count();
        }
        match p.play(t) {
            Ok(n) => p = n,
            Err(_) => break,
        }
    }
    let solver_turns = line.len().div_ceil(2) as u32;
    let spread = (choices as f64).ln().max(0.0);
    800 + 220 * (solver_turns - 1) + (60.0 * spread) as u32
}

/// A stable id of a position string (FNV-1a, base 36, 7 characters).
pub fn puzzle_id(position: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in position.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut s = String::new();
    for _ in 0..7 {
        s.push(char::from_digit((h % 36) as u32, 36).expect("digit"));
        h /= 36;
    }
    s
}

/// The puzzle of `pos` if it is one: a forced win within [`MAX_DISTANCE`] turns whose solver
/// moves are each the only win, let in by the turn that led from `parent` (if known).
///
/// Both games are symmetric: a puzzle with North to move is mirrored, so that the solver
/// is always South (the side the board page is played from).
pub fn puzzle_at(pos: &Position, parent: Option<&Position>, tables: Option<&Tables>, nodes: u64) -> Option<Puzzle> {
    let north = pos.side_to_move() == matombo_core::Side::North;
    let (pos, parent) = if north { (&pos.mirrored(), parent.map(Position::mirrored)) } else { (pos, parent.cloned()) };
    let parent = parent.as_ref();
    let stop = AtomicBool::new(false);
    let mut solver = Solver::new(tables, nodes, &stop);
    let (d, line) = match solver.solve(pos, MAX_DISTANCE, &mut |_, _| {}) {
        Solution::Proved(Value::Win(d), line) if d as u32 <= MAX_DISTANCE && line.len() == d as usize => {
            (d as u32, line)
        }
        _ => return None,
    };
    // The turn before was a mistake: its player was not already lost that soon.
    if let Some(parent) = parent {
        if loses_within(&mut solver, parent, d + 1) != Some(false) {
            return None;
        }
    }
    if unique_line(&mut solver, pos, d, &line) != Ok(true) {
        return None;
    }
    let position = pos.to_string();
    Some(Puzzle {
        id: puzzle_id(&position),
        solution: line.iter().map(|t| t.to_string()).collect(),
        result: format!("win in {d}"),
        themes: themes(pos, &line),
        rating: rating(pos, &line),
        position,
        origin: None,
    })
}

/// Positions of a finished game looked at, counted back from its end.
const LOOK_BACK: usize = 14;

/// The puzzles of self-play game `index`: from the end of the game backwards, at most
/// `per_game` of them.
pub fn mine(config: &MineConfig, index: usize) -> Vec<Puzzle> {
    mine_game(config, &self_play(config, index))
}

/// The puzzles of any finished game (self-play or a finished online game), by the same
/// recipe: its last positions from the end backwards, at most `per_game` of them.
/// `config.ruleset` and `config.seed` are not used: the game is given.
pub fn mine_game(config: &MineConfig, game: &Game) -> Vec<Puzzle> {
    let positions = game.positions();
    let mut found = Vec::new();
    let first = positions.len().saturating_sub(LOOK_BACK).max(1);
    for i in (first..positions.len()).rev() {
        if found.len() >= config.per_game {
            break;
        }
        if let Some(p) = puzzle_at(&positions[i], Some(&positions[i - 1]), config.tables.as_deref(), config.nodes) {
            found.push(p);
        }
    }
    found
}

/// Keeps the first puzzle of each position.
pub fn dedup(puzzles: &mut Vec<Puzzle>) {
    let mut seen = HashSet::new();
    puzzles.retain(|p| seen.insert(p.position.clone()));
}

/// What [`check`] found wrong with a puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckError {
    /// The position, a token or the result does not parse or is illegal.
    Malformed(String),
    /// The position's proved value is not the puzzle's result.
    WrongValue(String),
    /// A move of the line does not keep the win in the distance left.
    BadLine(String),
    /// Another move than the solver's wins within the same distance.
    NotUnique(String),
    /// The solver ran out of nodes before an answer.
    Unproved(String),
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::Malformed(s) => write!(f, "malformed: {s}"),
            CheckError::WrongValue(s) => write!(f, "wrong value: {s}"),
            CheckError::BadLine(s) => write!(f, "bad line: {s}"),
            CheckError::NotUnique(s) => write!(f, "not unique: {s}"),
            CheckError::Unproved(s) => write!(f, "not proved within the budget: {s}"),
        }
    }
}

/// Re-proves a puzzle from scratch: its value is a win in exactly the distance written,
/// each solver move wins within the distance left and is the only one that does, each
/// defence keeps the solver's win within the distance left, and the line ends the game.
pub fn check(p: &Puzzle, tables: Option<&Tables>, nodes: u64) -> Result<(), CheckError> {
    let pos: Position = p.position.parse().map_err(|e| CheckError::Malformed(format!("position: {e}")))?;
    let d = p.distance().ok_or_else(|| CheckError::Malformed(format!("result {:?}", p.result)))?;
    if p.solution.len() != d as usize {
        return Err(CheckError::Malformed(format!("{} tokens for a win in {d}", p.solution.len())));
    }
    if p.id != puzzle_id(&p.position) {
        return Err(CheckError::Malformed(format!("id {} is not the position's {}", p.id, puzzle_id(&p.position))));
    }
    let stop = AtomicBool::new(false);
    let mut solver = Solver::new(tables, nodes, &stop);
    match solver.solve(&pos, d, &mut |_, _| {}) {
        Solution::Proved(Value::Win(k), _) if k as u32 == d => {}
        Solution::Proved(v, _) => return Err(CheckError::WrongValue(format!("proved {v}, not a win in {d}"))),
        Solution::Open { depth } if depth < d => {
            return Err(CheckError::Unproved(format!("searched {depth} of {d} turns")))
        }
        Solution::Open { .. } => return Err(CheckError::WrongValue(format!("no win within {d} turns"))),
    }
    let mut p_now = pos.clone();
    for (i, s) in p.solution.iter().enumerate() {
        let t: Token = s.parse().map_err(|e| CheckError::Malformed(format!("token {s}: {e}")))?;
        let child = p_now.play(&t).map_err(|e| CheckError::Malformed(format!("token {s}: {e}")))?;
        let left = d - i as u32 - 1;
        if i % 2 == 0 {
            match loses_within(&mut solver, &child, left) {
                Some(true) => {}
                Some(false) => {
                    return Err(CheckError::BadLine(format!("solver move {} ({s}) does not win", i / 2 + 1)))
                }
                None => return Err(CheckError::Unproved(format!("solver move {s}"))),
            }
            for (other, c) in p_now.turns() {
                if other == t {
                    continue;
                }
                match loses_within(&mut solver, &c, left) {
                    Some(false) => {}
                    Some(true) => {
                        return Err(CheckError::NotUnique(format!(
                            "{other} wins too instead of {s} (move {})",
                            i / 2 + 1
                        )))
                    }
                    None => return Err(CheckError::Unproved(format!("alternative {other} to {s}"))),
                }
            }
        } else {
            match wins_within(&mut solver, &child, left) {
                Some(true) => {}
                Some(false) => return Err(CheckError::BadLine(format!("after the defence {s} the win is gone"))),
                None => return Err(CheckError::Unproved(format!("defence {s}"))),
            }
        }
        p_now = child;
    }
    if p_now.turns().next().is_some() {
        return Err(CheckError::BadLine("the line does not end the game".into()));
    }
    Ok(())
}

/// Parses `puzzles.jsonl` text: one puzzle a line, blank lines skipped.
pub fn parse_jsonl(text: &str) -> anyhow::Result<Vec<Puzzle>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| anyhow::anyhow!("line {}: {e}", i + 1)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_short() {
        assert_eq!(puzzle_id("tsoro:6 x"), puzzle_id("tsoro:6 x"));
        assert_ne!(puzzle_id("tsoro:6 x"), puzzle_id("tsoro:6 y"));
        assert_eq!(puzzle_id("a").len(), 7);
    }

    #[test]
    fn a_mined_puzzle_checks_and_a_tampered_one_does_not() {
        let config =
            MineConfig { ruleset: "tsoro:6".parse().unwrap(), seed: 1, nodes: 200_000, tables: None, per_game: 1 };
        let p = (0..20).flat_map(|i| mine(&config, i)).next().expect("a puzzle in 20 games");
        assert_eq!(check(&p, None, 1_000_000), Ok(()));
        let mut wrong = p.clone();
        wrong.result = format!("win in {}", p.distance().unwrap() + 2);
        assert!(check(&wrong, None, 1_000_000).is_err());
    }
}
