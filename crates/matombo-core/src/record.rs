//! Game records in the style of PGN (RULES.md §6.5).

mod annotation;
mod parse;

use core::fmt::Write as _;

use thiserror::Error;

use std::collections::HashMap;

use crate::game::Game;
use crate::hole::Side;
use crate::position::Position;

pub use annotation::{Annotation, Comment, Eval, Quality};

/// A record that could not be read: where and why.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("record line {line}{}: {message}", column.map(|c| format!(", column {c}")).unwrap_or_default())]
pub struct RecordError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column (in characters), where the fault is at one place of the line.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// A game with its tags (`South`, `North`, `Date`, and any others) and annotations.
///
/// ```
/// use matombo_core::{Game, Position, Record};
/// let mut game = Game::new(Position::start("tsoro:8".parse().unwrap()));
/// game.play(&"B2=".parse().unwrap()).unwrap();
/// let text = Record::new(game).to_string();
/// assert!(text.contains("[Ruleset \"tsoro:8\"]"));
/// assert!(text.contains("1. B2= *"));
/// let back: Record = text.parse().unwrap();
/// assert_eq!(back.game.moves().len(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct Record {
    /// Tags other than `Ruleset`, `Position` and `Result`, which follow from the game
    /// itself, in order of writing. A `Termination` tag here is written only while the
    /// game has no outcome.
    pub tags: Vec<(String, String)>,
    /// The game.
    pub game: Game,
    /// Comments before the first turn, which belong to the game.
    pub comments: Vec<Comment>,
    /// Annotations of the turns, by index into `game.moves()`; turns past its end have
    /// none. A record read has no trailing empty annotations.
    pub annotations: Vec<Annotation>,
}

/// Tags written from the game itself. `Termination` is too once the game is over; for an
/// unfinished game it may be kept as a tag (`turn limit`, `abandoned`).
const DERIVED: [&str; 3] = ["Ruleset", "Position", "Result"];

impl Record {
    /// A record of `game` with the tags `South`, `North` and `Date` unknown.
    pub fn new(game: Game) -> Record {
        Record {
            tags: vec![
                ("South".into(), "?".into()),
                ("North".into(), "?".into()),
                ("Date".into(), "????.??.??".into()),
            ],
            game,
            comments: Vec::new(),
            annotations: Vec::new(),
        }
    }

    /// Sets many tags at once, as [`Record::set_tag`] does one by one, in time linear in
    /// the number of tags (`set_tag` looks through the tags each time).
    pub fn set_tags<'a>(&mut self, tags: impl IntoIterator<Item = (&'a str, &'a str)>) {
        let mut at: HashMap<String, usize> = self.tags.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)).collect();
        for (name, value) in tags {
            if DERIVED.contains(&name) {
                continue;
            }
            match at.get(name) {
                Some(&i) => self.tags[i].1 = value.to_string(),
                None => {
                    at.insert(name.to_string(), self.tags.len());
                    self.tags.push((name.to_string(), value.to_string()));
                }
            }
        }
    }

    /// The annotation of turn `index` (0-based), if it has one.
    pub fn annotation(&self, index: usize) -> Option<&Annotation> {
        self.annotations.get(index).filter(|a| !a.is_empty())
    }

    /// The annotation of turn `index`, created empty if need be.
    ///
    /// # Panics
    /// If the game has no turn `index`.
    pub fn annotation_mut(&mut self, index: usize) -> &mut Annotation {
        assert!(index < self.game.moves().len(), "no turn {index} to annotate");
        if self.annotations.len() <= index {
            self.annotations.resize_with(index + 1, Annotation::default);
        }
        &mut self.annotations[index]
    }

    /// Sets a tag (replacing one of the same name). Tags derived from the game are ignored.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        if DERIVED.contains(&name) {
            return;
        }
        match self.tags.iter_mut().find(|(k, _)| k == name) {
            Some(t) => t.1 = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
    }

    /// A tag's value.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The result token: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn result(&self) -> &'static str {
        self.game.outcome().map_or("*", |o| o.result())
    }
}

