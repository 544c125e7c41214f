//! Drawing: a pure function of the [`App`] state onto a ratatui frame.

use matombo_core::{GameKind, Hole, Phase, Row, Side};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

use crate::app::{screen_cell, App, Player};

/// Width of the row-letter column left of the board: `" b <"`.
const LABEL: usize = 4;

/// Draws the whole screen.
pub fn render(app: &App, f: &mut Frame) {
    let area = f.area();
    let width = area.width as usize;
    let mut lines: Vec<Line> = Vec::new();
    let pos = app.turn().position();
    let ruleset = pos.ruleset();
    let title = format!(" matombo  {ruleset}  {} vs {}", side_title(app, Side::South), side_title(app, Side::North));
    lines.push(Line::from(vec![
        Span::styled(fit(&title, width.saturating_sub(16)), Style::new().add_modifier(Modifier::BOLD)),
        Span::raw(pad_left("? help  q quit", width.saturating_sub(title.len().min(width.saturating_sub(16))))),
    ]));
    lines.push(Line::raw(""));
    lines.extend(board_lines(app, width));
    lines.push(Line::raw(""));
    lines.extend(status_lines(app, width));
    let used = lines.len();
    let para = Paragraph::new(lines);
    f.render_widget(para, area);
    // The move list fills what is left below.
    if (area.height as usize) > used + 1 {
        let rest = Rect::new(area.x, area.y + used as u16, area.width, area.height - used as u16);
        f.render_widget(move_list(app, rest), rest);
    }
    if app.help() {
        help_overlay(f, area);
    }
}

fn side_title(app: &App, side: Side) -> String {
    match app.players()[side.index()] {
        Player::Human if app.players()[side.opponent().index()] == Player::Human => side.to_string(),
        Player::Human => format!("{side} ({})", app.player_name(side)),
        Player::Ai(level) => format!("{side} (AI {level})"),
    }
}

fn fit(s: &str, w: usize) -> String {
    s.chars().take(w).collect()
}

fn pad_left(s: &str, w: usize) -> String {
    if s.len() >= w {
        s.chars().take(w).collect()
    } else {
        format!("{}{s}", " ".repeat(w - s.len()))
    }
}

/// The columns shown: all of them, or a window around the focus with room for scroll marks.
fn window(n: usize, cell: usize, width: usize, focus: Option<usize>) -> (usize, usize) {
    let room = width.saturating_sub(LABEL + 1);
    if n * cell <= room {
        return (0, n);
    }
    let visible = (room / cell).max(1);
    let focus = focus.unwrap_or(0);
    let offset = focus.saturating_sub(visible / 2).min(n - visible);
    (offset, visible)
}

