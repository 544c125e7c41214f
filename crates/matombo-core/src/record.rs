//! Game records in the style of PGN (RULES.md §6.5).

use core::fmt::Write as _;

use thiserror::Error;

use crate::game::{Game, Outcome, Termination};
use crate::hole::Side;
use crate::position::Position;
use crate::ruleset::Ruleset;
use crate::token::Token;

/// A record that could not be read: where and why.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("record line {line}: {message}")]
pub struct RecordError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// A game with its tags (`South`, `North`, `Date`, and any others).
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
        }
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
        let mut side = start.side_to_move();
        let mut number = 1;
        for (i, token) in self.game.moves().iter().enumerate() {
            let mut word = String::new();
            if side == Side::South {
                let _ = write!(word, "{number}. ");
            } else if i == 0 {
                let _ = write!(word, "{number}... ");
            }
            let _ = write!(word, "{token}");
            push(&word, &mut line);
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

impl core::str::FromStr for Record {
    type Err = RecordError;

    fn from_str(text: &str) -> Result<Record, RecordError> {
        let err = |line: usize, message: String| RecordError { line, message };
        let mut tags: Vec<(String, String)> = Vec::new();
        let mut words: Vec<(usize, String)> = Vec::new();
        let mut in_comment = false;
        for (i, raw) in text.lines().enumerate() {
            let lineno = i + 1;
            let line = raw.trim();
            if !in_comment && words.is_empty() && line.starts_with('[') {
                let (k, v) = parse_tag(line)
                    .ok_or_else(|| err(lineno, format!("malformed tag {line:?} (expected [Name \"value\"])")))?;
                if tags.iter().any(|(name, _)| *name == k) {
                    return Err(err(lineno, format!("tag {k} appears twice")));
                }
                tags.push((k, v));
                continue;
            }
            let mut rest = line;
            while !rest.is_empty() {
                if in_comment {
                    match rest.find('}') {
                        Some(j) => {
                            in_comment = false;
                            rest = &rest[j + 1..];
                        }
                        None => rest = "",
                    }
                    continue;
                }
                if let Some(after) = rest.strip_prefix('{') {
                    in_comment = true;
                    rest = after;
                    continue;
                }
                let end = rest.find(|c: char| c.is_whitespace() || c == '{').unwrap_or(rest.len());
                if end > 0 {
                    words.push((lineno, rest[..end].to_string()));
                }
                rest = rest[end..].trim_start();
            }
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
        let mut result: Option<(usize, String)> = None;
        let mut expected_number = 1;
        let mut numbered_turn = true;
        for (lineno, w) in &words {
            let lineno = *lineno;
            if result.is_some() {
                return Err(err(lineno, format!("{w:?} after the result")));
            }
            if matches!(w.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
                result = Some((lineno, w.clone()));
                continue;
            }
            let digits = w.bytes().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 && (w[digits..] == *"." || w[digits..] == *"...") {
                let number: usize = w[..digits].parse().map_err(|_| err(lineno, format!("bad move number {w:?}")))?;
                let north = game.position().side_to_move() == Side::North;
                if number != expected_number || (w.ends_with("...") && !north) || (!w.ends_with("...") && north) {
                    return Err(err(
                        lineno,
                        format!(
                            "move number {w:?} out of sequence (expected {expected_number}{})",
                            if north { "..." } else { "." }
                        ),
                    ));
                }
                numbered_turn = true;
                continue;
            }
            if game.position().side_to_move() == Side::South && !numbered_turn {
                return Err(err(lineno, format!("missing move number {expected_number}. before {w}")));
            }
            let token: Token = w.parse().map_err(|e| err(lineno, format!("{e}")))?;
            let side = game.position().side_to_move();
            game.play(&token).map_err(|e| err(lineno, format!("turn {} ({}): {e}", expected_number, side)))?;
            if side == Side::North {
                expected_number += 1;
            }
            numbered_turn = false;
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
        Ok(Record { tags, game })
    }
}

#[cfg(test)]
mod tests {
    use super::{civil_date, date_tag};

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(19_782), (2024, 2, 29)); // a leap day
        assert_eq!(civil_date(20_786), (2026, 11, 29));
        assert_eq!(civil_date(-1), (1969, 12, 31));
        assert_eq!(date_tag(0), "1970.01.01");
        assert_eq!(date_tag(1_700_000_000), "2023.11.14");
    }
}
