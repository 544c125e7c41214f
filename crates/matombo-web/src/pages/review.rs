//! The game review page (`/review`): the same page for every game, filled by `review.js`.

use askama::Template;
use axum::extract::Query;
use axum::http::HeaderMap;
use axum::response::Response;

use crate::layout::{render, respond, Choice, Layout, Target};
use crate::words::{game_names_json, language, word, PageQuery};

/// The review page; online games (its field for one) are the server's, a static site has none.
#[derive(Template)]
#[template(path = "review.html")]
struct ReviewPage {
    l: Layout,
    names: String,
    budgets: Vec<Choice>,
}

/// `GET /review`: the game review page. The game comes from the address (`ruleset=` or
/// `position=`, `moves=`, `turn=`; `online=` an archived online game), a pasted or loaded
/// record, or the board page's "Review game" link; the page's script reads it (docs/review.md).
pub async fn review_page(Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    respond(lang, set, review_html(Target::Server, lang))
}

/// The review page in `lang`. The page is the same for every game: the script fills it.
pub fn review_html(t: Target, lang: &str) -> String {
    // Node budgets a position: the default is quick enough for a phone (docs/review.md);
    // 1,000,000 is `matombo review`'s default and gives its very scores.
    let budgets = [(50_000, "budget_quick"), (300_000, "budget_normal"), (1_000_000, "budget_deep")]
        .into_iter()
        .map(|(n, k)| Choice::new(n, word(lang, k), n == 300_000))
        .collect();
    let title = format!("{} – matombo", word(lang, "review_title"));
    let l = Layout::new(t, lang, &title, "review-page", ("review", ""), "review.js");
    render(&ReviewPage { l, names: game_names_json(lang), budgets })
}
