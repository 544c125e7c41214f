//! A page's game variant: read from its query, and the form that picks it (on the
//! catalogue's cards and the rules pages; `templates/parts/variant_form.html`).

use matombo_core::{GameKind, Ruleset};

use crate::api::games;
use crate::layout::{Choice, Target};
use crate::words::PageQuery;

fn number(s: &Option<String>, what: &str) -> Result<Option<u8>, String> {
    match s.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) => t.parse::<u8>().map(Some).map_err(|_| format!("{what} {t:?} is not a number")),
    }
}

/// The ruleset a page query asks for (`ruleset=`, or `game=`, `size=`, `heads=`, `bonus=`).
pub(super) fn ruleset_of(q: &PageQuery, default_game: Option<GameKind>) -> Result<Ruleset, String> {
    if let Some(r) = &q.ruleset {
        return r.parse::<Ruleset>().map_err(|e| format!("bad ruleset {r:?}: {e}"));
    }
    let kind = match q.game.as_deref() {
        Some("tsoro") => GameKind::Tsoro,
        Some("nsolo") => GameKind::Nsolo,
        Some(g) => return Err(format!("unknown game {g:?} (expected tsoro or nsolo)")),
        None => default_game.unwrap_or(GameKind::Tsoro),
    };
    let size = number(&q.size, "board size")?.unwrap_or(kind.default_size());
    match kind {
        GameKind::Tsoro => {
            Ruleset::tsoro(size, number(&q.heads, "heads")?.unwrap_or(2), number(&q.bonus, "bonus")?.unwrap_or(2))
        }
        GameKind::Nsolo => Ruleset::nsolo(size),
    }
    .map_err(|e| e.to_string())
}

/// The variant form of a game: size (traditional sizes first), heads and bonus for Tsoro.
pub(super) struct VariantForm {
    pub(super) game: &'static str,
    pub(super) action: String,
    /// The page's language as a hidden field (the server's pages; a static site's file names
    /// carry it).
    pub(super) lang: Option<String>,
    pub(super) traditional: Vec<Choice>,
    pub(super) other: Vec<Choice>,
    /// Tsoro's heads and bonus holes.
    pub(super) tsoro: Option<(Vec<Choice>, Vec<Choice>)>,
    pub(super) class: &'static str,
    pub(super) submit: String,
}

impl VariantForm {
    /// The form showing `ruleset` (none: the game's defaults). `target_page` is "play" (the
    /// catalogue's form) or "rules-{game}" (the rules page's).
    pub(super) fn new(
        t: Target,
        lang: &str,
        kind: GameKind,
        ruleset: Option<Ruleset>,
        target_page: &str,
        submit: String,
    ) -> Self {
        let info = games().into_iter().find(|g| g.game == kind.name()).expect("both games listed");
        let size = ruleset.map_or(info.default_size, |r| r.size() as u8);
        let sizes = |list: &[u8]| list.iter().map(|&n| Choice::new(n, format!("4 × {n}"), n == size)).collect();
        let numbers =
            |list: &[u8], chosen: u8| list.iter().map(|&v| Choice::new(v, v.to_string(), v == chosen)).collect();
        VariantForm {
            game: kind.name(),
            action: match t {
                Target::Server => t.href(target_page, lang, "").split('?').next().unwrap_or("/").to_string(),
                Target::Site => Target::site_file(target_page, lang),
            },
            lang: (t == Target::Server).then(|| lang.to_string()),
            traditional: sizes(&info.sizes[..info.traditional]),
            other: sizes(&info.sizes[info.traditional..]),
            tsoro: (kind == GameKind::Tsoro).then(|| {
                (
                    numbers(&info.heads, ruleset.map_or(2, |r| r.heads())),
                    numbers(&info.bonus, ruleset.map_or(2, |r| r.bonus())),
                )
            }),
            // On the rules page the form only redraws the diagram; "Play this game" is the main button.
            class: if target_page == "play" { "primary" } else { "secondary" },
            submit,
        }
    }
}
