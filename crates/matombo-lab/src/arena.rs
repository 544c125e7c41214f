//! Matches between engines: engine specs, players, openings of colour-swapped pairs, one
//! game from its opening to its end, the records of the games, and a whole match on
//! several threads with its tally and an optional SPRT stop.
//!
//! ```
//! use matombo_lab::arena::{run_match, MatchConfig, Spec};
//!
//! let mut config = MatchConfig::new("greedy".parse().unwrap(), "random".parse().unwrap(), "tsoro:6".parse().unwrap());
//! config.max_turns = 60;
//! let starts = matombo_lab::arena::openings(&config, 1, 1, || {}).unwrap();
//! let result = run_match(&config, &starts, 1, |_, _| {}, |_, _| Ok::<_, ()>(())).unwrap();
//! assert_eq!(result.tally.games(), 2);
//! ```

use std::fmt;
use std::io::Write;
use std::ops::ControlFlow;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use matombo_ai::nnue::Network;
use matombo_ai::{
    greedy_turn, random_turn, Engine, Level, Limits, Mcts, MctsConfig, NetChoice, DEFAULT_HASH_MIB, MAX_HASH_MIB,
};
use matombo_core::{Game, Position, Record, Ruleset, Side, Token};
use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::{balanced_opening, opening, sprt, stats, NoBalancedOpening, Sprt, Stats, Tally, Verdict};

/// A player: a baseline, or a level and/or explicit limits.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// Uniformly random turns.
    Random,
    /// The biggest immediate capture.
    Greedy,
    /// A search; `level` brings its randomness and its limits on the match's board, and
    /// `limits` (the ones written in the spec) override those.
    Search {
        /// Level, if named.
        level: Option<Level>,
        /// The limits written in the spec.
        limits: Limits,
        /// Size of the transposition table in MiB.
        hash_mib: usize,
        /// Probe the match's endgame tables ([`MatchConfig::tables`]); written `egtb`.
        egtb: bool,
        /// Evaluation weights read from a file (`weights=FILE`, as `matombo tune` writes
        /// them); `None`: the game's own.
        weights: Option<matombo_ai::Weights>,
        /// The evaluation network: the board's built-in one, one read from a file
        /// (`net=FILE`, as `matombo train net` writes it), or none (`net=none`).
        net: NetChoice,
        /// The spec as written.
        text: String,
    },
    /// Monte-Carlo tree search.
    Mcts {
        /// The search limits (`depth` unused).
        limits: Limits,
        /// The search settings.
        config: MctsConfig,
        /// The spec as written.
        text: String,
    },
}

/// The network of `net=FILE` (a file `matombo train net` wrote) or `net=none` (the
/// weights alone), as an engine spec and `matombo bench --net` write it.
pub fn parse_net(v: &str) -> Result<NetChoice, String> {
    if v == "none" {
        return Ok(NetChoice::Off);
    }
    let bytes = std::fs::read(v).map_err(|e| format!("cannot read network file {v:?}: {e}"))?;
    let net = Network::from_bytes(&bytes).map_err(|e| format!("bad network file {v:?}: {e}"))?;
    Ok(NetChoice::Given(std::sync::Arc::new(net)))
}

/// An error if `net` is a given network trained for another board than `ruleset`'s: it
/// would silently leave the weights to evaluate.
pub fn check_net(net: &NetChoice, ruleset: Ruleset) -> Result<(), String> {
    match net {
        NetChoice::Given(n) if !n.fits(ruleset) => Err(format!(
            "the network is trained for {}, not for {ruleset} (a network evaluates one game on one board size)",
            n.ruleset()
        )),
        _ => Ok(()),
    }
}