fn board_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let pos = app.turn().position();
    let ruleset = pos.ruleset();
    let n = ruleset.size();
    let holes = |side: Side| -> Vec<Hole> {
        (1..=n as u8).flat_map(move |k| [Hole::new(side, Row::Outer, k), Hole::new(side, Row::Inner, k)]).collect()
    };
    let all: Vec<Hole> = holes(Side::South).into_iter().chain(holes(Side::North)).collect();
    let max = all.iter().map(|&h| app.shown_count(h)).max().unwrap_or(0);
    let digits = max.to_string().len().max(2);
    let cell = digits + 1;
    let frame = app.frame();
    let focus_hole = frame.and_then(|f| f.last.or(f.from)).or(app.cursor());
    let (offset, visible) = window(n, cell, width, focus_hole.map(|h| screen_cell(h, n).1));
    let cols = offset..offset + visible;
    let more_left = offset > 0;
    let more_right = offset + visible < n;

    let legal = app.legal_starts();
    let pickable = app.pickable();
    let picks = app.picks();
    // The last turn's start stays marked until the next turn is under way.
    let last_start = if frame.is_none() && app.turn().partial_token().is_none() { app.last_start() } else { None };
    let head_hole = match pos_phase(app) {
        Some(Phase::Head(h)) => Some(h),
        _ => None,
    };
    let heads = if ruleset.kind() == GameKind::Tsoro { ruleset.heads() as usize } else { 0 };
    let is_head = |h: Hole| h.row == Row::Outer && heads > 0 && h.number as usize > n - heads;

    let mut out = Vec::new();
    let stones = app.stones();
    let to_move = if app.game().is_over() { None } else { Some(app.turn().mover()) };
    let info = |side: Side| -> Line<'static> {
        let mut spans = vec![Span::styled(
            format!(" {:<28} {:>4} stones", side_title(app, side), stones[side.index()]),
            Style::new().add_modifier(Modifier::BOLD),
        )];
        if to_move == Some(side) {
            let what = if app.thinking() { "  <- to move, thinking..." } else { "  <- to move" };
            spans.push(Span::styled(what, Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)));
        }
        Line::from(spans)
    };
    let marks = |side: Side, ch: &str| -> Line<'static> {
        let mut s = " ".repeat(LABEL);
        let mut any = false;
        for col in cols.clone() {
            let number = match side {
                Side::North => n - col,
                Side::South => col + 1,
            };
            let h = Hole::new(side, Row::Outer, number as u8);
            if is_head(h) {
                any = true;
                s.push_str(&" ".repeat(cell - 1));
                s.push_str(ch);
            } else {
                s.push_str(&" ".repeat(cell));
            }
        }
        if any {
            let s = s.trim_end().to_string();
            let label = match side {
                Side::North => format!("{s} heads"),
                Side::South => format!("{s} heads"),
            };
            Line::styled(label, Style::new().fg(Color::Magenta))
        } else {
            Line::raw("")
        }
    };
    let numbers = |side: Side| -> Line<'static> {
        let mut s = " ".repeat(LABEL);
        for col in cols.clone() {
            let number = match side {
                Side::North => n - col,
                Side::South => col + 1,
            };
            s.push_str(&format!("{number:>cell$}"));
        }
        Line::styled(s, Style::new().fg(Color::DarkGray))
    };
    let row_line = |row: usize| -> Line<'static> {
        let (side, r, letter) = match row {
            0 => (Side::North, Row::Outer, 'b'),
            1 => (Side::North, Row::Inner, 'a'),
            2 => (Side::South, Row::Inner, 'A'),
            _ => (Side::South, Row::Outer, 'B'),
        };
        let mut spans = vec![Span::styled(
            format!(" {letter} {}", if more_left { '<' } else { ' ' }),
            Style::new().add_modifier(Modifier::BOLD),
        )];
        for col in cols.clone() {
            let number = match side {
                Side::North => n - col,
                Side::South => col + 1,
            };
            let h = Hole::new(side, r, number as u8);
            let count = app.shown_count(h);
            let mut style = Style::new();
            let mut mark = ' ';
            if is_head(h) {
                style = style.fg(Color::Magenta);
            }
            if count == 0 {
                style = style.fg(Color::DarkGray);
            }
            if legal.contains(&h) {
                style = style.fg(Color::Green).add_modifier(Modifier::BOLD);
            }
            if pickable.contains(&h) {
                style = style.fg(Color::Red).add_modifier(Modifier::BOLD);
            }
            if last_start == Some(h) {
                mark = '+';
                style = style.fg(Color::Blue).add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
            }
            if picks.contains(&h) {
                mark = 'x';
                style = style.fg(Color::Red).add_modifier(Modifier::CROSSED_OUT);
            }
            if let Some(fr) = frame {
                if fr.from == Some(h) {
                    style = style.add_modifier(Modifier::UNDERLINED);
                }
                if fr.last == Some(h) {
                    mark = '*';
                    style = style.fg(Color::Cyan).add_modifier(Modifier::BOLD | Modifier::REVERSED);
                }
            }
            if head_hole == Some(h) {
                mark = '*';
                style = style.fg(Color::Cyan).add_modifier(Modifier::BOLD | Modifier::REVERSED);
            }
            if app.cursor() == Some(h) {
                mark = '>';
                style = style.add_modifier(Modifier::REVERSED);
            }
            // An empty hole is a dot: it reads faster than a 0 among the counts.
            let shown = if count == 0 { ".".to_string() } else { count.to_string() };
            spans.push(Span::styled(format!("{mark}{shown:>digits$}"), style));
        }
        if more_right {
            spans.push(Span::styled(">", Style::new().add_modifier(Modifier::BOLD)));
        }
        Line::from(spans)
    };
    out.push(info(Side::North));
    out.push(marks(Side::North, "v"));
    out.push(numbers(Side::North));
    for row in 0..4 {
        out.push(row_line(row));
    }
    out.push(numbers(Side::South));
    out.push(marks(Side::South, "^"));
    out.push(info(Side::South));
    out
}

/// The phase to prompt for: none while animating or while the AI moves.
fn pos_phase(app: &App) -> Option<Phase> {
    app.human_to_act().then(|| app.turn().phase())
}

