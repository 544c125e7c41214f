//! The game state and its key handling: a pure state machine, with no terminal, clock or
//! thread, so that every behaviour can be tested by feeding it keys. The keys are read in
//! `keys`, the sowing animation is drawn up in `anim`.

use std::collections::VecDeque;

use matombo_ai::Level;
use matombo_core::{Decision, Game, GameKind, Hole, Phase, Position, Record, Side, Token, TurnBuilder};

mod anim;
mod keys;

pub use anim::{frames, AnimFrame};
pub use keys::screen_cell;

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    /// A person at the keyboard.
    Human,
    /// The computer at this level.
    Ai(Level),
}

/// What the surrounding loop must do after a key or an AI answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Search `position` at `level` off the UI thread and answer with [`App::ai_done`] and this `id`.
    Think {
        /// Request number; answers to older requests are ignored.
        id: u64,
        /// The position to search (boxed: positions are large).
        position: Box<Position>,
        /// The AI's level.
        level: Level,
    },
    /// Stop the running search (its answer will be ignored).
    CancelThink,
    /// Write the game record now.
    Save,
    /// Leave the program (after saving if a record file was given).
    Quit,
}

/// The whole state of a game on the terminal board.
pub struct App {
    game: Game,
    redo: Vec<Token>,
    turn: TurnBuilder,
    players: [Player; 2],
    cursor: Option<Hole>,
    typed: String,
    /// At a head prompt: whether "continue" is the highlighted option.
    head_continue: bool,
    anim: VecDeque<AnimFrame>,
    frame_ms: u64,
    lap_ms: u64,
    thinking: Option<u64>,
    next_id: u64,
    help: bool,
    message: String,
    quit: bool,
}

/// Upper bound of one turn's animation, so that long relays do not hold the game up.
const ANIM_BUDGET_MS: u64 = 4000;

impl App {
    /// A game from `start`; `lap_ms` is the time per animation frame (0: no animation).
    pub fn new(start: Position, players: [Player; 2], lap_ms: u64) -> App {
        let game = Game::new(start);
        let turn = game.position().build_turn();
        let mut app = App {
            game,
            redo: Vec::new(),
            turn,
            players,
            cursor: None,
            typed: String::new(),
            head_continue: true,
            anim: VecDeque::new(),
            frame_ms: lap_ms,
            lap_ms,
            thinking: None,
            next_id: 0,
            help: false,
            message: String::new(),
            quit: false,
        };
        app.place_cursor();
        app
    }

    /// Effects to run once at start (the AI moves first if it plays South).
    pub fn start(&mut self) -> Vec<Effect> {
        self.maybe_think()
    }

    /// The game so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The turn in progress (bonus picks in any order: see [`TurnBuilder`]).
    pub fn turn(&self) -> &TurnBuilder {
        &self.turn
    }

    /// Who plays each side, South first.
    pub fn players(&self) -> [Player; 2] {
        self.players
    }

    /// The hole under the cursor, if the cursor is shown.
    pub fn cursor(&self) -> Option<Hole> {
        if self.human_to_act() && matches!(self.turn.phase(), Phase::Start | Phase::Bonus { .. }) {
            self.cursor
        } else {
            None
        }
    }

    /// The label typed so far.
    pub fn typed(&self) -> &str {
        &self.typed
    }

    /// At a head prompt, whether "continue" is highlighted.
    pub fn head_continue(&self) -> bool {
        self.head_continue
    }

    /// The animation frame on show, if any.
    pub fn frame(&self) -> Option<&AnimFrame> {
        self.anim.front()
    }

    /// Whether an animation is running.
    pub fn animating(&self) -> bool {
        !self.anim.is_empty()
    }

    /// Milliseconds each animation frame stays on screen.
    pub fn frame_ms(&self) -> u64 {
        self.frame_ms
    }

    /// Whether the AI is searching.
    pub fn thinking(&self) -> bool {
        self.thinking.is_some()
    }

    /// Whether the help overlay is shown.
    pub fn help(&self) -> bool {
        self.help
    }

    /// The last message (an error, a confirmation).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Sets the message line (the loop reports saving this way).
    pub fn set_message(&mut self, m: impl Into<String>) {
        self.message = m.into();
    }

    /// Whether the program should end.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Whether a person is to make the next decision now (not the AI, not over, not animating).
    pub fn human_to_act(&self) -> bool {
        !self.game.is_over() && self.anim.is_empty() && self.players[self.turn.mover().index()] == Player::Human
    }

    /// The legal start holes highlighted for a person choosing a start.
    pub fn legal_starts(&self) -> Vec<Hole> {
        if !self.human_to_act() || self.turn.phase() != Phase::Start {
            return Vec::new();
        }
        self.turn
            .decisions()
            .into_iter()
            .filter_map(|d| match d {
                Decision::Sow(h) => Some(h),
                _ => None,
            })
            .collect()
    }

