//! The board page (`/play`): a game against the engine or between two players, from a
//! ruleset's start or a given position; `play.js` draws the board.

use askama::Template;
use axum::extract::Query;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use matombo_ai::Level;
use matombo_core::Position;

use super::url_encode;
use super::variant::ruleset_of;
use crate::layout::{error_page, render, respond, Choice, Layout, Target};
use crate::words::{cat, game_names_json, language, word, PageQuery};

#[derive(Template)]
#[template(path = "play.html")]
struct PlayPage {
    l: Layout,
    start: String,
    game: &'static str,
    names: String,
    name: String,
    ruleset: String,
    rules_href: String,
    levels: Vec<Choice>,
}

/// `GET /play`: the board page for a ruleset (`ruleset=` or `game=&size=…`) or a position.
pub async fn play_page(Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    let start = match &q.position {
        Some(p) => match p.parse::<Position>() {
            Ok(p) => p,
            Err(e) => return error_page(lang, StatusCode::BAD_REQUEST, &format!("bad position {p:?}: {e}")),
        },
        None => match ruleset_of(&q, None) {
            Ok(r) => Position::start(r),
            Err(e) => return error_page(lang, StatusCode::BAD_REQUEST, &e),
        },
    };
    respond(lang, set, play_html(Target::Server, lang, &start))
}

/// The board page in `lang`, starting from `start`.
pub fn play_html(t: Target, lang: &str, start: &Position) -> String {
    let ruleset = start.ruleset();
    let game = ruleset.kind().name();
    let name = cat(lang, game, "name");
    let here = format!("position={}", url_encode(&start.to_string()));
    let l = Layout::new(t, lang, &format!("{name} {ruleset} – matombo"), "play-page", ("play", &here), "play.js");
    render(&PlayPage {
        l,
        start: start.to_string(),
        game,
        // The page may be shown for another start (a static site, the offline copy of another
        // board): the script then retitles it, with the games' names in this language.
        names: game_names_json(lang),
        name,
        ruleset: ruleset.to_string(),
        rules_href: t.href(&format!("rules-{game}"), lang, &format!("size={}", ruleset.size())),
        levels: Level::ALL
            .iter()
            .map(|v| Choice::new(v, word(lang, &format!("level_{v}")), *v == Level::Easy))
            .collect(),
    })
}