/// Parses `mcts[,time=MS][,nodes=N][,c=X][,playout=T][,scale=S][,prior=V][,mm=A]`.
fn parse_mcts(s: &str) -> Result<Spec, String> {
    let mut limits = Limits::default();
    let mut config = MctsConfig::default();
    for part in s.split(',').skip(1) {
        let part = part.trim();
        let bad = || {
            format!("bad option {part:?} in engine spec {s:?} (mcts takes time=MS, nodes=N, c=X, playout=T, scale=S, prior=V, mm=A)")
        };
        let (k, v) = part.split_once('=').ok_or_else(bad)?;
        let int = || v.parse::<u64>().map_err(|_| format!("bad number {v:?} in engine spec {s:?}"));
        let float = || match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
            _ => Err(format!("bad number {v:?} in engine spec {s:?} (expected a positive number)")),
        };
        match k {
            "time" => limits.time = Some(Duration::from_millis(int()?)),
            "nodes" if int()? >= 1 => limits.nodes = Some(int()?),
            "c" => config.exploration = float()?,
            "playout" => config.playout_turns = u32::try_from(int()?).map_err(|_| bad())?,
            "scale" => config.eval_scale = float()?,
            "prior" => config.prior_visits = u32::try_from(int()?).map_err(|_| bad())?,
            "mm" => match v.parse::<f64>() {
                Ok(a) if (0.0..=1.0).contains(&a) => config.minimax_weight = a,
                _ => return Err(format!("bad weight {v:?} in engine spec {s:?} (expected 0 to 1)")),
            },
            _ => return Err(bad()),
        }
    }
    if limits.time.is_none() && limits.nodes.is_none() {
        limits.time = Some(Level::Hard.time());
    }
    Ok(Spec::Mcts { limits, config, text: s.to_string() })
}

impl FromStr for Spec {
    type Err = String;
    fn from_str(s: &str) -> Result<Spec, String> {
        match s {
            "random" => return Ok(Spec::Random),
            "greedy" => return Ok(Spec::Greedy),
            _ if s == "mcts" || s.starts_with("mcts,") => return parse_mcts(s),
            _ => {}
        }
        let mut level = None;
        let mut limits = Limits::default();
        let mut hash_mib = DEFAULT_HASH_MIB;
        let mut egtb = false;
        let mut weights = None;
        let mut net = NetChoice::Builtin;
        for (i, part) in s.split(',').enumerate() {
            let part = part.trim();
            if i == 0 {
                if let Ok(l) = part.parse::<Level>() {
                    level = Some(l);
                    continue;
                }
            }
            if part == "egtb" {
                egtb = true;
                continue;
            }
            let (k, v) = part.split_once('=').ok_or_else(|| {
                format!(
                    "bad engine spec {s:?}: expected random, greedy, a level (beginner..max) or time=MS, depth=D, nodes=N, hash=MIB, egtb, weights=FILE, net=FILE or net=none"
                )
            })?;
            if k == "weights" {
                let text = std::fs::read_to_string(v).map_err(|e| format!("cannot read weights file {v:?}: {e}"))?;
                let w = crate::tuning::parse_weights(&text).map_err(|e| format!("bad weights file {v:?}: {e:#}"))?;
                weights = Some(w);
                continue;
            }
            if k == "net" {
                net = parse_net(v)?;
                continue;
            }
            let n: u64 = v.parse().map_err(|_| format!("bad number {v:?} in engine spec {s:?}"))?;
            match k {
                "time" => limits.time = Some(Duration::from_millis(n)),
                "depth" if n >= 1 => limits.depth = Some(n as u32),
                "nodes" => limits.nodes = Some(n),
                "hash" if (1..=MAX_HASH_MIB as u64).contains(&n) => hash_mib = n as usize,
                _ => {
                    return Err(format!(
                        "bad limit {part:?} in engine spec {s:?} (time=MS, depth=D>=1, nodes=N, hash=MIB from 1 to {MAX_HASH_MIB})"
                    ))
                }
            }
        }
        Ok(Spec::Search { level, limits, hash_mib, egtb, weights, net, text: s.to_string() })
    }
}

impl Spec {
    /// An error if the spec's network (`net=FILE`) was trained for another board than
    /// `ruleset`'s ([`check_net`]).
    pub fn check_net(&self, ruleset: Ruleset) -> Result<(), String> {
        match self {
            Spec::Search { net, text, .. } => check_net(net, ruleset).map_err(|e| format!("{text:?}: {e}")),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spec::Random => f.write_str("random"),
            Spec::Greedy => f.write_str("greedy"),
            Spec::Search { text, .. } | Spec::Mcts { text, .. } => f.write_str(text),
        }
    }
}

