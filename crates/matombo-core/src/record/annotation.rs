//! What a record says besides the turns: move-quality suffixes, evaluations, comments.

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
    pub(super) fn pieces(&self) -> Vec<String> {
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
