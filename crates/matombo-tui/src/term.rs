//! The terminal loop: raw mode and the alternate screen, keys, animation timing, the AI
//! thread and saving the record.

use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crossterm::event::{self, Event as TermEvent};
use matombo_core::{Position, Token};

use crate::app::{App, Effect, Player};

/// How to run a game.
#[derive(Clone, Debug)]
pub struct Options {
    /// Start position.
    pub start: Position,
    /// Who plays South and North.
    pub players: [Player; 2],
    /// Seed of the AI's random choices.
    pub seed: u64,
    /// Milliseconds per animation frame; 0 turns the animation off.
    pub lap_ms: u64,
    /// Where to save the record: on request, and always on exit.
    pub record: Option<PathBuf>,
}

/// Errors of the terminal board.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Standard input or output is not a terminal.
    #[error("matombo play needs a terminal (stdin and stdout must be a TTY)")]
    NotATerminal,
    /// A terminal or file operation failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Restores the terminal when dropped, so that an early return or an error leaves it usable.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// Plays a game on the full-screen board until the user quits. Returns the record path
/// written on exit, if any.
pub fn run(opts: Options) -> Result<Option<PathBuf>, Error> {
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        return Err(Error::NotATerminal);
    }
    // try_init installs a panic hook that restores the terminal before the message prints.
    let mut terminal = ratatui::try_init()?;
    let _restore = Restore;
    let mut app = App::new(opts.start.clone(), opts.players, opts.lap_ms);
    let (tx, rx) = mpsc::channel::<(u64, Option<Token>)>();
    let mut stop = Arc::new(AtomicBool::new(false));
    let save_path = opts.record.clone().unwrap_or_else(|| PathBuf::from(format!("matombo-{}.txt", stamp())));
    let mut effects = app.start();
    let mut last_frame = Instant::now();
    loop {
        for e in effects.drain(..) {
            match e {
                Effect::Think { id, position, level } => {
                    stop.store(true, Ordering::Relaxed);
                    stop = Arc::new(AtomicBool::new(false));
                    let (tx, stop) = (tx.clone(), stop.clone());
                    let seed = opts.seed ^ (position.hash().rotate_left(17));
                    std::thread::spawn(move || {
                        // play_level: the low levels mix in random turns, as a gentle opponent should.
                        let best =
                            matombo_ai::Engine::new(seed).play_level(&position, level, &stop, &[]).map(|r| r.best);
                        let _ = tx.send((id, best));
                    });
                }
                Effect::CancelThink => stop.store(true, Ordering::Relaxed),
                Effect::Save => {
                    let msg = match save(&app, &save_path) {
                        Ok(()) => format!("saved the record to {}", save_path.display()),
                        Err(e) => format!("could not save {}: {e}", save_path.display()),
                    };
                    app.set_message(msg);
                }
                Effect::Quit => {}
            }
        }
        if app.should_quit() {
            break;
        }
        terminal.draw(|f| crate::ui::render(&app, f))?;
        let wait = if app.animating() {
            Duration::from_millis(app.frame_ms()).saturating_sub(last_frame.elapsed())
        } else {
            Duration::from_millis(50)
        };
        if event::poll(wait)? {
            if let TermEvent::Key(k) = event::read()? {
                effects = app.key(k);
                last_frame = Instant::now();
            }
            // Resizes and other events just redraw.
        } else if app.animating() && last_frame.elapsed() >= Duration::from_millis(app.frame_ms()) {
            app.advance();
            last_frame = Instant::now();
        }
        if let Ok((id, token)) = rx.try_recv() {
            let was_animating = app.animating();
            effects.extend(app.ai_done(id, token));
            if !was_animating {
                last_frame = Instant::now();
            }
        }
    }
    drop(terminal);
    stop.store(true, Ordering::Relaxed);
    if let Some(path) = &opts.record {
        save(&app, path)?;
        return Ok(Some(path.clone()));
    }
    Ok(None)
}

fn save(app: &App, path: &PathBuf) -> io::Result<()> {
    std::fs::write(path, app.record(&date()).to_string())
}

fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// Today's date (UTC) as a record writes it: `2026.11.29`.
fn date() -> String {
    matombo_core::date_tag(now_secs())
}

/// A file-name stamp (UTC): `20261129-193354`.
fn stamp() -> String {
    let s = now_secs();
    let (y, m, d) = matombo_core::civil_date(s.div_euclid(86_400));
    let t = s.rem_euclid(86_400);
    format!("{y:04}{m:02}{d:02}-{:02}{:02}{:02}", t / 3600, t / 60 % 60, t % 60)
}
