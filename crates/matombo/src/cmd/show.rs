//! `matombo show`: draw a position in the terminal.

use std::fmt::Write as _;

use matombo_core::{Hole, Position, Row, Side};

/// Arguments of `matombo show`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  matombo show tsoro:8\n  matombo show 'nsolo:8 2*8/0,2*7/2*7,0/2*8 S'")]
pub struct Args {
    /// Position string, or a ruleset name for its start position.
    pub position: String,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let pos = super::parse_position(&args.position)?;
    print!("{}", render(&pos));
    Ok(())
}

/// The board as text: North's rows on top, as South sees the board (RULES.md §6.2), heads
/// in brackets, hole numbers above and below, row letters on the left.
pub fn render(pos: &Position) -> String {
    let r = pos.ruleset();
    let n = r.size();
    let width = pos
        .track(Side::South)
        .iter()
        .chain(pos.track(Side::North))
        .map(|c| c.to_string().len())
        .max()
        .unwrap_or(1)
        .max(2);
    // Every hole takes `width + 3` characters: two before the count (a space and `[` at
    // a head), the count, one after (`]` at a head). Numbers end where counts end.
    let cell = width + 3;
    let mut s = String::new();
    let _ = writeln!(s, "{}  ({} holes per row)", r, n);
    let numbers = |s: &mut String, reversed: bool| {
        s.push_str("     ");
        for i in 0..n {
            let k = if reversed { n - i } else { i + 1 };
            let _ = write!(s, "{:>w$} ", k, w = width + 2);
        }
        s.push('\n');
    };
    numbers(&mut s, true);
    let row = |s: &mut String, side: Side, row: Row| {
        let letter = Hole::new(side, row, 1).letter();
        let _ = write!(s, "  {letter}  ");
        for i in 0..n {
            let k = if side == Side::North { n - i } else { i + 1 };
            let h = Hole::new(side, row, k as u8);
            let c = pos.count(h);
            let head = row == Row::Outer && r.is_head_track(h.track(n));
            if head {
                let _ = write!(s, " [{:>width$}]", c, width = width);
            } else {
                let _ = write!(s, "  {:>width$} ", c, width = width);
            }
        }
        match (side, row) {
            (Side::North, Row::Outer) => {
                let _ = write!(s, "   North: {} stones", pos.stones(Side::North));
            }
            (Side::South, Row::Outer) => {
                let _ = write!(s, "   South: {} stones", pos.stones(Side::South));
            }
            _ => {}
        }
        s.push('\n');
    };
    row(&mut s, Side::North, Row::Outer);
    row(&mut s, Side::North, Row::Inner);
    let _ = writeln!(s, "     {}", "-".repeat(cell * n));
    row(&mut s, Side::South, Row::Inner);
    row(&mut s, Side::South, Row::Outer);
    numbers(&mut s, false);
    if r.heads() > 0 {
        let _ = writeln!(s, "[n] = head");
    }
    if pos.has_legal_turn() {
        let _ = writeln!(s, "{} to move", pos.side_to_move());
    } else {
        let mover = pos.side_to_move();
        let _ = writeln!(s, "Game over: {} has no legal move; {} wins", mover, mover.opponent());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::render;

    /// Where the digit runs of a line end, before the stone totals after a row.
    fn number_ends(line: &str) -> Vec<usize> {
        let line = line.split("North").next().unwrap().split("South").next().unwrap();
        let b = line.as_bytes();
        (0..b.len()).filter(|&i| b[i].is_ascii_digit() && b.get(i + 1).is_none_or(|c| !c.is_ascii_digit())).collect()
    }

    #[test]
    fn hole_numbers_stand_over_their_counts_on_every_board() {
        for pos in ["tsoro:8", "tsoro:21", "nsolo:8", "nsolo:36"] {
            let text = render(&pos.parse().unwrap());
            let lines: Vec<&str> = text.lines().collect();
            // Title, numbers, b, a, separator, A, B, numbers.
            let n = pos.split([':', ' ']).nth(1).unwrap().parse::<usize>().unwrap();
            for (numbers, row) in [(1, 2), (1, 3), (7, 5), (7, 6)] {
                let (a, b) = (number_ends(lines[numbers]), number_ends(lines[row]));
                assert_eq!(a.len(), n, "{pos}:\n{text}");
                assert_eq!(a, b, "{pos}: line {numbers} against line {row}:\n{text}");
            }
        }
    }
}
