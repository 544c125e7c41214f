//! Game records in the style of PGN (RULES.md §6.5).

use core::fmt::Write as _;
use std::collections::{HashMap, HashSet};

use thiserror::Error;

use crate::game::{Game, Outcome, Termination};
use crate::hole::Side;
use crate::position::Position;
use crate::ruleset::Ruleset;
use crate::token::Token;

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

/// A move-quality suffix written directly after a turn token (RULES.md §6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Quality {
    /// `!`
    Good,
    /// `?`
    Mistake,
    /// `!!`
    Brilliant,
    /// `??`
    Blunder,
    /// `!?`
    Interesting,
    /// `?!`
    Dubious,
}

impl Quality {
    /// Every suffix, in the order of RULES.md.
    pub const ALL: [Quality; 6] =
        [Quality::Good, Quality::Mistake, Quality::Brilliant, Quality::Blunder, Quality::Interesting, Quality::Dubious];

    /// The suffix as written: `!`, `?`, `!!`, `??`, `!?` or `?!`.
    pub fn as_str(self) -> &'static str {
        match self {
            Quality::Good => "!",
            Quality::Mistake => "?",
            Quality::Brilliant => "!!",
            Quality::Blunder => "??",
            Quality::Interesting => "!?",
            Quality::Dubious => "?!",
        }
    }
}

impl core::fmt::Display for Quality {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::str::FromStr for Quality {
    type Err = String;

    fn from_str(s: &str) -> Result<Quality, String> {
        Quality::ALL
            .into_iter()
            .find(|q| q.as_str() == s)
            .ok_or_else(|| format!("bad move-quality suffix {s:?} (one of ! ? !! ?? !? ?!)"))
    }
}

/// An evaluation held in a comment as `[%eval S]`, always from South's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Eval {
    /// A score in hundredths of a stone for South: `+1.25` is `Score(125)`.
    Score(i32),
    /// A proven result in this many turns (both sides' turns counted): South wins when
    /// positive (`#7`), loses when negative (`#-7`). Never zero.
    Proven(i32),
}

impl Eval {
    /// The score in stones for South, if this is a score and not a proven result.
    pub fn stones(self) -> Option<f64> {
        match self {
            Eval::Score(h) => Some(f64::from(h) / 100.0),
            Eval::Proven(_) => None,
        }
    }
}

impl core::fmt::Display for Eval {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Eval::Score(h) => {
                let sign = if h < 0 { '-' } else { '+' };
                let a = h.unsigned_abs();
                write!(f, "{sign}{}.{:02}", a / 100, a % 100)
            }
            Eval::Proven(n) => write!(f, "#{n}"),
        }
    }
}

impl core::str::FromStr for Eval {
    type Err = String;

    /// Reads `+1.25`, `-0.50`, `#7` or `#-7`.
    fn from_str(s: &str) -> Result<Eval, String> {
        let bad = || {
            format!(
                "bad eval {s:?}: expected a score in stones with a sign and two decimals \
                 (+1.25, -0.50) or a proven result #N / #-N (N at least 1)"
            )
        };
        let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
        if let Some(n) = s.strip_prefix('#') {
            let (negative, n) = match n.strip_prefix('-') {
                Some(n) => (true, n),
                None => (false, n),
            };
            if !digits(n) {
                return Err(bad());
            }
            let n: i32 = n.parse().map_err(|_| bad())?;
            if n == 0 {
                return Err(bad());
            }
            return Ok(Eval::Proven(if negative { -n } else { n }));
        }
        let (negative, rest) = match s.as_bytes().first() {
            Some(b'+') => (false, &s[1..]),
            Some(b'-') => (true, &s[1..]),
            _ => return Err(bad()),
        };
        let (whole, frac) = rest.split_once('.').ok_or_else(bad)?;
        if !digits(whole) || !digits(frac) || frac.len() != 2 {
            return Err(bad());
        }
        let whole: i32 = whole.parse().map_err(|_| bad())?;
        let frac: i32 = frac.parse().map_err(|_| bad())?;
        let h = whole.checked_mul(100).and_then(|w| w.checked_add(frac)).ok_or_else(bad)?;
        Ok(Eval::Score(if negative { -h } else { h }))
    }
}