/// A player for one game: a spec with its engine and random state.
pub struct Player {
    spec: Spec,
    engine: Engine,
    mcts: Option<Mcts>,
    rng: SmallRng,
}

impl Player {
    /// A player of `spec` whose randomness comes from `seed`.
    pub fn new(spec: &Spec, seed: u64) -> Player {
        let mcts = match spec {
            Spec::Mcts { config, .. } => Some(Mcts::with_config(seed, *config)),
            _ => None,
        };
        let (hash_mib, weights, net) = match spec {
            Spec::Search { hash_mib, weights, net, .. } => (*hash_mib, *weights, net.clone()),
            _ => (DEFAULT_HASH_MIB, None, NetChoice::Builtin),
        };
        let mut engine = weights.map_or_else(|| Engine::new(seed), |w| Engine::with_weights(seed, w));
        // Given weights mean no network unless one is written too.
        if net != NetChoice::Builtin {
            engine = engine.with_net(net);
        }
        Player {
            spec: spec.clone(),
            engine: engine.with_hash_mib(hash_mib),
            mcts,
            rng: SmallRng::seed_from_u64(seed ^ 0x5eed),
        }
    }

    /// This player probing `tables` if its spec asks for them (a search spec with `egtb`).
    pub fn with_tables(mut self, spec: &Spec, tables: Option<&std::sync::Arc<matombo_egtb::Tables>>) -> Player {
        if let (Spec::Search { egtb: true, .. }, Some(t)) = (spec, tables) {
            self.engine = std::mem::replace(&mut self.engine, Engine::new(0)).with_tables(t.clone());
        }
        self
    }

    /// Whether `spec` asks for endgame tables.
    pub fn wants_tables(spec: &Spec) -> bool {
        matches!(spec, Spec::Search { egtb: true, .. })
    }

    /// The turn this player chooses in `game`'s current position (`None`: no legal turn).
    pub fn choose(&mut self, game: &Game) -> Option<Token> {
        let pos = game.position();
        let history = &game.positions()[..game.positions().len() - 1];
        let stop = AtomicBool::new(false);
        match &self.spec {
            Spec::Random => random_turn(pos, &mut self.rng),
            Spec::Greedy => greedy_turn(pos, &mut self.rng),
            Spec::Search { level, limits, .. } => {
                if let Some(l) = level {
                    if rand::Rng::random_bool(&mut self.rng, l.randomness()) {
                        return random_turn(pos, &mut self.rng);
                    }
                }
                let limits = search_limits(*level, *limits, pos.ruleset());
                self.engine.search_with(pos, limits, &stop, history, &[], &mut |_| {}).map(|r| r.best)
            }
            Spec::Mcts { limits, .. } => {
                let mcts = self.mcts.as_mut().expect("made for an mcts spec");
                mcts.search_with(pos, *limits, &stop, history).map(|r| r.best)
            }
        }
    }
}

/// The limits of a search spec on `ruleset`: its level's, with the written ones in their
/// place.
pub fn search_limits(level: Option<Level>, written: Limits, ruleset: Ruleset) -> Limits {
    level.map_or(written, |l| l.limits(ruleset).overridden_by(written))
}

/// A match's settings: who plays, on what board, from which openings.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// First engine (the one the score is for).
    pub first: Spec,
    /// Second engine.
    pub second: Spec,
    /// Ruleset played.
    pub ruleset: Ruleset,
    /// Random turns played from the start position to make each opening.
    pub opening_turns: u32,
    /// Keep only openings a search scores within ± this many hundredths of a stone.
    pub balanced: Option<u32>,
    /// Node budget of the search that judges an opening's balance.
    pub balance_nodes: u64,
    /// Turn cap: a game still going after this many turns is unfinished.
    pub max_turns: usize,
    /// Seed of the openings and the engines.
    pub seed: u64,
    /// Sequential probability ratio test of H0: Elo = `.0` against H1: Elo = `.1`; the
    /// match stops at a verdict.
    pub sprt: Option<(f64, f64)>,
    /// Games played before the SPRT may give a verdict.
    pub sprt_min_games: u32,
    /// Endgame tables of the ruleset, probed by the search specs written with `egtb`.
    pub tables: Option<std::sync::Arc<matombo_egtb::Tables>>,
}

