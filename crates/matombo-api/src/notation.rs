//! Ruleset names and position strings (RULES.md §6.1, §6.2), read and written for the
//! pages: the catalogue's variant forms, the address of the board page and the position
//! editor ask these instead of spelling the notation themselves.

use matombo_core::{GameKind, Position, Ruleset, Setup, Side};
use serde::{Deserialize, Serialize};

use crate::{ApiError, ErrorCode, RulesetInfo, SideJson};

/// A ruleset by its name, or by its game and options (the catalogue's form).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesetRequest {
    /// A ruleset name in any accepted spelling, e.g. `tsoro` or `tsoro:8,bonus=3`.
    #[serde(default)]
    pub name: Option<String>,
    /// `tsoro` or `nsolo`, with the options below (each defaulting to the game's own).
    #[serde(default)]
    pub game: Option<String>,
    /// Holes per row.
    #[serde(default)]
    pub size: Option<u8>,
    /// Tsoro's heads per player.
    #[serde(default)]
    pub heads: Option<u8>,
    /// Tsoro's bonus holes.
    #[serde(default)]
    pub bonus: Option<u8>,
}

fn bad_ruleset(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::BadRuleset, e.to_string())
}

/// The canonical name and description of a ruleset (the call `ruleset`).
pub fn ruleset(req: &RulesetRequest) -> Result<RulesetInfo, ApiError> {
    let r = match (&req.name, &req.game) {
        (Some(name), None) if req.size.is_none() && req.heads.is_none() && req.bonus.is_none() => {
            name.trim().parse::<Ruleset>().map_err(bad_ruleset)?
        }
        (None, Some(game)) => {
            let kind = match game.as_str() {
                "tsoro" => GameKind::Tsoro,
                "nsolo" => GameKind::Nsolo,
                other => return Err(bad_ruleset(format!("unknown game {other:?} (expected tsoro or nsolo)"))),
            };
            let standard = Ruleset::standard(kind);
            let size = req.size.unwrap_or(kind.default_size());
            match kind {
                GameKind::Tsoro => {
                    Ruleset::tsoro(size, req.heads.unwrap_or(standard.heads()), req.bonus.unwrap_or(standard.bonus()))
                }
                GameKind::Nsolo if req.heads.is_some() || req.bonus.is_some() => {
                    return Err(bad_ruleset("nsolo has no heads or bonus options"))
                }
                GameKind::Nsolo => Ruleset::nsolo(size),
            }
            .map_err(bad_ruleset)?
        }
        _ => return Err(ApiError::bad("give either a ruleset name or a game with its options")),
    };
    Ok(RulesetInfo::of(r))
}

/// A position to read (`text`) or to write (`ruleset`, `grid`, `side`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupRequest {
    /// A position string, or a ruleset name meaning its start position.
    #[serde(default)]
    pub text: Option<String>,
    /// The ruleset of a position to write.
    #[serde(default)]
    pub ruleset: Option<String>,
    /// Its rows `b`, `a`, `A`, `B`, each as South sees it (as the notation writes them).
    #[serde(default)]
    pub grid: Option<[Vec<u32>; 4]>,
    /// Its side to move, `S` or `N`.
    #[serde(default)]
    pub side: Option<String>,
}

/// A position read or written: its canonical text whether or not it fits its ruleset, and
/// the position when it does.
#[derive(Debug, Serialize)]
pub struct SetupAnswer {
    /// The canonical text (RULES.md §6.2).
    pub text: String,
    /// The ruleset.
    pub ruleset: RulesetInfo,
    /// Rows `b`, `a`, `A`, `B` as South sees them.
    pub grid: [Vec<u32>; 4],
    /// The side to move.
    pub side: SideJson,
    /// Stones on the board.
    pub stones: u64,
    /// The canonical position when the setup is a legal one, else null.
    pub position: Option<String>,
    /// Why it is not a legal position (wrong row length, too many stones), else null.
    pub problem: Option<String>,
}