/// A comment `{…}`: its evaluation, if it holds one, and the rest of its text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Comment {
    /// The `[%eval S]` it holds, if any.
    pub eval: Option<Eval>,
    /// The text without the eval, runs of white space read as one space. Written back
    /// after the eval; braces in it are written as parentheses, since a comment cannot
    /// hold them.
    pub text: String,
}

impl Comment {
    /// A comment of plain text.
    pub fn text(text: &str) -> Comment {
        Comment { eval: None, text: text.split_whitespace().collect::<Vec<_>>().join(" ") }
    }

    /// A comment holding only an evaluation.
    pub fn eval(eval: Eval) -> Comment {
        Comment { eval: Some(eval), text: String::new() }
    }

    /// The pieces it is written as, braces included, broken where a line may break.
    fn pieces(&self) -> Vec<String> {
        let mut pieces: Vec<String> = Vec::new();
        if let Some(e) = self.eval {
            pieces.push(format!("[%eval {e}]"));
        }
        pieces.extend(self.text.split_whitespace().map(|w| w.replace('{', "(").replace('}', ")")));
        if pieces.is_empty() {
            return vec!["{}".into()];
        }
        pieces[0].insert(0, '{');
        pieces.last_mut().expect("not empty").push('}');
        pieces
    }
}

impl core::fmt::Display for Comment {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.pieces().join(" "))
    }
}

/// What a record says about one turn besides its token; ignored for legality.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Annotation {
    /// The move-quality suffix, if any.
    pub quality: Option<Quality>,
    /// The comments after the turn, in order.
    pub comments: Vec<Comment>,
}

impl Annotation {
    /// Whether it says nothing.
    pub fn is_empty(&self) -> bool {
        self.quality.is_none() && self.comments.is_empty()
    }

    /// The last evaluation among its comments, if any.
    pub fn eval(&self) -> Option<Eval> {
        self.comments.iter().rev().find_map(|c| c.eval)
    }
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

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let rest = rest.trim().strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = rest.chars();
    loop {
        match chars.next()? {
            '\\' => value.push(chars.next()?),
            '"' => break,
            c => value.push(c),
        }
    }
    if !chars.as_str().trim().is_empty() {
        return None;
    }
    Some((name.to_string(), value))
}

/// A piece of movetext: a word (move number, turn with its suffix, or result) or a
/// comment, with the line and column where it starts.
enum Item {
    Word { line: usize, column: usize, text: String },
    Comment(Comment),
}

/// A comment being read: where its `{` is and its raw text so far.
struct OpenComment {
    line: usize,
    column: usize,
    raw: String,
}

impl OpenComment {
    /// The line and column of byte `offset` of the raw text (which starts just after `{`
    /// and holds the comment's line breaks).
    fn place(&self, offset: usize) -> (usize, usize) {
        let before = &self.raw[..offset];
        match before.rfind('\n') {
            None => (self.line, self.column + 1 + before.chars().count()),
            Some(nl) => (self.line + before.matches('\n').count(), before[nl + 1..].chars().count() + 1),
        }
    }

    /// The comment, with its `[%eval …]` read.
    fn finish(self) -> Result<Comment, RecordError> {
        const EVAL: &str = "[%eval";
        let at = |offset: usize, message: String| {
            let (line, column) = self.place(offset);
            RecordError { line, column: Some(column), message }
        };
        let mut eval = None;
        let mut text = String::new();
        let mut rest = self.raw.as_str();
        let mut base = 0;
        while let Some(j) = rest.find(EVAL) {
            let pos = base + j;
            if eval.is_some() {
                return Err(at(pos, "a comment holds at most one [%eval …]".into()));
            }
            let after = &rest[j + EVAL.len()..];
            let close = after.find(']').ok_or_else(|| at(pos, "[%eval … is not closed by ]".into()))?;
            let inner = &after[..close];
            if !inner.starts_with(char::is_whitespace) {
                return Err(at(
                    pos,
                    format!("bad eval {:?}: write [%eval +1.25] or [%eval #7]", &rest[j..j + EVAL.len() + close + 1]),
                ));
            }
            eval = Some(inner.trim().parse::<Eval>().map_err(|e| at(pos, e))?);
            // A space where the eval was, so that no new "[%eval" forms across the gap.
            text.push_str(&rest[..j]);
            text.push(' ');
            base = pos + EVAL.len() + close + 1;
            rest = &after[close + 1..];
        }
        text.push_str(rest);
        Ok(Comment { eval, text: text.split_whitespace().collect::<Vec<_>>().join(" ") })
    }
}