    /// The opponent holes a person may pick now in the bonus, in any order (the engine's
    /// [`TurnBuilder::pickable`]).
    pub fn pickable(&self) -> Vec<Hole> {
        if !self.human_to_act() {
            return Vec::new();
        }
        self.turn.pickable()
    }

    /// The bonus picks chosen so far in the turn in progress, in the order chosen.
    pub fn picks(&self) -> &[Hole] {
        self.turn.picks()
    }

    /// Tsoro: holes that may still be picked; Nsolo: stones that must still be taken; 0
    /// outside the bonus.
    pub fn picks_left(&self) -> u16 {
        match self.turn.phase() {
            Phase::Bonus { left } => left,
            _ => 0,
        }
    }

    /// The start hole of the last complete turn (its side is the side that played it).
    pub fn last_start(&self) -> Option<Hole> {
        self.game.moves().last().map(|t| t.start)
    }

    /// The record of the game with players' names and `date` (`YYYY.MM.DD`).
    pub fn record(&self, date: &str) -> Record {
        let mut r = Record::new(self.game.clone());
        for side in Side::BOTH {
            let name = match self.players[side.index()] {
                Player::Human => "Human".to_string(),
                Player::Ai(level) => format!("matombo AI {level}"),
            };
            r.set_tag(&side.to_string(), &name);
        }
        r.set_tag("Date", date);
        r
    }

    /// A player's name for records and the screen.
    pub fn player_name(&self, side: Side) -> String {
        match self.players[side.index()] {
            Player::Human if self.players[side.opponent().index()] == Player::Human => side.to_string(),
            Player::Human => "you".to_string(),
            Player::Ai(level) => format!("matombo AI {level}"),
        }
    }

    /// Shows the next animation frame; returns whether one is left.
    pub fn advance(&mut self) -> bool {
        self.anim.pop_front();
        !self.anim.is_empty()
    }

    /// The answer of the AI to request `id`: its turn, or `None` if it found none.
    pub fn ai_done(&mut self, id: u64, token: Option<Token>) -> Vec<Effect> {
        if self.thinking != Some(id) {
            return Vec::new();
        }
        self.thinking = None;
        let Some(token) = token else {
            self.message = "the AI found no move".into();
            return Vec::new();
        };
        let decisions = match self.turn.position().resolve_for_builder(&token) {
            Ok(d) => d,
            Err(e) => {
                self.message = format!("the AI played an illegal turn: {e}");
                return Vec::new();
            }
        };
        for d in decisions {
            if let Err(e) = self.apply(d) {
                self.message = format!("the AI played an illegal turn: {e}");
                self.turn = self.game.position().build_turn();
                return Vec::new();
            }
        }
        self.finish_turn()
    }

    fn n(&self) -> usize {
        self.game.start().ruleset().size()
    }

    /// A bonus pick of a person, in any order; the engine records the bonus in canonical
    /// order once it is complete.
    fn pick(&mut self, h: Hole) -> Vec<Effect> {
        if !self.pickable().contains(&h) {
            self.message = format!("{h} cannot be taken now");
            return Vec::new();
        }
        self.decide(Decision::Take(h))
    }

    /// Applies a decision of a person.
    fn decide(&mut self, d: Decision) -> Vec<Effect> {
        if let Err(e) = self.apply(d) {
            self.message = match d {
                Decision::Sow(h) => format!("{h} is not a legal start"),
                Decision::Take(h) => format!("{h} cannot be taken now"),
                _ => e.to_string(),
            };
            return Vec::new();
        }
        if self.turn.is_complete() {
            return self.finish_turn();
        }
        self.place_cursor();
        Vec::new()
    }

    /// Applies a decision to the turn and queues its animation.
    fn apply(&mut self, d: Decision) -> Result<(), matombo_core::IllegalError> {
        let before = self.turn.position().clone();
        let mover = self.turn.mover();
        let mut events = Vec::new();
        self.turn.apply_with(d, &mut |e| events.push(e))?;
        if self.lap_ms > 0 {
            self.anim.extend(frames(&before, mover, &events));
            let n = self.anim.len().max(1) as u64;
            self.frame_ms = self.lap_ms.min((ANIM_BUDGET_MS / n).max(15));
        }
        if let Phase::Head(_) = self.turn.phase() {
            self.head_continue = self.turn.is_legal(Decision::Continue);
        }
        Ok(())
    }

    /// Records the completed turn in the game and sets up the next one.
    fn finish_turn(&mut self) -> Vec<Effect> {
        let token = self.turn.token().expect("the turn is complete");
        if self.game.play(&token).is_err() {
            // Cannot happen: the turn was built from legal decisions of this position.
            self.message = format!("internal error: {token} refused");
        }
        if self.redo.last() == Some(&token) {
            self.redo.pop();
        } else {
            self.redo.clear();
        }
        self.new_turn();
        self.maybe_think()
    }

