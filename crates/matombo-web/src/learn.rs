//! The lessons (`/learn`, `/learn/{id}`): short explanations, an animated demonstration and
//! tasks solved on the real board. The lessons are data: positions, demonstration turns and
//! each task's goal in `assets/content/lessons.json`, their words in every language in
//! `assets/content/learn.json` (the shape of `ui.json`). The page's script
//! (`assets/js/learn/`) plays everything through the engine and checks a task's goal against
//! the engine's answers; `tests/lessons.rs` proves every task with `matombo-core`
//! (docs/lessons.md).

use askama::Template;
use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::OnceLock;

use crate::layout::{error_page, render, respond, script_json, Layout, Target};
use crate::words::{language, load_json, PageQuery, LANGUAGES};

/// All the lessons, in teaching order.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Lessons {
    /// The lessons.
    pub lessons: Vec<Lesson>,
}

/// One lesson: its words are `{id}_title`, `{id}_text`, `{id}_demo` and, for task `i`
/// (from 1), `{id}_{i}` (what to do) and `{id}_{i}_hint`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    /// Its address: `/learn/{id}` (lower-case letters).
    pub id: String,
    /// The animated demonstration.
    pub demo: Demo,
    /// Two to four tasks.
    pub tasks: Vec<Task>,
}

/// Turns the page plays by itself on a small board.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Demo {
    /// The start (RULES.md §6.2).
    pub position: String,
    /// Turn tokens played one after the other (RULES.md §6.3).
    pub moves: Vec<String>,
    /// A hole the demonstration points at (e.g. a start the engine refuses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<String>,
}

/// A task: from `position` (after `moves`, if any), the learner plays one turn as South,
/// which must meet `goal`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// The start (RULES.md §6.2).
    pub position: String,
    /// Turns already played from `position` before the learner's (for the repetition rule).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<String>,
    /// What the learner's turn must do.
    pub goal: Goal,
    /// A turn that meets the goal (its start hole is the hint's mark).
    pub solution: String,
    /// Legal turns that do not meet it.
    pub wrong: Vec<String>,
}

/// What a turn must do, checked on the engine's answers after each of the learner's
/// steps (the start's sowing, each head choice, the whole bonus): the task is solved at
/// the first step where every condition given holds, and failed if the turn ends before.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Goal {
    /// The turn starts from this hole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The last lap so far ended in this hole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends: Option<String>,
    /// At least this many laps were sown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub laps_min: Option<usize>,
    /// The learner stopped at a head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<bool>,
    /// Every one of these holes was captured from (the file, or a bonus pick).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capture: Vec<String>,
    /// At least this many stones were captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stones_min: Option<u32>,
    /// These holes are empty now.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub empty: Vec<String>,
    /// The game is over and this side (`south` or `north`) won.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// The game is over, drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<bool>,
}

impl Goal {
    /// True when no condition is given (such a goal would be met by anything).
    pub fn is_empty(&self) -> bool {
        self.start.is_none()
            && self.ends.is_none()
            && self.laps_min.is_none()
            && self.stop.is_none()
            && self.capture.is_empty()
            && self.stones_min.is_none()
            && self.empty.is_empty()
            && self.winner.is_none()
            && self.draw.is_none()
    }
}

/// The lessons of `assets/content/lessons.json`.
pub fn lessons() -> &'static Lessons {
    static L: OnceLock<Lessons> = OnceLock::new();
    L.get_or_init(|| {
        serde_json::from_value(load_json("content/lessons.json")).expect("lessons.json has the lessons' shape")
    })
}

fn texts() -> &'static Value {
    static T: OnceLock<Value> = OnceLock::new();
    T.get_or_init(|| load_json("content/learn.json"))
}

/// A lesson word in `lang`, falling back to English.
pub fn text(lang: &str, key: &str) -> String {
    texts()[lang][key].as_str().or_else(|| texts()["en"][key].as_str()).unwrap_or(key).to_string()
}

/// The page name of a lesson (`learn-{id}`), for [`Target::href`].
fn page_name(id: &str) -> String {
    format!("learn-{id}")
}

/// Every lesson page's name, the index first ("learn", "learn-board", …).
pub fn page_names() -> Vec<String> {
    std::iter::once("learn".to_string()).chain(lessons().lessons.iter().map(|l| page_name(&l.id))).collect()
}

/// The words the lesson scripts use (the keys of `learn.json` without a lesson's prefix).
fn script_words(lang: &str) -> serde_json::Map<String, Value> {
    let ids: Vec<String> = lessons().lessons.iter().map(|l| format!("{}_", l.id)).collect();
    let mut out = serde_json::Map::new();
    if let Some(all) = texts()["en"].as_object() {
        for key in all.keys().filter(|k| !ids.iter().any(|p| k.starts_with(p.as_str()))) {
            out.insert(key.clone(), Value::String(text(lang, key)));
        }
    }
    out
}

/// A lesson in the list of `/learn`.
struct Item {
    id: String,
    tasks: usize,
    href: String,
    number: usize,
    title: String,
}

#[derive(Template)]
#[template(path = "learn/index.html")]
struct IndexPage {
    l: Layout,
    items: Vec<Item>,
    data: String,
}

impl IndexPage {
    /// A lesson word of the page's language.
    fn t(&self, key: &str) -> String {
        text(&self.l.lang, key)
    }
}

