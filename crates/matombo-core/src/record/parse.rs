//! Reading a record: tags, then movetext with its comments and suffixes.

use std::collections::HashSet;

use super::{Annotation, Comment, Eval, Quality, Record, RecordError, DERIVED};
use crate::game::{Game, Outcome, Termination};
use crate::hole::Side;
use crate::position::Position;
use crate::ruleset::Ruleset;
use crate::token::Token;

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
