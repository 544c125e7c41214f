//! Language negotiation and the words of the pages: `ui.json` (the interface) and
//! `catalogue.json` (the games' names and facts), in the four languages of the site.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use axum::http::{header, HeaderMap};
use serde_json::Value;

use crate::assets::Assets;

/// The languages of the site, with their names in themselves.
pub const LANGUAGES: [(&str, &str); 4] = [("en", "English"), ("fi", "Suomi"), ("da", "Dansk"), ("bn", "বাংলা")];

/// An embedded JSON file of the site's content.
pub(crate) fn load_json(path: &str) -> Value {
    let file = Assets::get(path).unwrap_or_else(|| panic!("embedded {path} is missing"));
    serde_json::from_slice(&file.data).unwrap_or_else(|e| panic!("embedded {path} is not valid JSON: {e}"))
}

pub(crate) fn ui() -> &'static Value {
    static UI: OnceLock<Value> = OnceLock::new();
    UI.get_or_init(|| load_json("content/ui.json"))
}

pub(crate) fn catalogue() -> &'static Value {
    static CAT: OnceLock<Value> = OnceLock::new();
    CAT.get_or_init(|| load_json("content/catalogue.json"))
}

/// A word of the page in `lang`, falling back to English.
pub fn word(lang: &str, key: &str) -> String {
    ui()[lang][key].as_str().or_else(|| ui()["en"][key].as_str()).unwrap_or(key).to_string()
}

/// A fact of `game` from the catalogue in `lang`, falling back to English.
pub(crate) fn cat(lang: &str, game: &str, key: &str) -> String {
    catalogue()[lang][game][key].as_str().or_else(|| catalogue()["en"][game][key].as_str()).unwrap_or(key).to_string()
}

/// The games' names in `lang` as JSON, for the scripts of pages that show either game.
pub(crate) fn game_names_json(lang: &str) -> String {
    serde_json::json!({"tsoro": cat(lang, "tsoro", "name"), "nsolo": cat(lang, "nsolo", "name")}).to_string()
}

/// Puts `value` in place of `{key}` in a word.
pub(crate) fn fill(template: &str, key: &str, value: &str) -> String {
    template.replace(&format!("{{{key}}}"), value)
}

/// The language list and words, for other pages (the online page) that want them.
pub fn words(lang: &str) -> BTreeMap<String, String> {
    ui()[lang]
        .as_object()
        .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
        .unwrap_or_default()
}

/// The query of a page: language, and the variant where it matters.
#[derive(Debug, Default, serde::Deserialize)]
pub struct PageQuery {
    pub(crate) lang: Option<String>,
    pub(crate) game: Option<String>,
    pub(crate) size: Option<String>,
    pub(crate) heads: Option<String>,
    pub(crate) bonus: Option<String>,
    pub(crate) ruleset: Option<String>,
    pub(crate) position: Option<String>,
}

/// Picks the language: `?lang=`, then the `lang` cookie, then Accept-Language, then English.
pub(crate) fn language(q: &PageQuery, headers: &HeaderMap) -> (&'static str, bool) {
    let known = |s: &str| LANGUAGES.iter().map(|(c, _)| *c).find(|c| *c == s.trim());
    if let Some(l) = q.lang.as_deref().and_then(known) {
        return (l, true);
    }
    let cookie = headers.get(header::COOKIE).and_then(|v| v.to_str().ok()).unwrap_or("");
    for part in cookie.split(';') {
        if let Some(l) = part.trim().strip_prefix("lang=").and_then(known) {
            return (l, false);
        }
    }
    let accept = headers.get(header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok()).unwrap_or("");
    for part in accept.split(',') {
        let tag = part.split(';').next().unwrap_or("").trim();
        if let Some(l) = known(tag.split('-').next().unwrap_or("")) {
            return (l, false);
        }
    }
    ("en", false)
}