/// The list of lessons in `lang`, each with its progress filled in by the page's script.
pub fn index_html(t: Target, lang: &str) -> String {
    let items = lessons()
        .lessons
        .iter()
        .enumerate()
        .map(|(i, l)| Item {
            id: l.id.clone(),
            tasks: l.tasks.len(),
            href: t.href(&page_name(&l.id), lang, ""),
            number: i + 1,
            title: text(lang, &format!("{}_title", l.id)),
        })
        .collect();
    let data = script_json(&serde_json::json!({ "words": script_words(lang) }));
    let title = format!("{} – matombo", text(lang, "learn_title"));
    let l = Layout::new(t, lang, &title, "learn-page", ("learn", ""), "js/learn/index.js");
    render(&IndexPage { l, items, data })
}

#[derive(Template)]
#[template(path = "learn/lesson.html")]
struct LessonPage<'a> {
    l: Layout,
    id: &'a str,
    lesson_k: String,
    tasks: usize,
    /// The next lesson's address and title; none after the last, which leads to the board.
    next: Option<(String, String)>,
    data: String,
}

impl LessonPage<'_> {
    /// A lesson word of the page's language.
    fn t(&self, key: &str) -> String {
        text(&self.l.lang, key)
    }

    /// A word of this lesson (`{id}{suffix}`).
    fn own(&self, suffix: &str) -> String {
        self.t(&format!("{}{suffix}", self.id))
    }
}

/// The page of lesson `index` (from 0) in `lang`.
pub fn lesson_html(t: Target, lang: &str, index: usize) -> String {
    let all = &lessons().lessons;
    let l = &all[index];
    let id = &l.id;
    let tasks: Vec<Value> = l
        .tasks
        .iter()
        .enumerate()
        .map(|(i, task)| {
            let mut v = serde_json::to_value(task).expect("task serializes");
            v["prompt"] = Value::String(text(lang, &format!("{id}_{}", i + 1)));
            v["hint"] = Value::String(text(lang, &format!("{id}_{}_hint", i + 1)));
            v
        })
        .collect();
    let data = serde_json::json!({
        "id": id,
        "demo": l.demo,
        "tasks": tasks,
        "words": script_words(lang),
    });
    let title = format!("{} – matombo", text(lang, &format!("{id}_title")));
    render(&LessonPage {
        l: Layout::new(t, lang, &title, "learn-page", (&page_name(id), ""), "js/learn/lesson.js"),
        id,
        lesson_k: text(lang, "lesson_k_of_n")
            .replace("{k}", &(index + 1).to_string())
            .replace("{n}", &all.len().to_string()),
        tasks: l.tasks.len(),
        next: all.get(index + 1).map(|n| (t.href(&page_name(&n.id), lang, ""), text(lang, &format!("{}_title", n.id)))),
        data: script_json(&data),
    })
}

/// `GET /learn`: the lessons.
pub async fn index_page(Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    respond(lang, set, index_html(Target::Server, lang))
}

/// `GET /learn/{id}`: one lesson.
pub async fn lesson_page(Path(id): Path<String>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let (lang, set) = language(&q, &headers);
    match lessons().lessons.iter().position(|l| l.id == id) {
        Some(i) => respond(lang, set, lesson_html(Target::Server, lang, i)),
        None => error_page(lang, StatusCode::NOT_FOUND, &format!("no lesson {id:?}")),
    }
}

/// The static site's lesson pages: the index and every lesson in every language.
pub fn site_files() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (lang, _) in LANGUAGES {
        out.push((Target::site_file("learn", lang), index_html(Target::Site, lang).into_bytes()));
        for (i, l) in lessons().lessons.iter().enumerate() {
            out.push((Target::site_file(&page_name(&l.id), lang), lesson_html(Target::Site, lang, i).into_bytes()));
        }
    }
    out
}

/// The lesson pages' addresses for the offline cache of `t`, relative to the site's root.
pub fn offline_files(t: Target) -> Vec<String> {
    match t {
        Target::Server => page_names().iter().map(|p| p.replacen('-', "/", 1)).collect(),
        Target::Site => LANGUAGES
            .iter()
            .flat_map(|(lang, _)| page_names().into_iter().map(move |p| Target::site_file(&p, lang)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lesson_has_a_page_in_every_language_with_its_words() {
        for (lang, _) in LANGUAGES {
            let index = index_html(Target::Server, lang);
            for (i, l) in lessons().lessons.iter().enumerate() {
                assert!(index.contains(&format!("href=\"/learn/{}?lang={lang}\"", l.id)), "{lang} {}", l.id);
                let page = lesson_html(Target::Site, lang, i);
                assert!(
                    page.contains(&crate::layout::escaped(&text(lang, &format!("{}_title", l.id)))),
                    "{lang} {}",
                    l.id
                );
                assert!(page.contains("src=\"static/js/learn/lesson.js\""), "{lang}");
                assert!(page.contains(&format!("<html lang=\"{lang}\">")));
            }
        }
        let last = lesson_html(Target::Server, "fi", lessons().lessons.len() - 1);
        assert!(last.contains("href=\"/play?lang=fi\""), "the last lesson leads to the board");
    }

    #[tokio::test]
    async fn an_unknown_lesson_is_not_found() {
        let q = || Query(PageQuery::default());
        let found = lesson_page(Path("relay".into()), q(), HeaderMap::new()).await;
        assert_eq!(found.status(), StatusCode::OK);
        let missing = lesson_page(Path("chess".into()), q(), HeaderMap::new()).await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    }

    #[test]
    fn the_static_site_and_the_offline_cache_hold_every_lesson() {
        let n = lessons().lessons.len();
        assert_eq!(site_files().len(), LANGUAGES.len() * (n + 1));
        let server = offline_files(Target::Server);
        assert_eq!(server[0], "learn");
        assert!(server.contains(&format!("learn/{}", lessons().lessons[0].id)));
        assert!(offline_files(Target::Site).contains(&"learn-bn.html".to_string()));
    }
}