impl MatchConfig {
    /// `first` against `second` on `ruleset` with the defaults of `matombo match`.
    pub fn new(first: Spec, second: Spec, ruleset: Ruleset) -> MatchConfig {
        MatchConfig {
            first,
            second,
            ruleset,
            opening_turns: 4,
            balanced: None,
            balance_nodes: 1_000_000,
            max_turns: 400,
            seed: 1,
            sprt: None,
            sprt_min_games: 20,
            tables: None,
        }
    }

    /// The SPRT's state after the games of `t`; no verdict before `sprt_min_games`.
    pub fn judge(&self, t: &Tally) -> Option<Sprt> {
        let (elo0, elo1) = self.sprt?;
        let mut s = sprt(t, elo0, elo1);
        if t.games() < self.sprt_min_games {
            s.verdict = Verdict::Continue.as_str();
        }
        Some(s)
    }
}

/// The opening of each of `pairs` pairs, in order; balanced ones (with `config.balanced`)
/// are searched on `threads` threads, `on_found` called after each.
pub fn openings(
    config: &MatchConfig,
    pairs: usize,
    threads: usize,
    mut on_found: impl FnMut(),
) -> Result<Vec<Position>, NoBalancedOpening> {
    let seed_of =
        |pair: u64| move |attempt: u64| config.seed.wrapping_mul(0x9e37_79b9).wrapping_add(pair << 16 | attempt);
    let Some(within) = config.balanced else {
        return Ok((0..pairs as u64).map(|p| opening(config.ruleset, config.opening_turns, seed_of(p))).collect());
    };
    let mut found: Vec<Option<Position>> = vec![None; pairs];
    crate::parallel(
        pairs,
        threads,
        |p| balanced_opening(config.ruleset, config.opening_turns, within, config.balance_nodes, seed_of(p as u64)),
        |p, r| -> Result<ControlFlow<()>, NoBalancedOpening> {
            found[p] = Some(r?);
            on_found();
            Ok(ControlFlow::Continue(()))
        },
    )?;
    Ok(found.into_iter().map(|p| p.expect("every pair searched")).collect())
}

/// The first engine's side in game `index` (from 0): colours swap within each pair.
pub fn first_side(index: usize) -> Side {
    if index % 2 == 0 {
        Side::South
    } else {
        Side::North
    }
}

/// Plays game `index` (from 0) from `start` to its end or the turn cap.
pub fn play(config: &MatchConfig, start: &Position, index: usize) -> Game {
    let first_side = first_side(index);
    let seed = config.seed.wrapping_mul(1_000_003).wrapping_add(index as u64 * 2);
    let mut first = Player::new(&config.first, seed).with_tables(&config.first, config.tables.as_ref());
    let mut second = Player::new(&config.second, seed + 1).with_tables(&config.second, config.tables.as_ref());
    let mut game = Game::new(start.clone());
    while !game.is_over() && game.moves().len() < config.max_turns {
        let mover = game.position().side_to_move();
        let player = if mover == first_side { &mut first } else { &mut second };
        let Some(t) = player.choose(&game) else { break };
        if let Err(e) = game.play(&t) {
            // Never expected: an engine bug. The game is recorded unfinished.
            tracing::error!("{} played an illegal turn {t} in {}: {e}", player.spec, game.position());
            break;
        }
    }
    game
}

/// Today's date as `YYYY.MM.DD` (UTC), for the records.
pub fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    matombo_core::date_tag(secs as i64)
}

/// Game `index` (from 0) as a record (RULES.md §6.5) with the players, date and round.
pub fn record(config: &MatchConfig, index: usize, game: &Game, date: &str) -> Record {
    let (south, north) = if first_side(index) == Side::South {
        (config.first.to_string(), config.second.to_string())
    } else {
        (config.second.to_string(), config.first.to_string())
    };
    let mut r = Record::new(game.clone());
    r.set_tag("South", &south);
    r.set_tag("North", &north);
    r.set_tag("Date", date);
    r.set_tag("Round", &(index + 1).to_string());
    if game.outcome().is_none() {
        r.set_tag("Termination", "turn limit");
    }
    r
}

