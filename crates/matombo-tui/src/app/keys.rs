//! Key handling: the cursor over the board, typed hole names, the head prompt, and the
//! keys that save, quit, undo and redo.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use matombo_core::{Decision, Hole, Phase, Row, Side};

use super::{App, Effect};

impl App {
    /// Handles a key press.
    pub fn key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('q')) {
            return self.quit();
        }
        if self.help {
            if matches!(key.code, KeyCode::Char('q')) {
                return self.quit();
            }
            // Any key closes the overlay.
            self.help = false;
            return Vec::new();
        }
        if !self.anim.is_empty() {
            if key.code == KeyCode::Char('q') {
                return self.quit();
            }
            // Any other key skips the animation.
            self.anim.clear();
            return Vec::new();
        }
        if ctrl && key.code == KeyCode::Char('s') {
            return vec![Effect::Save];
        }
        match key.code {
            KeyCode::Char('q') => return self.quit(),
            KeyCode::Char('?') | KeyCode::F(1) => {
                self.help = true;
                return Vec::new();
            }
            KeyCode::Char('w') => return vec![Effect::Save],
            KeyCode::Char('u') => return self.undo(),
            KeyCode::Char('r') => return self.redo(),
            _ => {}
        }
        if !self.human_to_act() {
            if self.thinking.is_some() {
                self.message = format!("{} is thinking", self.turn.mover());
            }
            return Vec::new();
        }
        self.message.clear();
        match self.turn.phase() {
            Phase::Start => self.key_choose(key, true),
            Phase::Bonus { .. } => self.key_choose(key, false),
            Phase::Head(_) => self.key_head(key),
            Phase::Complete => Vec::new(),
        }
    }

    fn quit(&mut self) -> Vec<Effect> {
        self.quit = true;
        let mut v = Vec::new();
        if self.thinking.take().is_some() {
            v.push(Effect::CancelThink);
        }
        v.push(Effect::Quit);
        v
    }

    /// The side whose holes the cursor moves over: the mover's to start, the opponent's in the bonus.
    fn cursor_side(&self, start: bool) -> Side {
        if start {
            self.turn.mover()
        } else {
            self.turn.mover().opponent()
        }
    }

    fn key_choose(&mut self, key: KeyEvent, start: bool) -> Vec<Effect> {
        let n = self.n();
        let side = self.cursor_side(start);
        let cur = self.cursor.filter(|h| h.side == side).unwrap_or(Hole::new(side, Row::Outer, 1));
        let (row, col) = screen_cell(cur, n);
        match key.code {
            KeyCode::Left => self.move_to(side, row, col.saturating_sub(1)),
            KeyCode::Right => self.move_to(side, row, (col + 1).min(n - 1)),
            KeyCode::Up | KeyCode::Down => {
                let other = Hole::new(side, if cur.row == Row::Outer { Row::Inner } else { Row::Outer }, 1);
                self.move_to(side, screen_cell(other, n).0, col)
            }
            KeyCode::Tab | KeyCode::BackTab => {
                let targets = if start { self.legal_starts() } else { self.pickable() };
                // Cycle in screen order (left to right, top to bottom).
                let mut cells: Vec<(usize, usize, Hole)> = targets
                    .into_iter()
                    .map(|h| {
                        let (r, c) = screen_cell(h, n);
                        (r, c, h)
                    })
                    .collect();
                cells.sort();
                let here = (row, col);
                let next = if key.code == KeyCode::Tab {
                    cells.iter().find(|(r, c, _)| (*r, *c) > here).or(cells.first())
                } else {
                    cells.iter().rev().find(|(r, c, _)| (*r, *c) < here).or(cells.last())
                };
                if let Some(&(_, _, h)) = next {
                    self.cursor = Some(h);
                }
                self.typed.clear();
            }
            KeyCode::Char(c) if c.is_ascii_alphabetic() && (start || c != 'd') => {
                let row = match c.to_ascii_lowercase() {
                    'a' => Row::Inner,
                    'b' => Row::Outer,
                    _ => {
                        self.message = format!("unknown key {c:?} (press ? for help)");
                        return Vec::new();
                    }
                };
                let h = Hole::new(side, row, 1);
                self.typed = h.letter().to_string();
                // Keep the column under the cursor until a number is typed.
                let r = screen_cell(h, n).0;
                self.move_to(side, r, col);
                self.typed = h.letter().to_string();
            }
            KeyCode::Char(c) if c.is_ascii_digit() => {
                let Some(letter) = self.typed.chars().next() else {
                    self.message = "type the row letter first, e.g. B7".into();
                    return Vec::new();
                };
                let digits = format!("{}{c}", &self.typed[1..]);
                match digits.parse::<usize>() {
                    Ok(k) if (1..=n).contains(&k) => {
                        let row = if letter.eq_ignore_ascii_case(&'a') { Row::Inner } else { Row::Outer };
                        self.cursor = Some(Hole::new(side, row, k as u8));
                        self.typed = format!("{letter}{digits}");
                    }
                    _ => self.message = format!("no hole {letter}{digits} on a board of {n}"),
                }
            }
            KeyCode::Backspace => {
                self.typed.pop();
            }
            KeyCode::Esc => self.typed.clear(),
            KeyCode::Enter | KeyCode::Char(' ') => {
                self.typed.clear();
                let Some(h) = self.cursor.filter(|h| h.side == side) else { return Vec::new() };
                if !start {
                    return self.pick(h);
                }
                return self.decide(Decision::Sow(h));
            }
            KeyCode::Char('d') if !start => return self.decide(Decision::Done),
            _ => {}
        }
        Vec::new()
    }

    fn key_head(&mut self, key: KeyEvent) -> Vec<Effect> {
        let can_continue = self.turn.is_legal(Decision::Continue);
        match key.code {
            KeyCode::Left | KeyCode::Right | KeyCode::Up | KeyCode::Down | KeyCode::Tab => {
                self.head_continue = can_continue && !self.head_continue;
                Vec::new()
            }
            KeyCode::Char('c') | KeyCode::Char('+') => self.decide(Decision::Continue),
            KeyCode::Char('s') | KeyCode::Char('=') => self.decide(Decision::Stop),
            KeyCode::Enter | KeyCode::Char(' ') => {
                self.decide(if self.head_continue { Decision::Continue } else { Decision::Stop })
            }
            _ => Vec::new(),
        }
    }

    /// Moves the cursor to a screen cell of `side`.
    fn move_to(&mut self, side: Side, row: usize, col: usize) {
        self.typed.clear();
        self.cursor = Some(cell_hole(side, row, col, self.n()));
    }
}

/// The screen row (0 = `b` at the top .. 3 = `B`) and column (0 = left) of a hole, with
/// South at the bottom as RULES.md §6.2 draws the board.
pub fn screen_cell(h: Hole, n: usize) -> (usize, usize) {
    let k = h.number as usize;
    match (h.side, h.row) {
        (Side::North, Row::Outer) => (0, n - k),
        (Side::North, Row::Inner) => (1, n - k),
        (Side::South, Row::Inner) => (2, k - 1),
        (Side::South, Row::Outer) => (3, k - 1),
    }
}

/// The hole of `side` in screen row `row` (only `side`'s rows make sense) and column `col`.
fn cell_hole(side: Side, row: usize, col: usize, n: usize) -> Hole {
    let r = if matches!(row, 0 | 3) { Row::Outer } else { Row::Inner };
    match side {
        Side::North => Hole::new(side, r, (n - col) as u8),
        Side::South => Hole::new(side, r, (col + 1) as u8),
    }
}