/// Reads or writes a position (the call `setup`). A text that cannot be read is an error;
/// a readable one that does not fit its ruleset is answered with its `problem`.
pub fn setup(req: &SetupRequest) -> Result<SetupAnswer, ApiError> {
    let bad = |e: &dyn std::fmt::Display| ApiError::new(ErrorCode::BadPosition, e.to_string());
    let setup = match (&req.text, &req.ruleset, &req.grid, &req.side) {
        (Some(text), None, None, None) => {
            let text = text.trim();
            if !text.is_empty() && !text.contains(char::is_whitespace) {
                // One word: a ruleset name, meaning its start.
                let r: Ruleset = text.parse().map_err(bad_ruleset)?;
                Position::start(r).to_setup()
            } else {
                text.parse::<Setup>().map_err(|e| bad(&e))?
            }
        }
        (None, Some(name), Some(grid), Some(side)) => Setup {
            ruleset: name.trim().parse().map_err(bad_ruleset)?,
            rows: grid.clone(),
            side: match side.as_str() {
                "S" => Side::South,
                "N" => Side::North,
                other => {
                    return Err(ApiError::new(ErrorCode::InvalidField, format!("side must be S or N, not {other:?}")))
                }
            },
        },
        _ => return Err(ApiError::bad("give either a position text or a ruleset, a grid and a side")),
    };
    let text = setup.to_string();
    // Checked before the position: a written grid may hold counts no notation accepts.
    text.parse::<Setup>().map_err(|e| bad(&e))?;
    let (position, problem) = match Position::from_setup(&setup) {
        Ok(p) => (Some(p.to_string()), None),
        Err(e) => (None, Some(e.to_string())),
    };
    Ok(SetupAnswer {
        text,
        ruleset: RulesetInfo::of(setup.ruleset),
        stones: setup.rows.iter().flatten().map(|&c| c as u64).sum(),
        grid: setup.rows,
        side: setup.side.into(),
        position,
        problem,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruleset_from_options_is_canonical() {
        let req = |game: &str, size, heads, bonus| RulesetRequest {
            game: Some(game.into()),
            size: Some(size),
            heads,
            bonus,
            ..RulesetRequest::default()
        };
        assert_eq!(ruleset(&req("tsoro", 8, Some(2), Some(2))).unwrap().name, "tsoro:8");
        assert_eq!(ruleset(&req("tsoro", 8, Some(1), Some(3))).unwrap().name, "tsoro:8,heads=1,bonus=3");
        assert_eq!(ruleset(&req("nsolo", 36, None, None)).unwrap().name, "nsolo:36");
        assert_eq!(ruleset(&req("tsoro", 5, None, None)).unwrap_err().code, ErrorCode::BadRuleset);
        assert_eq!(ruleset(&req("nsolo", 8, Some(1), None)).unwrap_err().code, ErrorCode::BadRuleset);
        assert_eq!(ruleset(&req("oware", 6, None, None)).unwrap_err().code, ErrorCode::BadRuleset);
        let named = RulesetRequest { name: Some("tsoro".into()), ..RulesetRequest::default() };
        assert_eq!(ruleset(&named).unwrap().name, "tsoro:21");
        let both = RulesetRequest { name: Some("tsoro".into()), size: Some(8), ..RulesetRequest::default() };
        assert_eq!(ruleset(&both).unwrap_err().code, ErrorCode::Malformed);
    }

    #[test]
    fn setup_reads_and_writes_the_notation() {
        let read =
            setup(&SetupRequest { text: Some("nsolo:8 2*8/0,2*7/2*7,0/2*8 S".into()), ..Default::default() }).unwrap();
        assert_eq!(read.grid[1], [0, 2, 2, 2, 2, 2, 2, 2]);
        assert_eq!(read.position.as_deref(), Some("nsolo:8 2*8/0,2*7/2*7,0/2*8 S"));
        assert_eq!(read.stones, 60);
        let start = setup(&SetupRequest { text: Some("tsoro:6".into()), ..Default::default() }).unwrap();
        assert_eq!(start.text, "tsoro:6 2*6/0*6/0*6/2*6 S");
        let written = setup(&SetupRequest {
            ruleset: Some("tsoro:6".into()),
            grid: Some([vec![2, 2, 0, 0, 0, 1], vec![0; 6], vec![0; 6], vec![3, 3, 3, 2, 2, 2]]),
            side: Some("N".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(written.text, "tsoro:6 2*2,0*3,1/0*6/0*6/3*3,2*3 N");
        assert!(written.position.is_some() && written.problem.is_none());
        // Too many stones: written, with its problem, not a position.
        let heavy = setup(&SetupRequest {
            ruleset: Some("tsoro:6".into()),
            grid: Some([vec![9; 6], vec![0; 6], vec![0; 6], vec![0; 6]]),
            side: Some("S".into()),
            ..Default::default()
        })
        .unwrap();
        assert!(heavy.position.is_none());
        assert!(heavy.problem.unwrap().contains("stones"));
        // A row too short for the ruleset.
        let short =
            setup(&SetupRequest { text: Some("tsoro:6 2*5/0*6/0*6/2*6 S".into()), ..Default::default() }).unwrap();
        assert!(short.position.is_none() && short.problem.is_some());
        for bad in ["tsoro:6 2*6/0*6/0*6 S", "tsoro:6 x/0*6/0*6/2*6 S", "tsoro:6 2*6/0*6/0*6/2*6 W", "chess"] {
            assert!(setup(&SetupRequest { text: Some(bad.into()), ..Default::default() }).is_err(), "{bad}");
        }
    }
}
