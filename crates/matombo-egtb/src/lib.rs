//! # matombo-egtb
//!
//! Endgame tables for Tsoro and Nsolo: the exact value (win, loss or draw, with the
//! distance to the end in turns) of every position of a ruleset with at most `K` stones on
//! the board, either side to move, computed by retrograde analysis (RULES.md applies in
//! full: head choices, bonus picks, endless sowings, a player without a legal turn loses).
//!
//! Captured stones leave the game, so positions fall into layers by their stone count and
//! a layer depends only on itself and the layers below: tables are built layer by layer,
//! one file per layer, and a build that stops resumes from the last layer written.
//!
//! ```
//! use matombo_egtb::{Tables, Value};
//! use matombo_core::Position;
//!
//! let ruleset = "tsoro:6,heads=0,bonus=0".parse()?;
//! let tables = Tables::build(ruleset, 2, 1)?;
//! // South's single stone moves into the empty inner hole facing North's: a capture,
//! // and North, without stones, cannot move.
//! let p: Position = "tsoro:6,heads=0,bonus=0 0*6/0*5,1/0*6/0*5,1 S".parse()?;
//! assert_eq!(tables.probe(&p), Some(Value::Win(1)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod build;
pub mod file;
mod index;
mod pns;
mod solve;
mod value;

use std::path::Path;

use matombo_core::{Position, Ruleset, Token};

pub use build::{build_layer, Budget, BYTES_PER_EDGE, BYTES_PER_POSITION};
pub use index::LayerIndex;
pub use pns::{solve_pns, Answer, Pns, PnsLimits, PnsSolution, PnsStats, Proof, ProofError, ENTRY_BYTES};
pub use solve::{Solution, Solver};
pub use value::{Value, MAX_DISTANCE};

/// Why a table could not be built or read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    /// A file is damaged: never trusted.
    #[error("corrupt table: {0}")]
    Corrupt(String),
    /// A file of another format version.
    #[error("table format version {found}, this build reads version {expected}: rebuild the tables")]
    Version {
        /// The file's version.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// A file of another ruleset or layer.
    #[error("wrong table: {0}")]
    Mismatch(String),
    /// A layer with more positions than 32-bit indices number.
    #[error("the layer of {stones} stones is too big to build")]
    TooBig {
        /// The layer's stone count.
        stones: u32,
    },
    /// More stones than the ruleset starts with.
    #[error("{ruleset} starts with {max} stones; tables of {stones} cannot exist")]
    TooManyStones {
        /// The ruleset.
        ruleset: String,
        /// Stones asked for.
        stones: u32,
        /// The ruleset's stones.
        max: u32,
    },
    /// A distance longer than a code holds.
    #[error("a distance past {MAX_DISTANCE} turns")]
    TooDeep,
    /// A layer that would need more memory than allowed.
    #[error("the layer of {stones} stones needs more than {limit} bytes (at least {needed}); allow more memory or build fewer stones")]
    Memory {
        /// The layer's stone count.
        stones: u32,
        /// Bytes it needs at least.
        needed: u64,
        /// Bytes allowed.
        limit: u64,
    },
    /// No table files for the ruleset.
    #[error("no tables for {0} in {1}")]
    Missing(String, String),
}

impl Error {
    fn in_file(self, path: &Path) -> Error {
        match self {
            Error::Corrupt(why) => Error::Corrupt(format!("{}: {why}", path.display())),
            Error::Mismatch(why) => Error::Mismatch(format!("{}: {why}", path.display())),
            e => e,
        }
    }
}

/// One solved layer: its numbering and a code per position.
#[derive(Clone, Debug)]
pub struct Layer {
    /// The layer's numbering.
    pub index: LayerIndex,
    /// [`Value::code`] per position index.
    pub codes: Vec<u16>,
}

/// How a layer's positions divide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Positions won for the side to move.
    pub wins: u64,
    /// Positions lost for the side to move.
    pub losses: u64,
    /// Drawn positions.
    pub draws: u64,
    /// The longest distance to the end.
    pub longest: u16,
}

impl Layer {
    /// Counts the layer's wins, losses and draws.
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for &c in &self.codes {
            match Value::from_code(c).expect("layers hold values only") {
                Value::Win(d) => {
                    s.wins += 1;
                    s.longest = s.longest.max(d);
                }
                Value::Loss(d) => {
                    s.losses += 1;
                    s.longest = s.longest.max(d);
                }
                Value::Draw => s.draws += 1,
            }
        }
        s
    }

    /// The value of `pos`, which must be of this layer's ruleset and stone count.
    pub fn value(&self, pos: &Position) -> Value {
        Value::from_code(self.codes[self.index.rank(pos) as usize]).expect("layers hold values only")
    }
}

/// The tables of one ruleset: every layer from 0 stones up to `max_stones()`.
#[derive(Clone, Debug)]
pub struct Tables {
    ruleset: Ruleset,
    layers: Vec<Layer>,
}

impl Tables {
    /// Builds the tables of `ruleset` up to `stones` stones in memory, on `threads`
    /// threads (no memory bound: for tests and small tables).
    pub fn build(ruleset: Ruleset, stones: u32, threads: usize) -> Result<Tables, Error> {
        let mut tables = Tables { ruleset, layers: Vec::new() };
        check_stones(ruleset, stones)?;
        let budget = Budget { threads, memory: u64::MAX };
        for _ in 0..=stones {
            let (layer, _) = tables.build_next(budget, &|_| {})?;
            tables.layers.push(layer);
        }
        Ok(tables)
    }