fn status_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mover = app.turn().mover();
    let mut lines = Vec::new();
    let (first, second): (Line, String) = if let Some(o) = app.game().outcome() {
        (
            Line::styled(format!("Game over: {o}."), bold.fg(Color::Yellow)),
            "u undo, w save the record, q quit".to_string(),
        )
    } else if let Some(f) = app.frame() {
        (Line::styled(format!("{}: {}", sower(app, f.mover), f.caption), bold), "any key skips the animation".into())
    } else if app.thinking() {
        (Line::styled(format!("{mover} ({}) is thinking...", app.player_name(mover)), bold), String::new())
    } else {
        match app.turn().phase() {
            Phase::Start => {
                let typed = if app.typed().is_empty() { String::new() } else { format!("  [{}]", app.typed()) };
                (
                    Line::styled(format!("{mover} to move: choose a start hole{typed}"), bold),
                    "arrows/Tab move, type a label (B7), Enter sows; u undo, r redo".into(),
                )
            }
            Phase::Head(h) => {
                let can = app.turn().is_legal(matombo_core::Decision::Continue);
                let count = app.turn().position().count(h);
                let opt = |label: &str, on: bool| {
                    if on {
                        Span::styled(format!("[{label}]"), bold.add_modifier(Modifier::REVERSED))
                    } else {
                        Span::raw(format!(" {label} "))
                    }
                };
                let mut spans = vec![Span::styled(format!("Lap ended on your head {h} ({count} stones): "), bold)];
                if can {
                    spans.push(opt("c continue", app.head_continue()));
                    spans.push(Span::raw(" "));
                }
                spans.push(opt("s stop", !app.head_continue() || !can));
                let hint = if can {
                    "c continues the sowing, s stops the turn here (arrows + Enter too)"
                } else {
                    "continuing would repeat this head state: only stop is legal"
                };
                (Line::from(spans), hint.into())
            }
            Phase::Bonus { .. } => {
                let left = app.picks_left() as u32;
                let captured = app.turn().turn().captured();
                let typed = if app.typed().is_empty() { String::new() } else { format!("  [{}]", app.typed()) };
                if app.kind() == GameKind::Tsoro {
                    (
                        Line::styled(
                            format!(
                                "Captured {captured} stone{}! Bonus: take up to {left} more hole{}{typed}",
                                plural(captured),
                                plural(left)
                            ),
                            bold.fg(Color::Red),
                        ),
                        "arrows/Tab or a label, Enter takes a red hole (any order), d done, u undo".into(),
                    )
                } else {
                    (
                        Line::styled(
                            format!(
                                "Captured {captured} stone{}! Bonus: remove {left} more stone{}{typed}",
                                plural(captured),
                                plural(left)
                            ),
                            bold.fg(Color::Red),
                        ),
                        "arrows/Tab or a label, Enter removes a stone (any order), u undo".into(),
                    )
                }
            }
            Phase::Complete => (Line::raw(""), String::new()),
        }
    };
    lines.push(prefix(first));
    lines.push(Line::raw(format!(" {}", fit(&second, width.saturating_sub(1)))));
    let msg = app.message();
    // The outcome is already on the first line.
    let repeated = app.game().is_over() && msg.starts_with("Game over");
    let show = !msg.is_empty() && !repeated;
    lines.push(if show { Line::styled(format!(" {msg}"), Style::new().fg(Color::Yellow)) } else { Line::raw("") });
    lines
}

/// Who is sowing, for the animation's caption: the computer is named as such.
fn sower(app: &App, side: Side) -> String {
    let ai = |s: Side| matches!(app.players()[s.index()], Player::Ai(_));
    if ai(side) {
        format!("The computer ({}) sows", app.player_name(side))
    } else if ai(side.opponent()) {
        "You sow".to_string()
    } else {
        format!("{side} sows")
    }
}

fn plural(k: u32) -> &'static str {
    if k == 1 {
        ""
    } else {
        "s"
    }
}

fn prefix(line: Line<'static>) -> Line<'static> {
    let mut spans = vec![Span::raw(" ")];
    spans.extend(line.spans);
    Line::from(spans).style(line.style)
}

fn move_list(app: &App, area: Rect) -> Paragraph<'static> {
    let width = area.width.saturating_sub(2) as usize;
    // Wrap the words ourselves so that the newest line is the last one shown.
    let mut rows: Vec<String> = Vec::new();
    let mut line = String::new();
    for w in app.move_list() {
        if !line.is_empty() && line.len() + 1 + w.len() > width {
            rows.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    if !line.is_empty() {
        rows.push(line);
    }
    let room = area.height.saturating_sub(1) as usize;
    let skip = rows.len().saturating_sub(room);
    let mut lines = vec![Line::styled(" Moves", Style::new().add_modifier(Modifier::BOLD))];
    lines.extend(rows.into_iter().skip(skip).map(|r| Line::raw(format!(" {r}"))));
    Paragraph::new(lines)
}

/// The keys, as the help overlay lists them.
pub const HELP: &[(&str, &str)] = &[
    ("arrows", "move the cursor along a row (left/right), between rows"),
    ("Tab", "jump to the next legal hole"),
    ("B7, a12", "type a hole label to put the cursor on it"),
    ("Enter/Space", "sow from the hole, take the hole, or confirm"),
    ("c / s", "at an occupied head: continue or stop"),
    ("d", "end the bonus early (Tsoro)"),
    ("u / r", "undo / redo a turn"),
    ("w", "write the game record"),
    ("any key", "skip the sowing animation"),
    ("?", "this help"),
    ("q, Ctrl-C", "quit (saves the record if --record was given)"),
];

fn help_overlay(f: &mut Frame, area: Rect) {
    let w = area.width.min(76);
    let h = (HELP.len() as u16 + 4).min(area.height);
    let rect = Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h);
    let mut lines: Vec<Line> = HELP
        .iter()
        .map(|(k, v)| {
            Line::from(vec![
                Span::styled(format!(" {k:<12}"), Style::new().add_modifier(Modifier::BOLD)),
                Span::raw(*v),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::raw(" Press any key to close."));
    f.render_widget(Clear, rect);
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).block(Block::default().borders(Borders::ALL).title(" Keys ")),
        rect,
    );
}
