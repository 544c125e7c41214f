//! The rules pages (`/rules/{game}`): the rules text of `assets/content/rules/`, with a table
//! of contents, the variant form and the start diagram of the chosen variant.

use askama::Template;
use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use matombo_core::{GameKind, Position, Ruleset};

use super::url_encode;
use super::variant::{ruleset_of, VariantForm};
use crate::api::{Rows, RulesetInfo};
use crate::assets::Assets;
use crate::layout::{error_page, render, respond, Layout, Target};
use crate::words::{cat, catalogue, fill, language, word, PageQuery};

/// The start diagram of a ruleset, from the engine's own start position.
#[derive(Template)]
#[template(path = "parts/start_diagram.html")]
struct StartDiagram {
    game: &'static str,
    ruleset: String,
    position: String,
    rows: String,
    info: String,
    holes: usize,
    stones: u32,
    caption: String,
}

fn diagram(lang: &str, ruleset: Ruleset) -> String {
    let start = Position::start(ruleset);
    let n = ruleset.size();
    let stones = start.total_stones();
    let caption = fill(
        &fill(&fill(&word(lang, "start_diagram"), "n", &n.to_string()), "holes", &(4 * n).to_string()),
        "stones",
        &stones.to_string(),
    );
    render(&StartDiagram {
        game: ruleset.kind().name(),
        ruleset: ruleset.to_string(),
        position: start.to_string(),
        rows: serde_json::to_string(&Rows::of(&start)).expect("rows serialize"),
        info: serde_json::to_string(&RulesetInfo::of(ruleset)).expect("info serializes"),
        holes: 4 * n,
        stones,
        caption,
    })
}

#[derive(Template)]
#[template(path = "rules.html")]
struct RulesPage {
    l: Layout,
    game: &'static str,
    name: String,
    kind: String,
    origin: String,
    f: VariantForm,
    play_href: String,
    toc: Vec<(&'static str, String)>,
    body: String,
}

/// `GET /rules/{game}`: the rules in the chosen language, with the start diagram for the
/// chosen size.
pub async fn rules_page(Path(game): Path<String>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    let kind = match game.as_str() {
        "tsoro" => GameKind::Tsoro,
        "nsolo" => GameKind::Nsolo,
        _ => return error_page(lang, StatusCode::NOT_FOUND, &format!("no rules for {game:?}: try tsoro or nsolo")),
    };
    let q = PageQuery { game: Some(game.clone()), ..q };
    let ruleset = match ruleset_of(&q, Some(kind)) {
        Ok(r) if r.kind() == kind => r,
        Ok(r) => return error_page(lang, StatusCode::BAD_REQUEST, &format!("{r} is not a {game} ruleset")),
        Err(e) => return error_page(lang, StatusCode::BAD_REQUEST, &e),
    };
    match rules_html(Target::Server, lang, kind, ruleset) {
        Some(html) => respond(lang, set, html),
        None => error_page(lang, StatusCode::NOT_FOUND, "missing rules text"),
    }
}

/// The rules of `kind` in `lang`, with the start diagram of `ruleset`.
pub fn rules_html(t: Target, lang: &str, kind: GameKind, ruleset: Ruleset) -> Option<String> {
    let game = kind.name();
    let fragment = Assets::get(&format!("content/rules/{lang}/{game}.html"))?;
    let fragment = String::from_utf8_lossy(&fragment.data).into_owned();
    let placeholder = format!("<div class=\"start-diagram\" data-game=\"{game}\"></div>");
    let body = fragment.replace(&placeholder, &diagram(lang, ruleset));
    let sections = &catalogue()[lang]["sections"];
    let toc = ["overview", "board", "play", "capture", "end", "variants", "notation", "sources"]
        .into_iter()
        .filter(|id| body.contains(&format!("<section id=\"{id}\"")))
        .map(|id| (id, sections[id].as_str().unwrap_or(id).to_string()))
        .collect();
    let name = cat(lang, game, "name");
    let mut here = format!("size={}", ruleset.size());
    if kind == GameKind::Tsoro {
        here.push_str(&format!("&heads={}&bonus={}", ruleset.heads(), ruleset.bonus()));
    }
    let rules_page = format!("rules-{game}");
    let l = Layout::new(t, lang, &format!("{name} – matombo"), "rules-page", (&rules_page, &here), "rules.js");
    Some(render(&RulesPage {
        game,
        kind: cat(lang, game, "type"),
        origin: cat(lang, game, "origin"),
        f: VariantForm::new(t, lang, kind, Some(ruleset), &rules_page, word(lang, "show_diagram")),
        play_href: t.href("play", lang, &format!("ruleset={}", url_encode(&ruleset.to_string()))),
        toc,
        body,
        name,
        l,
    }))
}
