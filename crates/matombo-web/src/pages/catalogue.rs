//! The catalogue (`/`): a card for each game with its facts and variant form.

use askama::Template;
use axum::extract::Query;
use axum::http::HeaderMap;
use axum::response::Response;
use matombo_core::GameKind;

use super::variant::VariantForm;
use crate::layout::{render, respond, Layout, Target};
use crate::words::{cat, language, word, PageQuery};

struct Card {
    game: &'static str,
    name: String,
    blurb: String,
    kind: String,
    board: String,
    origin: String,
    form: VariantForm,
    rules_href: String,
}

#[derive(Template)]
#[template(path = "catalogue.html")]
struct Catalogue {
    l: Layout,
    cards: Vec<Card>,
}

/// `GET /`: the catalogue.
pub async fn catalogue_page(Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    respond(lang, set, catalogue_html(Target::Server, lang))
}

/// The catalogue in `lang`.
pub fn catalogue_html(t: Target, lang: &str) -> String {
    let cards = [GameKind::Tsoro, GameKind::Nsolo]
        .into_iter()
        .map(|kind| {
            let game = kind.name();
            Card {
                game,
                name: cat(lang, game, "name"),
                blurb: cat(lang, game, "blurb"),
                kind: cat(lang, game, "type"),
                board: cat(lang, game, "board"),
                origin: cat(lang, game, "origin"),
                form: VariantForm::new(t, lang, kind, None, "play", word(lang, "play_this_game")),
                rules_href: t.href(&format!("rules-{game}"), lang, ""),
            }
        })
        .collect();
    render(&Catalogue { l: Layout::new(t, lang, "matombo", "catalogue", ("index", ""), "catalogue.js"), cards })
}
