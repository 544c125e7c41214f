//! The layout every page shares (`templates/base.html`: head, header, navigation, language
//! links, the words for the scripts), the links of a page for the server or a static site,
//! and the error page.

use askama::Template;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};

use crate::words::{ui, word, LANGUAGES};

/// Where a page's links lead: the server's routes, or the files of a static site written
/// by `matombo site` (flat files, relative links, one file per page and language).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `/`, `/rules/{game}`, `/play`, with `?lang=`; files under `/static/{version}/`.
    Server,
    /// `index.html`, `rules-tsoro-fi.html`, `play-da.html`; files under `static/`.
    Site,
}

impl Target {
    /// The file name of a page in a static site: English unsuffixed, the others `-{lang}`.
    pub fn site_file(page: &str, lang: &str) -> String {
        if lang == "en" {
            format!("{page}.html")
        } else {
            format!("{page}-{lang}.html")
        }
    }

    /// The address of the catalogue (`page` "index"), a rules page ("rules-tsoro") or the
    /// board ("play") in `lang`, with `query` (no `lang`, may be empty).
    pub fn href(self, page: &str, lang: &str, query: &str) -> String {
        match self {
            Target::Server => {
                let path = match page {
                    "index" => "/".to_string(),
                    p => format!("/{}", p.replacen('-', "/", 1)),
                };
                if query.is_empty() {
                    format!("{path}?lang={lang}")
                } else {
                    format!("{path}?{query}&lang={lang}")
                }
            }
            Target::Site => {
                let file = Target::site_file(page, lang);
                if query.is_empty() {
                    file
                } else {
                    format!("{file}?{query}")
                }
            }
        }
    }

    /// Where the site's files (CSS, scripts, engine, images) are.
    pub fn static_base(self) -> String {
        match self {
            Target::Server => format!("/static/{}", crate::assets::version()),
            Target::Site => "static".to_string(),
        }
    }

    /// The site's root (manifest, service worker) as seen from a page.
    fn root(self) -> &'static str {
        match self {
            Target::Server => "/",
            Target::Site => "",
        }
    }
}

/// An `<option>` of a list: its value, what it shows, and whether it is chosen.
pub(crate) struct Choice {
    pub(crate) value: String,
    pub(crate) label: String,
    pub(crate) selected: bool,
}

impl Choice {
    pub(crate) fn new(value: impl ToString, label: String, selected: bool) -> Self {
        Choice { value: value.to_string(), label, selected }
    }
}

/// A link of the language switch.
pub(crate) struct LangLink {
    pub(crate) code: &'static str,
    pub(crate) name: &'static str,
    pub(crate) href: String,
    pub(crate) current: bool,
}

/// What the shared layout shows around a page's `main`; every page template has it as `l`.
pub(crate) struct Layout {
    pub(crate) t: Target,
    pub(crate) lang: String,
    pub(crate) title: String,
    pub(crate) body_class: String,
    pub(crate) st: String,
    pub(crate) root: &'static str,
    pub(crate) home: String,
    pub(crate) tsoro: String,
    pub(crate) nsolo: String,
    pub(crate) learn: String,
    pub(crate) learn_word: String,
    pub(crate) puzzles: String,
    pub(crate) puzzles_word: String,
    /// The online page's link and word: online play needs the server, a static site has none.
    pub(crate) online: Option<(String, String)>,
    pub(crate) language: String,
    pub(crate) switch: Vec<LangLink>,
    /// The page's words for its scripts, as JSON safe inside a `<script>` element.
    pub(crate) ui_json: String,
    pub(crate) script: Option<String>,
}

impl Layout {
    /// The layout of a page. `here` is the page ("index", "rules-tsoro", "play") and its query
    /// (without `lang`), for the language switch; `script` is the page's module under `js/`
    /// (or, with a `/`, under the static root: the online pages' `online/game.js`).
    pub(crate) fn new(t: Target, lang: &str, title: &str, body_class: &str, here: (&str, &str), script: &str) -> Self {
        let st = t.static_base();
        Layout {
            t,
            lang: lang.to_string(),
            title: title.to_string(),
            body_class: body_class.to_string(),
            root: t.root(),
            home: t.href("index", lang, ""),
            tsoro: t.href("rules-tsoro", lang, ""),
            nsolo: t.href("rules-nsolo", lang, ""),
            learn: t.href("learn", lang, ""),
            learn_word: word(lang, "learn"),
            puzzles: t.href("puzzles", lang, ""),
            puzzles_word: word(lang, "puzzles"),
            online: match t {
                Target::Server => Some((t.href("online", lang, ""), word(lang, "online"))),
                Target::Site => None,
            },
            language: word(lang, "language"),
            switch: LANGUAGES
                .iter()
                .map(|&(code, name)| LangLink { code, name, href: t.href(here.0, code, here.1), current: code == lang })
                .collect(),
            ui_json: script_json(&ui()[lang]),
            script: match script {
                "" => None,
                s if s.contains('/') => Some(format!("{st}/{s}")),
                s => Some(format!("{st}/js/{s}")),
            },
            st,
        }
    }
}

impl Layout {
    /// A word of the page's language (templates escape it).
    pub(crate) fn w(&self, key: &str) -> String {
        word(&self.lang, key)
    }

    /// The address of another page in the page's language; see [`Target::href`].
    pub(crate) fn href(&self, page: &str, query: &str) -> String {
        self.t.href(page, &self.lang, query)
    }
}

/// JSON for a `<script type="application/json">` element: `</` cannot close the element.
pub(crate) fn script_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("JSON serializes").replace("</", "<\\/")
}

/// `text` as the templates print it, for tests that look for a word in a page.
#[cfg(test)]
pub(crate) fn escaped(text: &str) -> String {
    askama::filters::escape(text, askama::filters::Html).expect("escaping cannot fail").to_string()
}

/// Renders a page's template; the templates only print, so this cannot fail but on a bug.
pub(crate) fn render(page: &impl Template) -> String {
    page.render().expect("a page template renders")
}

/// A page as an HTTP response; `set_cookie` remembers the language asked for.
pub(crate) fn respond(lang: &str, set_cookie: bool, html: String) -> Response {
    let mut resp = Html(html).into_response();
    if set_cookie {
        let cookie = format!("lang={lang}; Path=/; Max-Age=31536000; SameSite=Lax");
        resp.headers_mut().insert(header::SET_COOKIE, cookie.parse().expect("valid cookie"));
    }
    resp
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    l: Layout,
    status: u16,
    message: &'a str,
}

/// The error page: the status and what went wrong, in the layout of the site.
pub(crate) fn error_page(lang: &str, status: StatusCode, message: &str) -> Response {
    let l = Layout::new(Target::Server, lang, "matombo", "error", ("index", ""), "");
    let mut r = respond(lang, false, render(&ErrorPage { l, status: status.as_u16(), message }));
    *r.status_mut() = status;
    r
}