/// Splits a word into its text and its move-quality suffix (the `!` and `?` at its end).
fn split_quality(word: &str) -> Result<(&str, Option<Quality>), String> {
    match word.find(['!', '?']) {
        None => Ok((word, None)),
        Some(0) => Err(format!("move-quality suffix {word:?} must follow a turn token directly")),
        Some(j) => Ok((&word[..j], Some(word[j..].parse::<Quality>()?))),
    }
}

impl core::str::FromStr for Record {
    type Err = RecordError;

    fn from_str(text: &str) -> Result<Record, RecordError> {
        let err = |line: usize, message: String| RecordError { line, column: None, message };
        let at = |line: usize, column: usize, message: String| RecordError { line, column: Some(column), message };
        let mut tags: Vec<(String, String)> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut items: Vec<Item> = Vec::new();
        let mut any_word = false;
        let mut open: Option<OpenComment> = None;
        for (i, raw) in text.lines().enumerate() {
            let lineno = i + 1;
            let line = raw.trim();
            if open.is_none() && !any_word && line.starts_with('[') {
                let (k, v) = parse_tag(line)
                    .ok_or_else(|| err(lineno, format!("malformed tag {line:?} (expected [Name \"value\"])")))?;
                if !seen.insert(k.clone()) {
                    return Err(err(lineno, format!("tag {k} appears twice")));
                }
                tags.push((k, v));
                continue;
            }
            if let Some(o) = open.as_mut() {
                o.raw.push('\n');
            }
            let mut word: Option<(usize, String)> = None;
            let mut flush = |word: &mut Option<(usize, String)>, items: &mut Vec<Item>| {
                if let Some((column, text)) = word.take() {
                    any_word = true;
                    items.push(Item::Word { line: lineno, column, text });
                }
            };
            for (c, ch) in raw.chars().enumerate() {
                let column = c + 1;
                if let Some(o) = open.as_mut() {
                    match ch {
                        '}' => items.push(Item::Comment(open.take().expect("open").finish()?)),
                        '{' => {
                            return Err(at(
                                lineno,
                                column,
                                format!(
                                "brace {{ inside the comment opened at line {}, column {} (comments hold no braces)",
                                o.line, o.column
                            ),
                            ))
                        }
                        _ => o.raw.push(ch),
                    }
                    continue;
                }
                match ch {
                    '{' => {
                        flush(&mut word, &mut items);
                        open = Some(OpenComment { line: lineno, column, raw: String::new() });
                    }
                    '}' => return Err(at(lineno, column, "closing brace } without an opening {".into())),
                    c if c.is_whitespace() => flush(&mut word, &mut items),
                    c => word.get_or_insert_with(|| (column, String::new())).1.push(c),
                }
            }
            flush(&mut word, &mut items);
        }
        if let Some(o) = open {
            return Err(at(o.line, o.column, "comment not closed (a { without its })".into()));
        }
        let tag = |name: &str| tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        let ruleset: Ruleset = tag("Ruleset")
            .ok_or_else(|| err(1, "missing [Ruleset \"…\"] tag".into()))?
            .parse()
            .map_err(|e| err(1, format!("Ruleset tag: {e}")))?;
        let start = match tag("Position") {
            Some(p) => {
                let pos: Position = p.parse().map_err(|e| err(1, format!("Position tag: {e}")))?;
                if pos.ruleset() != ruleset {
                    return Err(err(1, format!("Position tag is for {}, but Ruleset is {ruleset}", pos.ruleset())));
                }
                pos
            }
            None => Position::start(ruleset),
        };
        let mut game = Game::new(start);
        let mut comments: Vec<Comment> = Vec::new();
        let mut annotations: Vec<Annotation> = Vec::new();
        let mut result: Option<(usize, String)> = None;
        let mut expected_number = 1;
        let mut numbered_turn = true;
        for item in items {
            let (lineno, column, w) = match item {
                // A comment belongs to the turn before it, or to the game before any turn.
                Item::Comment(c) => {
                    match annotations.last_mut() {
                        Some(a) => a.comments.push(c),
                        None => comments.push(c),
                    }
                    continue;
                }
                Item::Word { line, column, text } => (line, column, text),
            };
            let at = |message: String| at(lineno, column, message);
            if result.is_some() {
                return Err(at(format!("{w:?} after the result")));
            }
            let (w, quality) = split_quality(&w).map_err(at)?;
            let is_result = matches!(w, "1-0" | "0-1" | "1/2-1/2" | "*");
            let digits = w.bytes().take_while(|b| b.is_ascii_digit()).count();
            let is_number = digits > 0 && (w[digits..] == *"." || w[digits..] == *"...");
            if quality.is_some() && (is_result || is_number) {
                return Err(at(format!("a move-quality suffix follows a turn token, not {w:?}")));
            }
            if is_result {
                result = Some((lineno, w.to_string()));
                continue;
            }
            if is_number {
                let number: usize = w[..digits].parse().map_err(|_| at(format!("bad move number {w:?}")))?;
                let north = game.position().side_to_move() == Side::North;
                if number != expected_number || (w.ends_with("...") && !north) || (!w.ends_with("...") && north) {
                    return Err(at(format!(
                        "move number {w:?} out of sequence (expected {expected_number}{})",
                        if north { "..." } else { "." }
                    )));
                }
                numbered_turn = true;
                continue;
            }
            if game.position().side_to_move() == Side::South && !numbered_turn {
                return Err(at(format!("missing move number {expected_number}. before {w}")));
            }
            let token: Token = w.parse().map_err(|e| at(format!("{e}")))?;
            let side = game.position().side_to_move();
            game.play(&token).map_err(|e| at(format!("turn {} ({}): {e}", expected_number, side)))?;
            annotations.push(Annotation { quality, comments: Vec::new() });
            if side == Side::North {
                expected_number += 1;
            }
            numbered_turn = false;
        }
        while annotations.last().is_some_and(Annotation::is_empty) {
            annotations.pop();
        }
        let (rline, result) = result.ok_or_else(|| {
            err(text.lines().count().max(1), "the movetext must end with a result: 1-0, 0-1, 1/2-1/2 or *".into())
        })?;
        if let Some(r) = tag("Result") {
            if r != result {
                return Err(err(rline, format!("the Result tag says {r} but the movetext ends with {result}")));
            }
        }
        let termination = match tag("Termination") {
            None | Some("unterminated") | Some("turn limit") | Some("abandoned") => None,
            Some(t) => Some(Termination::from_tag(t).ok_or_else(|| err(1, format!("unknown Termination {t:?}")))?),
        };
        match game.outcome() {
            Some(o) => {
                if o.result() != result {
                    return Err(err(
                        rline,
                        format!("the game ended ({o}), so the result is {}, not {result}", o.result()),
                    ));
                }
                if let Some(t) = termination {
                    if t != o.termination {
                        return Err(err(
                            1,
                            format!("Termination says {:?} but the game ended by {:?}", t.tag(), o.termination.tag()),
                        ));
                    }
                }
            }
            None => {
                let winner = match result.as_str() {
                    "1-0" => Some(Side::South),
                    "0-1" => Some(Side::North),
                    "*" => None,
                    _ => {
                        return Err(err(
                            rline,
                            "a draw arises only by repetition in Nsolo, and this game did not repeat".into(),
                        ))
                    }
                };
                if let Some(w) = winner {
                    let t = match termination {
                        None => Termination::Resignation,
                        Some(t @ (Termination::Resignation | Termination::TimeForfeit)) => t,
                        Some(t) => {
                            return Err(err(
                                1,
                                format!("Termination {:?} does not fit: the game is not over on the board", t.tag()),
                            ))
                        }
                    };
                    game.end(Outcome { winner: Some(w), termination: t }).map_err(|e| err(rline, e.to_string()))?;
                }
            }
        }
        let over = game.outcome().is_some();
        let tags = tags
            .into_iter()
            .filter(|(k, _)| !(DERIVED.contains(&k.as_str()) || (over && k == "Termination")))
            .collect();
        Ok(Record { tags, game, comments, annotations })
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