    fn new_turn(&mut self) {
        self.turn = self.game.position().build_turn();
        self.typed.clear();
        self.place_cursor();
        if let Some(o) = self.game.outcome() {
            self.message = format!("Game over: {o}");
        }
    }

    /// Puts the cursor where the next choice is likely: on the current hole if still
    /// valid, else the first legal one.
    fn place_cursor(&mut self) {
        let holes: Vec<Hole> = match self.turn.phase() {
            Phase::Start => self
                .turn
                .decisions()
                .into_iter()
                .filter_map(|d| match d {
                    Decision::Sow(h) => Some(h),
                    _ => None,
                })
                .collect(),
            Phase::Bonus { .. } => self.pickable(),
            _ => return,
        };
        if self.cursor.is_some_and(|c| holes.contains(&c)) {
            return;
        }
        self.cursor = holes.first().copied().or(self.cursor);
    }

    fn maybe_think(&mut self) -> Vec<Effect> {
        if self.game.is_over() || self.thinking.is_some() {
            return Vec::new();
        }
        let Player::Ai(level) = self.players[self.turn.mover().index()] else { return Vec::new() };
        self.next_id += 1;
        self.thinking = Some(self.next_id);
        vec![Effect::Think { id: self.next_id, position: Box::new(self.game.position().clone()), level }]
    }

    /// Whether undo should go on taking back turns: against the AI, back to a person's turn.
    fn ai_to_move(&self) -> bool {
        matches!(self.players[self.game.position().side_to_move().index()], Player::Ai(_))
    }

    fn undo(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        if self.thinking.take().is_some() {
            effects.push(Effect::CancelThink);
        }
        // Bonus picks not yet applied are taken back one by one, then a turn half made.
        if self.turn.undo_pick().is_some() {
            self.place_cursor();
            self.message = "pick taken back".into();
            return effects;
        }
        if self.turn.partial_token().is_some() {
            self.turn = self.game.position().build_turn();
            self.place_cursor();
            self.message = "turn taken back".into();
            return effects;
        }
        let mut undone = 0;
        while let Some(t) = self.game.undo() {
            self.redo.push(t);
            undone += 1;
            if !self.ai_to_move() {
                break;
            }
        }
        if undone == 0 {
            self.message = "nothing to undo".into();
        } else {
            self.message = format!("took back {undone} turn{}", if undone > 1 { "s" } else { "" });
        }
        self.new_turn();
        effects.extend(self.maybe_think());
        effects
    }

    fn redo(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        if self.thinking.take().is_some() {
            effects.push(Effect::CancelThink);
        }
        let mut redone = 0;
        while let Some(t) = self.redo.pop() {
            if self.game.play(&t).is_err() {
                self.redo.clear();
                break;
            }
            redone += 1;
            if !self.ai_to_move() || self.game.is_over() {
                break;
            }
        }
        self.message = if redone == 0 { "nothing to redo".into() } else { format!("replayed {redone}") };
        self.new_turn();
        effects.extend(self.maybe_think());
        effects
    }

    /// The move list in RULES.md notation: `1. B2= b2= 2. ...`, the turn in progress last
    /// (marked `..`), the result once the game is over.
    pub fn move_list(&self) -> Vec<String> {
        let mut words = Vec::new();
        let mut side = self.game.start().side_to_move();
        let mut number = 1;
        let partial = self.turn.partial_token().filter(|_| !self.turn.is_complete());
        let moves = self.game.moves().iter().map(|t| t.to_string()).chain(partial.map(|t| format!("{t}..")));
        for (i, token) in moves.enumerate() {
            let word = match side {
                Side::South => format!("{number}. {token}"),
                Side::North if i == 0 => format!("{number}... {token}"),
                Side::North => token,
            };
            words.push(word);
            if side == Side::North {
                number += 1;
            }
            side = side.opponent();
        }
        if let Some(o) = self.game.outcome() {
            words.push(o.result().to_string());
        }
        words
    }

    /// The stones each side has on the board shown.
    pub fn stones(&self) -> [u32; 2] {
        match self.anim.front() {
            Some(f) => [0, 1].map(|i| f.counts[i].iter().map(|&c| c as u32).sum()),
            None => Side::BOTH.map(|s| self.turn.position().stones(s)),
        }
    }

    /// The count shown in a hole (from the animation while it runs).
    pub fn shown_count(&self, h: Hole) -> u16 {
        match self.anim.front() {
            Some(f) => f.counts[h.side.index()][h.track(self.n())],
            None => self.turn.position().count(h),
        }
    }

    /// The ruleset kind (for prompts).
    pub fn kind(&self) -> GameKind {
        self.game.start().ruleset().kind()
    }
}