/// Appends game `index`'s record to `f`, flushed so that it survives an interruption.
pub fn write_record(
    f: &mut impl Write,
    config: &MatchConfig,
    index: usize,
    game: &Game,
    date: &str,
) -> std::io::Result<()> {
    writeln!(f, "{}\n", record(config, index, game, date))?;
    f.flush()
}

/// What a match ended with.
#[derive(Debug)]
pub struct MatchResult {
    /// Wins, losses, draws and unfinished games of the first engine.
    pub tally: Tally,
    /// Score and Elo (none without a finished game).
    pub stats: Option<Stats>,
    /// The SPRT's final state, with `config.sprt`.
    pub sprt: Option<Sprt>,
    /// Whether the match stopped at the SPRT verdict before all its games.
    pub stopped: bool,
}

/// Plays a pair of games from each opening of `starts` (colours swapped) on `threads`
/// threads. `on_end(index, tally)` is called as each game ends (out of order), and
/// `in_order(index, game)` once every game before it has ended too, so that records written
/// there keep every game played if the match is interrupted; an error from it stops the
/// match. The match also stops at an SPRT verdict.
pub fn run_match<E>(
    config: &MatchConfig,
    starts: &[Position],
    threads: usize,
    mut on_end: impl FnMut(usize, &Tally),
    mut in_order: impl FnMut(usize, &Game) -> Result<(), E>,
) -> Result<MatchResult, E> {
    let games = starts.len() * 2;
    let mut played: Vec<Option<Game>> = vec![None; games];
    let mut tally = Tally::default();
    let mut handed = 0;
    let all = crate::parallel(
        games,
        threads,
        |i| play(config, &starts[i / 2], i),
        |i, game| -> Result<ControlFlow<()>, E> {
            tally.record(game.outcome(), first_side(i));
            on_end(i, &tally);
            played[i] = Some(game);
            while let Some(Some(game)) = played.get(handed) {
                in_order(handed, game)?;
                handed += 1;
            }
            let decided = config.judge(&tally).is_some_and(|s| s.verdict() != Verdict::Continue);
            Ok(if decided { ControlFlow::Break(()) } else { ControlFlow::Continue(()) })
        },
    )?;
    Ok(MatchResult { tally, stats: stats(&tally), sprt: config.judge(&tally), stopped: !all })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!("random".parse::<Spec>(), Ok(Spec::Random));
        let Spec::Search { level, limits, .. } = "max,time=6000".parse::<Spec>().unwrap() else { panic!() };
        assert_eq!(level, Some(Level::Max));
        assert_eq!(limits.time, Some(Duration::from_millis(6000)));
        let Spec::Search { level, limits, hash_mib, .. } = "depth=3,nodes=500".parse::<Spec>().unwrap() else {
            panic!()
        };
        assert_eq!((level, limits.depth, limits.nodes, limits.time), (None, Some(3), Some(500), None));
        assert_eq!(hash_mib, DEFAULT_HASH_MIB);
        let Spec::Search { level, limits, hash_mib, .. } = "max,hash=256".parse::<Spec>().unwrap() else { panic!() };
        assert_eq!((level, limits, hash_mib), (Some(Level::Max), Limits::default(), 256));
        assert!("max,hash=0".parse::<Spec>().is_err());
        assert!("hash=99999999".parse::<Spec>().is_err());
        assert!("fast".parse::<Spec>().is_err());
        assert!("depth=0".parse::<Spec>().is_err());
        assert!("time=x".parse::<Spec>().is_err());
        let Spec::Search { level, egtb, .. } = "hard,egtb".parse::<Spec>().unwrap() else { panic!() };
        assert_eq!((level, egtb), (Some(Level::Hard), true));
        assert!(!matches!("hard".parse::<Spec>().unwrap(), Spec::Search { egtb: true, .. }));
        let file = std::env::temp_dir().join(format!("matombo-spec-weights-{}.json", std::process::id()));
        std::fs::write(&file, r#"{"mobility": 40}"#).unwrap();
        let spec = format!("nodes=500,weights={}", file.display());
        let Spec::Search { weights, limits, .. } = spec.parse::<Spec>().unwrap() else { panic!() };
        assert_eq!(
            (weights, limits.nodes),
            (Some(matombo_ai::Weights { mobility: 40, ..Default::default() }), Some(500))
        );
        assert!(matches!("hard".parse::<Spec>().unwrap(), Spec::Search { weights: None, .. }));
        std::fs::write(&file, r#"{"mobility": -4}"#).unwrap();
        assert!(spec.parse::<Spec>().unwrap_err().contains("mobility"));
        std::fs::remove_file(&file).unwrap();
        assert!(spec.parse::<Spec>().unwrap_err().contains("cannot read"));
    }

    #[test]
    fn network_specs_read_their_file_and_fit_one_board() {
        use matombo_ai::nnue::{inputs, HIDDEN};
        let ruleset: Ruleset = "nsolo:8".parse().unwrap();
        let w1: Vec<f32> = (0..inputs(8) * HIDDEN).map(|i| (i % 7) as f32 * 0.01).collect();
        let net = Network::from_float(ruleset, &w1, &[0.5; HIDDEN], &[0.25; 2 * HIDDEN], -1.0).unwrap();
        let file = std::env::temp_dir().join(format!("matombo-spec-net-{}.nnue", std::process::id()));
        std::fs::write(&file, net.to_bytes()).unwrap();
        let spec: Spec = format!("nodes=300,net={}", file.display()).parse().unwrap();
        let Spec::Search { net: NetChoice::Given(read), limits, .. } = &spec else { panic!("{spec:?}") };
        assert_eq!((**read == net, limits.nodes), (true, Some(300)));
        assert_eq!(spec.check_net(ruleset), Ok(()));
        let err = spec.check_net("tsoro:8".parse().unwrap()).unwrap_err();
        assert!(err.contains("trained for nsolo:8, not for tsoro:8") && err.contains("nodes=300"), "{err}");
        // The player searches with it: a legal turn.
        let game = Game::new(Position::start(ruleset));
        let turn = Player::new(&spec, 1).choose(&game).unwrap();
        assert!(game.position().play(&turn).is_ok());
        assert!(matches!("hard".parse::<Spec>().unwrap(), Spec::Search { net: NetChoice::Builtin, .. }));
        assert!(matches!("hard,net=none".parse::<Spec>().unwrap(), Spec::Search { net: NetChoice::Off, .. }));
        std::fs::write(&file, b"not a network").unwrap();
        let err = format!("net={}", file.display()).parse::<Spec>().unwrap_err();
        assert!(err.contains("bad network file") && err.contains("MATOMBO-NNUE"), "{err}");
        std::fs::remove_file(&file).unwrap();
        let err = format!("net={}", file.display()).parse::<Spec>().unwrap_err();
        assert!(err.contains("cannot read network file"), "{err}");
    }

    #[test]
    fn level_limits_follow_the_board_and_written_limits_win() {
        let limits = |spec: &str, ruleset: &str| {
            let Spec::Search { level, limits, .. } = spec.parse::<Spec>().unwrap() else { panic!() };
            let l = search_limits(level, limits, ruleset.parse().unwrap());
            (l.time.map(|t| t.as_millis()), l.depth, l.nodes)
        };
        assert_eq!(limits("hard", "tsoro:8"), (Some(1000), Some(Level::HARD_DEPTH), None));
        assert_eq!(limits("hard", "nsolo:12"), (Some(1000), Some(Level::HARD_DEPTH), None));
        assert_eq!(limits("hard", "nsolo:13"), (Some(1000), None, None));
        assert_eq!(limits("hard", "tsoro:21"), (Some(1000), None, None));
        assert_eq!(limits("hard", "nsolo:21"), (Some(1000), None, None));
        assert_eq!(limits("hard", "nsolo:22"), (Some(1000), None, Some(Level::HARD_WIDE_NODES)));
        assert_eq!(limits("hard", "nsolo:36"), (Some(1000), None, Some(Level::HARD_WIDE_NODES)));
        assert_eq!(limits("hard,nodes=1000000", "nsolo:36"), (Some(1000), None, Some(1_000_000)));
        assert_eq!(limits("hard,depth=20", "nsolo:8"), (Some(1000), Some(20), None));
        assert_eq!(limits("max,time=6000", "nsolo:8"), (Some(6000), None, None));
        assert_eq!(limits("medium,nodes=500", "nsolo:36"), (Some(200), Some(4), Some(500)));
        assert_eq!(limits("depth=3", "tsoro:8"), (None, Some(3), None));
    }

    #[test]
    fn mcts_specs_parse() {
        let Spec::Mcts { limits, config, .. } = "mcts".parse::<Spec>().unwrap() else { panic!() };
        assert_eq!(limits.time, Some(Level::Hard.time()));
        assert_eq!((limits.nodes, config), (None, MctsConfig::default()));
        let Spec::Mcts { limits, .. } = "mcts,time=100".parse::<Spec>().unwrap() else { panic!() };
        assert_eq!((limits.time, limits.nodes), (Some(Duration::from_millis(100)), None));
        // A node limit alone keeps the search reproducible: no default time.
        let Spec::Mcts { limits, .. } = "mcts,nodes=5000".parse::<Spec>().unwrap() else { panic!() };
        assert_eq!((limits.time, limits.nodes), (None, Some(5000)));
        let spec: Spec = "mcts,time=50,c=1.4,playout=8,scale=300,prior=0,mm=0.3".parse().unwrap();
        assert_eq!(spec.to_string(), "mcts,time=50,c=1.4,playout=8,scale=300,prior=0,mm=0.3");
        let Spec::Mcts { limits, config, .. } = spec else { panic!() };
        assert_eq!(limits.time, Some(Duration::from_millis(50)));
        let MctsConfig { exploration, playout_turns, eval_scale, prior_visits, minimax_weight } = config;
        assert_eq!((exploration, playout_turns, eval_scale, prior_visits, minimax_weight), (1.4, 8, 300.0, 0, 0.3));
        for bad in [
            "mcts,depth=3",
            "mcts,time=x",
            "mcts,nodes=0",
            "mcts,c=-1",
            "mcts,c=nan",
            "mcts,fast",
            "mcts,playout=1.5",
            "mcts,mm=2",
        ] {
            assert!(bad.parse::<Spec>().is_err(), "{bad}");
        }
        // A level name is not an mcts prefix.
        assert!("mctsx".parse::<Spec>().is_err());
    }

    #[test]
    fn a_match_plays_colour_swapped_pairs_in_order() {
        let mut config = MatchConfig::new(Spec::Greedy, Spec::Random, "tsoro:6".parse().unwrap());
        config.max_turns = 80;
        let starts = openings(&config, 2, 1, || {}).unwrap();
        assert_eq!(starts.len(), 2);
        let mut order = Vec::new();
        let mut ended = 0;
        let r = run_match(
            &config,
            &starts,
            2,
            |_, _| ended += 1,
            |i, g| {
                // Each game starts from its pair's opening.
                assert_eq!(g.positions()[0], starts[i / 2]);
                order.push(i);
                Ok::<_, ()>(())
            },
        )
        .unwrap();
        assert_eq!((order, ended, r.tally.games(), r.stopped), (vec![0, 1, 2, 3], 4, 4, false));
        // The same seed plays the same games.
        let again = run_match(&config, &starts, 1, |_, _| {}, |_, _| Ok::<_, ()>(())).unwrap();
        assert_eq!(again.tally, r.tally);
        let rec = record(&config, 1, &play(&config, &starts[0], 1), "2026.01.01").to_string();
        assert!(rec.contains("[South \"random\"]") && rec.contains("[Round \"2\"]"), "{rec}");
    }

    #[test]
    fn the_sprt_stops_a_decided_match() {
        let mut config = MatchConfig::new(Spec::Greedy, Spec::Random, "tsoro:6".parse().unwrap());
        config.max_turns = 200;
        config.sprt = Some((0.0, 400.0));
        config.sprt_min_games = 2;
        let starts = openings(&config, 40, 1, || {}).unwrap();
        let r = run_match(&config, &starts, 1, |_, _| {}, |_, _| Ok::<_, ()>(())).unwrap();
        assert!(r.stopped && r.tally.games() < 80, "{:?}", r.tally);
        assert_ne!(r.sprt.unwrap().verdict(), Verdict::Continue);
    }

    #[test]
    fn date_format() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"));
    }
}