    /// Builds or resumes the tables of `ruleset` up to `stones` stones in `dir`: a layer
    /// whose file is present and sound is read, the others are built and written.
    /// `progress(stones, positions done)` reports a layer's progress;
    /// `on_layer(layer, same-layer edges if it was built)` is called as each layer is ready.
    pub fn build_in(
        dir: &Path,
        ruleset: Ruleset,
        stones: u32,
        budget: Budget,
        progress: &(dyn Fn(u32, u64) + Sync),
        on_layer: &mut dyn FnMut(&Layer, Option<u64>),
    ) -> Result<Tables, Error> {
        check_stones(ruleset, stones)?;
        let mut tables = Tables { ruleset, layers: Vec::new() };
        for k in 0..=stones {
            let path = file::layer_path(dir, ruleset, k);
            let (layer, built) = if path.exists() {
                (file::read(dir, ruleset, k)?, None)
            } else {
                let (layer, edges) = tables.build_next(budget, &|done| progress(k, done))?;
                file::write(dir, ruleset, &layer)?;
                (layer, Some(edges))
            };
            on_layer(&layer, built);
            tables.layers.push(layer);
        }
        Ok(tables)
    }

    /// Reads every layer of `ruleset` present in `dir`, from 0 stones up to the first
    /// missing one. A damaged file is an error, never skipped.
    pub fn open(dir: &Path, ruleset: Ruleset) -> Result<Tables, Error> {
        let mut layers: Vec<Layer> = Vec::new();
        while file::layer_path(dir, ruleset, layers.len() as u32).exists() {
            layers.push(file::read(dir, ruleset, layers.len() as u32)?);
        }
        if layers.is_empty() {
            return Err(Error::Missing(ruleset.to_string(), dir.display().to_string()));
        }
        Ok(Tables { ruleset, layers })
    }

    /// Reads the tables of every ruleset under `dir` (each in the directory
    /// [`file::ruleset_dir`] names, its ruleset read from the header of its 0-stone layer).
    /// A subdirectory holding no `.mtb` file is skipped; one that holds some must open
    /// whole, as must every file: a damaged table is an error, never skipped.
    pub fn open_all(dir: &Path) -> Result<Vec<Tables>, Error> {
        let none = || Error::Missing("any ruleset".into(), dir.display().to_string());
        if !dir.is_dir() {
            return Err(none());
        }
        let io = |e| Error::Io(dir.display().to_string(), e);
        let mut subdirs: Vec<_> =
            std::fs::read_dir(dir).map_err(io)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>().map_err(io)?;
        subdirs.retain(|p| p.is_dir());
        subdirs.sort();
        let mut all = Vec::new();
        for sub in subdirs {
            let has_tables = std::fs::read_dir(&sub)
                .map_err(|e| Error::Io(sub.display().to_string(), e))?
                .filter_map(Result::ok)
                .any(|e| e.path().extension().is_some_and(|x| x == "mtb"));
            if !has_tables {
                continue;
            }
            let first = sub.join("layer-000.mtb");
            if !first.exists() {
                return Err(Error::Corrupt(format!("{}: the 0-stone layer is missing", sub.display())));
            }
            let name = file::ruleset_of(&first)?;
            let ruleset: Ruleset =
                name.parse().map_err(|e| Error::Corrupt(format!("{}: ruleset {name:?}: {e}", first.display())))?;
            if file::ruleset_dir(dir, ruleset) != sub {
                return Err(Error::Mismatch(format!("{}: the files are for {ruleset}", sub.display())));
            }
            all.push(Tables::open(dir, ruleset)?);
        }
        if all.is_empty() {
            return Err(none());
        }
        Ok(all)
    }

    fn build_next(&self, budget: Budget, progress: &(dyn Fn(u64) + Sync)) -> Result<(Layer, u64), Error> {
        let k = self.layers.len() as u32;
        let index = LayerIndex::new(self.ruleset, k).ok_or(Error::TooBig { stones: k })?;
        let (codes, edges) = build_layer(&index, &self.layers, budget, progress)?;
        Ok((Layer { index, codes }, edges))
    }

    /// The ruleset.
    pub fn ruleset(&self) -> Ruleset {
        self.ruleset
    }

    /// The most stones a position may hold to be in the tables.
    pub fn max_stones(&self) -> u32 {
        self.layers.len() as u32 - 1
    }

    /// The layers, by stone count.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// The exact value of `pos` for its side to move, if the tables hold it (same ruleset,
    /// at most [`Tables::max_stones`] stones).
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        if pos.ruleset() != self.ruleset {
            return None;
        }
        self.layers.get(pos.total_stones() as usize).map(|l| l.value(pos))
    }

    /// The best turns of `pos` by the tables (fastest win, slowest loss; every turn of a
    /// draw that keeps the draw), with the value each leads to for the mover.
    pub fn best_turns(&self, pos: &Position) -> Option<(Value, Vec<Token>)> {
        let value = self.probe(pos)?;
        let best = pos
            .turns()
            .filter(|(_, child)| self.probe(child).map(Value::back) == Some(value))
            .map(|(t, _)| t)
            .collect();
        Some((value, best))
    }
}

fn check_stones(ruleset: Ruleset, stones: u32) -> Result<(), Error> {
    if stones > ruleset.total_stones() {
        return Err(Error::TooManyStones { ruleset: ruleset.to_string(), stones, max: ruleset.total_stones() });
    }
    Ok(())
}
