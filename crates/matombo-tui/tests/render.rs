//! Rendering snapshots with ratatui's TestBackend. The expected screens in
//! `tests/snapshots/*.txt` were checked by eye against RULES.md (start counts, row order
//! b/a/A/B with North's rows read N..1, heads, prompts). Regenerate a missing or changed
//! one with `UPDATE_SNAPSHOTS=1 cargo test -p matombo-tui --test render` and check it again.

use crossterm::event::{KeyCode, KeyEvent};
use matombo_core::{Hole, Position};
use matombo_tui::{ui, App, Player};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;

fn draw(app: &App, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| ui::render(app, f)).unwrap();
    t.backend().buffer().clone()
}

fn text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        let line: String = (0..area.width).map(|x| buf[(x, y)].symbol()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn check(name: &str, app: &App, w: u16, h: u16) {
    let got = text(&draw(app, w, h));
    let path = format!("{}/tests/snapshots/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(got, want, "screen {name} differs from {path}:\n{got}");
}

fn app(ruleset: &str, players: [Player; 2]) -> App {
    App::new(Position::start(ruleset.parse().unwrap()), players, 0)
}

fn vs_ai() -> [Player; 2] {
    [Player::Human, Player::Ai("easy".parse().unwrap())]
}

/// Two people at the start of `ruleset`, after the keys `keys`.
fn two_players_after(ruleset: &str, keys: &str) -> App {
    let mut a = app(ruleset, [Player::Human, Player::Human]);
    press(&mut a, keys);
    a
}

fn press(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let code = if c == '\n' { KeyCode::Enter } else { KeyCode::Char(c) };
        app.key(KeyEvent::from(code));
    }
}

#[test]
fn tsoro_4x8_start() {
    check("tsoro8_start", &app("tsoro:8", vs_ai()), 80, 24);
}

#[test]
fn tsoro_4x21_start_fits_80x24() {
    check("tsoro21_start", &app("tsoro", vs_ai()), 80, 24);
}

#[test]
fn nsolo_4x36_start_wide() {
    check("nsolo36_start_wide", &app("nsolo:36", vs_ai()), 120, 24);
}

#[test]
fn nsolo_4x36_scrolls_in_80_columns() {
    // Move the cursor to B30: the window follows it.
    check("nsolo36_scrolled", &two_players_after("nsolo:36", "B30"), 80, 24);
}

#[test]
fn head_prompt() {
    check("tsoro8_head_prompt", &two_players_after("tsoro:8", "B2\n"), 80, 24);
}

#[test]
fn bonus_prompt() {
    check("tsoro8_bonus_prompt", &two_players_after("tsoro:8", "B1\nb3\ncB5\ncb6\n"), 80, 24);
}

#[test]
fn nsolo_bonus_prompt() {
    // South sows A7 (2 stones) and ends in the empty A5, facing a4 (3 stones): 3 captured,
    // 3 more to remove.
    let p: Position = "nsolo:8 2*8/0,2*3,3,2*3/0*6,2,0/2*8 S".parse().unwrap();
    let mut a = App::new(p, [Player::Human, Player::Human], 0);
    press(&mut a, "A7\n");
    check("nsolo8_bonus_prompt", &a, 80, 24);
}

#[test]
fn help_overlay() {
    let mut a = app("tsoro:8", vs_ai());
    press(&mut a, "?");
    check("help", &a, 80, 24);
}

/// Finds the screen cell of a count: row letter at column 1, cells of width 3 from column 4.
fn cell(buf: &Buffer, row_y: u16, col: u16) -> &ratatui::buffer::Cell {
    &buf[(4 + 3 * col + 2, row_y)]
}

#[test]
fn legal_starts_are_highlighted() {
    // tsoro:8 with only B3 and A6 able to start (two stones or more).
    let p: Position = "tsoro:8 2*8/0*8/0*5,2,0*2/0*2,2,0*5 S".parse().unwrap();
    let a = App::new(p, vs_ai(), 0);
    let buf = draw(&a, 80, 24);
    let t = text(&buf);
    let rows: Vec<&str> = t.lines().collect();
    let y_a = rows.iter().position(|l| l.starts_with(" A ")).unwrap() as u16;
    let y_b = rows.iter().position(|l| l.starts_with(" B ")).unwrap() as u16;
    let green = |c: &ratatui::buffer::Cell| c.fg == Color::Green && c.modifier.contains(Modifier::BOLD);
    assert!(green(cell(&buf, y_b, 2)), "B3 is a legal start");
    assert!(green(cell(&buf, y_a, 5)), "A6 is a legal start");
    for col in [0, 1, 3, 7] {
        assert!(!green(cell(&buf, y_b, col)), "B{} is not a legal start", col + 1);
    }
    assert!(!green(cell(&buf, y_b - 3, 2)), "North's holes are not starts");
    // The cursor starts on the first legal start in canonical order: B3.
    assert_eq!(a.cursor(), Some("B3".parse::<Hole>().unwrap()));
    assert_eq!(&rows[y_b as usize][10..13], "> 2");
}

#[test]
fn game_over_shows_the_result_and_reason() {
    // After B1 North has only single stones, each followed by an occupied hole.
    let p: Position = "tsoro:8 1*8/1*8/0*8/2,0*7 S".parse().unwrap();
    let mut a = App::new(p, vs_ai(), 0);
    press(&mut a, "B1\n");
    check("tsoro8_game_over", &a, 80, 24);
    assert_eq!(a.move_list(), ["1. B1", "1-0"]);
}

#[test]
fn the_computers_sowing_is_named_and_its_last_turn_marked() {
    let mut a = App::new(Position::start("tsoro:8".parse().unwrap()), vs_ai(), 10);
    let effects = a.key(KeyEvent::from(KeyCode::Char('B')));
    assert!(effects.is_empty());
    a.key(KeyEvent::from(KeyCode::Char('2')));
    a.key(KeyEvent::from(KeyCode::Enter));
    assert!(text(&draw(&a, 80, 24)).contains("You sow: lap 1"), "{}", text(&draw(&a, 80, 24)));
    while a.advance() {}
    let effects = a.key(KeyEvent::from(KeyCode::Char('s')));
    while a.advance() {}
    let id = effects
        .iter()
        .find_map(|e| match e {
            matombo_tui::Effect::Think { id, .. } => Some(*id),
            _ => None,
        })
        .expect("the computer is asked to move");
    a.ai_done(id, Some("b2=".parse().unwrap()));
    let screen = text(&draw(&a, 80, 24));
    assert!(screen.contains("The computer (matombo AI easy) sows: lap 1"), "{screen}");
    while a.advance() {}
    // After the animation its start hole b2 is marked with + (North's b2 is the 7th column).
    let buf = draw(&a, 80, 24);
    let screen = text(&buf);
    let b_row = screen.lines().find(|l| l.starts_with(" b ")).expect("row b");
    // Cells are three characters wide after the four of the row letter; an empty hole is a dot.
    assert_eq!(&b_row[4 + 6 * 3..4 + 7 * 3], "+ .", "{screen}");
    assert!(!b_row.contains(" 0"), "{screen}");
}
