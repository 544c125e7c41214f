//! The puzzles (`/puzzles`, `/puzzles/{id}`): positions with a proved forced win, mined by
//! `matombo puzzles generate` into `assets/content/puzzles.jsonl` (docs/puzzles.md).

/// The shipped puzzles, one JSON object a line.
pub fn jsonl() -> &'static str {
    static T: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let f = crate::assets::Assets::get("content/puzzles.jsonl").expect("embedded puzzles.jsonl");
        String::from_utf8(f.data.into_owned()).expect("puzzles.jsonl is UTF-8")
    })
}

use askama::Template;
use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::Value;

use crate::layout::{error_page, render, respond, script_json, Choice, Layout, Target};
use crate::words::{language, word, PageQuery, LANGUAGES};

/// The shipped puzzles as JSON values (what the page embeds).
pub fn all() -> &'static [Value] {
    static P: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    P.get_or_init(|| {
        jsonl()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("puzzles.jsonl holds JSON objects"))
            .collect()
    })
}

/// The themes the puzzles carry (matombo_lab::puzzles::THEMES).
pub const THEMES: [&str; 4] = ["capture", "bonus-choice", "head-choice", "singles-endgame"];

#[derive(Template)]
#[template(path = "puzzles.html")]
struct PuzzlesPage {
    l: Layout,
    themes: Vec<Choice>,
    data: String,
}

/// The puzzles page in `lang`; `id` picks the first puzzle shown.
pub fn puzzles_html(t: Target, lang: &str, id: Option<&str>) -> String {
    let themes = THEMES.iter().map(|th| Choice::new(th, word(lang, &format!("theme_{th}")), false)).collect();
    let data = script_json(&serde_json::json!({ "puzzles": all(), "id": id }));
    let title = format!("{} – matombo", word(lang, "puzzles"));
    let l = Layout::new(t, lang, &title, "learn-page", ("puzzles", ""), "js/puzzles/puzzles.js");
    render(&PuzzlesPage { l, themes, data })
}

/// `GET /puzzles`: the puzzles (a rating-matched one, `?daily=1` the puzzle of the day).
pub async fn index_page(Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    respond(lang, set, puzzles_html(Target::Server, lang, None))
}

/// `GET /puzzles/{id}`: one puzzle.
pub async fn puzzle_page(Path(id): Path<String>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    if all().iter().any(|p| p["id"] == id.as_str()) {
        respond(lang, set, puzzles_html(Target::Server, lang, Some(&id)))
    } else {
        error_page(lang, StatusCode::NOT_FOUND, &format!("no puzzle {id:?}"))
    }
}

/// The static site's puzzle pages (one a language; `?id=` picks a puzzle).
pub fn site_files() -> Vec<(String, Vec<u8>)> {
    LANGUAGES
        .iter()
        .map(|(lang, _)| (Target::site_file("puzzles", lang), puzzles_html(Target::Site, lang, None).into_bytes()))
        .collect()
}

/// The puzzle pages for the offline cache of `t`.
pub fn offline_files(t: Target) -> Vec<String> {
    match t {
        Target::Server => vec!["puzzles".to_string()],
        Target::Site => LANGUAGES.iter().map(|(lang, _)| Target::site_file("puzzles", lang)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_500_puzzles_of_every_ruleset_asked_are_shipped() {
        assert!(all().len() >= 500, "{} puzzles", all().len());
        for r in ["tsoro:6 ", "tsoro:8 ", "tsoro:21 ", "nsolo:8 "] {
            assert!(all().iter().any(|p| p["position"].as_str().unwrap().starts_with(r)), "{r}");
        }
    }

    #[test]
    fn the_page_embeds_the_puzzles_in_every_language() {
        for (lang, _) in LANGUAGES {
            let page = puzzles_html(Target::Site, lang, None);
            assert!(page.contains("static/js/puzzles/puzzles.js"));
            assert!(page.contains(all()[0]["id"].as_str().unwrap()));
            assert!(page.contains(&crate::layout::escaped(&word(lang, "theme_capture"))));
        }
        assert_eq!(site_files().len(), LANGUAGES.len());
    }

    #[tokio::test]
    async fn an_unknown_puzzle_is_not_found() {
        let q = || Query(PageQuery::default());
        let id = all()[0]["id"].as_str().unwrap().to_string();
        assert_eq!(puzzle_page(Path(id), q(), HeaderMap::new()).await.status(), StatusCode::OK);
        assert_eq!(puzzle_page(Path("nope".into()), q(), HeaderMap::new()).await.status(), StatusCode::NOT_FOUND);
    }
}