/// The civil date (year, month, day; proleptic Gregorian, UTC) of a day counted from
/// 1970-01-01, after Howard Hinnant's `civil_from_days`. Pure: callers bring the clock.
pub fn civil_date(unix_days: i64) -> (i64, u32, u32) {
    let z = unix_days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A record's `Date` tag value, `YYYY.MM.DD` (UTC), for a Unix time in seconds.
pub fn date_tag(unix_secs: i64) -> String {
    let (y, m, d) = civil_date(unix_secs.div_euclid(86_400));
    format!("{y:04}.{m:02}.{d:02}")
}

fn quote(v: &str) -> String {
    let mut s = String::with_capacity(v.len() + 2);
    s.push('"');
    for c in v.chars() {
        match c {
            '"' | '\\' => {
                s.push('\\');
                s.push(c);
            }
            '\n' | '\r' => s.push(' '),
            _ => s.push(c),
        }
    }
    s.push('"');
    s
}

impl core::fmt::Display for Record {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let start = self.game.start();
        let ruleset = start.ruleset();
        writeln!(f, "[Ruleset {}]", quote(&ruleset.to_string()))?;
        let over = self.game.outcome().is_some();
        for (k, v) in &self.tags {
            if !(over && k == "Termination") {
                writeln!(f, "[{k} {}]", quote(v))?;
            }
        }
        writeln!(f, "[Result {}]", quote(self.result()))?;
        if let Some(o) = self.game.outcome() {
            writeln!(f, "[Termination {}]", quote(o.termination.tag()))?;
        }
        if *start != Position::start(ruleset) {
            writeln!(f, "[Position {}]", quote(&start.to_string()))?;
        }
        writeln!(f)?;
        let mut line = String::new();
        let mut out = String::new();
        let mut push = |word: &str, line: &mut String| {
            if !line.is_empty() && line.len() + 1 + word.len() > 79 {
                out.push_str(line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        };
        for c in &self.comments {
            for piece in c.pieces() {
                push(&piece, &mut line);
            }
        }
        let mut side = start.side_to_move();
        let mut number = 1;
        for (i, token) in self.game.moves().iter().enumerate() {
            let annotation = self.annotations.get(i);
            let mut word = String::new();
            if side == Side::South {
                let _ = write!(word, "{number}. ");
            } else if i == 0 {
                let _ = write!(word, "{number}... ");
            }
            let _ = write!(word, "{token}");
            if let Some(q) = annotation.and_then(|a| a.quality) {
                word.push_str(q.as_str());
            }
            push(&word, &mut line);
            for c in annotation.map_or(&[][..], |a| &a.comments) {
                for piece in c.pieces() {
                    push(&piece, &mut line);
                }
            }
            if side == Side::North {
                number += 1;
            }
            side = side.opponent();
        }
        push(self.result(), &mut line);
        out.push_str(&line);
        writeln!(f, "{out}")
    }
}

#[cfg(test)]
mod tests {
    use super::{civil_date, date_tag, Annotation, Comment, Eval, Quality, Record};
    use crate::{Game, Position};
    use proptest::prelude::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(19_782), (2024, 2, 29)); // a leap day
        assert_eq!(civil_date(20_786), (2026, 11, 29));
        assert_eq!(civil_date(-1), (1969, 12, 31));
        assert_eq!(date_tag(0), "1970.01.01");
        assert_eq!(date_tag(1_700_000_000), "2023.11.14");
    }

    /// A tsoro:8 game of `turns` turns, each the first listed.
    fn game(turns: usize) -> Game {
        let mut g = Game::new(Position::start("tsoro:8".parse().unwrap()));
        for _ in 0..turns {
            let Some((t, _)) = g.position().turns().next() else { break };
            g.play(&t).unwrap();
        }
        g
    }

    fn record(movetext: &str) -> Result<Record, super::RecordError> {
        format!("[Ruleset \"tsoro:8\"]\n\n{movetext}\n").parse()
    }

    #[test]
    fn the_rules_example_parses() {
        // RULES.md §6.5, with the elided turns played out.
        let r = record("{a quiet game} 1. B2= {[%eval +0.10]} b2=?! {[%eval +0.85] b5 was better} 2. B7 *").unwrap();
        assert_eq!(r.game.moves().len(), 3);
        assert_eq!(r.comments, vec![Comment::text("a quiet game")]);
        assert_eq!(r.annotations[0], Annotation { quality: None, comments: vec![Comment::eval(Eval::Score(10))] });
        assert_eq!(r.annotations[1].quality, Some(Quality::Dubious));
        assert_eq!(
            r.annotations[1].comments,
            vec![Comment { eval: Some(Eval::Score(85)), text: "b5 was better".into() }]
        );
        assert_eq!(r.annotation(1).unwrap().eval().unwrap().stones(), Some(0.85));
        assert_eq!(r.annotation(2), None);
        let text = r.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains("{a quiet game} 1. B2= {[%eval +0.10]} b2=?! {[%eval +0.85] b5 was better} 2. B7 *"));
        let plain = record("1. B2= b2= 2. B7 *").unwrap();
        assert_eq!(plain.game.position(), r.game.position());
    }

    #[test]
    fn annotations_anywhere_and_across_lines() {
        let r =
            record("1. B2=!! {first\n  line [%eval\n#-7] more}\n{second} b2=? {} 2. {late} B7 1-0 {after}").unwrap();
        let a = &r.annotations;
        assert_eq!(a[0].quality, Some(Quality::Brilliant));
        assert_eq!(a[0].comments[0], Comment { eval: Some(Eval::Proven(-7)), text: "first line more".into() });
        assert_eq!(a[0].comments[1], Comment::text("second"));
        assert_eq!(a[1].comments, vec![Comment::default(), Comment::text("late")]);
        assert_eq!(a[2].comments, vec![Comment::text("after")]);
        let back: Record = r.to_string().parse().unwrap();
        assert_eq!(back.annotations, r.annotations);
    }

    #[test]
    fn evals_read_and_write() {
        for (s, e) in [
            ("+1.25", Eval::Score(125)),
            ("-0.50", Eval::Score(-50)),
            ("+0.00", Eval::Score(0)),
            ("#7", Eval::Proven(7)),
            ("#-7", Eval::Proven(-7)),
        ] {
            assert_eq!(s.parse::<Eval>().unwrap(), e);
            assert_eq!(e.to_string(), s);
        }
        assert_eq!("-0.00".parse::<Eval>().unwrap(), Eval::Score(0));
        for bad in ["1.25", "+1.2", "+1.250", "+.25", "+1", "#0", "#+3", "#", "#-", "+a.bc", "+99999999999.00", ""] {
            assert!(bad.parse::<Eval>().is_err(), "{bad}");
        }
    }

    #[test]
    fn malformed_annotations_are_refused_with_line_and_column() {
        let cases = [
            ("1. B2= {open *", 3, 8, "comment not closed"),
            ("1. B2= {a {b} c} *", 3, 11, "brace { inside the comment opened at line 3, column 8"),
            ("1. B2= } *", 3, 8, "closing brace } without an opening {"),
            ("1. B2= {[%eval 1.25]} *", 3, 9, "bad eval \"1.25\""),
            ("1. B2= {x\n  [%eval +1.2]} *", 4, 3, "bad eval \"+1.2\""),
            ("1. B2= {[%eval +1.00] [%eval +2.00]} *", 3, 23, "at most one [%eval"),
            ("1. B2= {[%eval +1.00} *", 3, 9, "not closed by ]"),
            ("1. B2= {[%eval]} *", 3, 9, "bad eval"),
            ("1. B2=!?! *", 3, 4, "bad move-quality suffix \"!?!\""),
            ("1. B2= ! *", 3, 8, "must follow a turn token directly"),
            ("1.! B2= *", 3, 1, "follows a turn token, not \"1.\""),
            ("1. B2= *!", 3, 8, "follows a turn token, not \"*\""),
            ("1. B2=?x *", 3, 4, "bad move-quality suffix"),
        ];
        for (text, line, column, needle) in cases {
            let e = record(text).unwrap_err();
            assert_eq!((e.line, e.column), (line, Some(column)), "{text:?}: {e}");
            assert!(e.to_string().contains(needle), "{text:?}: {e}");
            assert!(e.to_string().starts_with(&format!("record line {line}, column {column}: ")), "{e}");
        }
        // Suffixes and comments do not make an illegal turn legal.
        let e = record("1. B2!! {good?} *").unwrap_err();
        assert_eq!((e.line, e.column), (3, Some(4)));
    }

    #[test]
    fn many_tags_are_read_and_written() {
        // Tag handling is linear: a record with 100,000 tags reads and writes back.
        let n = 100_000;
        let mut text = String::from("[Ruleset \"tsoro:8\"]\n");
        for i in 0..n {
            text.push_str(&format!("[T{i} \"v{i}\"]\n"));
        }
        text.push_str("\n1. B2= *\n");
        let r: Record = text.parse().unwrap();
        assert_eq!(r.tags.len(), n);
        assert_eq!(r.tag("T99999"), Some("v99999"));
        let mut dup = text.clone();
        dup.insert_str(0, "[T5 \"again\"]\n");
        assert_eq!(dup.parse::<Record>().unwrap_err().to_string(), format!("record line {}: tag T5 appears twice", 8));

        let mut w = Record::new(game(1));
        let names: Vec<String> = (0..n).map(|i| format!("T{i}")).collect();
        w.set_tags(names.iter().map(|k| (k.as_str(), "x")).chain([("South", "Ann"), ("Result", "1-0")]));
        assert_eq!(w.tags.len(), n + 3);
        assert_eq!(w.tag("South"), Some("Ann"));
        let back: Record = w.to_string().parse().unwrap();
        assert_eq!(back.tags, w.tags);
    }

    fn any_comment() -> impl Strategy<Value = Comment> {
        let eval = prop_oneof![
            (-100_000i32..100_000).prop_map(Eval::Score),
            (1i32..500).prop_map(Eval::Proven),
            (-500i32..0).prop_map(Eval::Proven),
        ];
        (proptest::option::of(eval), "[^{}]{0,30}").prop_map(|(eval, text)| {
            let c = Comment::text(&text);
            // Text that itself spells an eval is not plain text.
            Comment { eval, text: if c.text.contains("[%eval") { String::new() } else { c.text } }
        })
    }

    fn any_annotation() -> impl Strategy<Value = Annotation> {
        (
            proptest::option::of(proptest::sample::select(Quality::ALL.to_vec())),
            proptest::collection::vec(any_comment(), 0..3),
        )
            .prop_map(|(quality, comments)| Annotation { quality, comments })
    }

    proptest! {
        #[test]
        fn annotated_records_round_trip(
            turns in 0usize..30,
            comments in proptest::collection::vec(any_comment(), 0..3),
            annotations in proptest::collection::vec(any_annotation(), 0..30),
        ) {
            let g = game(turns);
            let n = g.moves().len();
            let mut r = Record::new(g);
            r.comments = comments;
            r.annotations = annotations.into_iter().take(n).collect();
            while r.annotations.last().is_some_and(Annotation::is_empty) {
                r.annotations.pop();
            }
            let text = r.to_string();
            let back: Record = text.parse().map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(back.game.moves(), r.game.moves());
            prop_assert_eq!(&back.comments, &r.comments);
            prop_assert_eq!(&back.annotations, &r.annotations);
            prop_assert_eq!(back.to_string(), text);
        }

        #[test]
        fn movetext_reader_never_panics(s in "[0-9.B2=b!?{}%eval#+\\-\\[\\] \n*]{0,60}") {
            if let Ok(r) = record(&s) {
                let again: Record = r.to_string().parse().unwrap();
                prop_assert_eq!(again.annotations, r.annotations);
            }
        }
    }
}
