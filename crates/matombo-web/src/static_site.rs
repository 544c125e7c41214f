//! The site as static files (`matombo site DIR`): the catalogue, the rules, the board, the review and the lessons
//! in every language, the engine and the offline worker, with relative links, for any static
//! file server. Online play needs the server and is not part of it.

use std::path::Path;

use matombo_core::{GameKind, Position, Ruleset};

/// A game's ruleset at its default size (Tsoro with two heads and two bonus holes).
fn default_ruleset(kind: GameKind) -> Ruleset {
    match kind {
        GameKind::Tsoro => Ruleset::tsoro(kind.default_size(), 2, 2),
        GameKind::Nsolo => Ruleset::nsolo(kind.default_size()),
    }
    .expect("the default sizes are valid")
}

use crate::assets::Assets;
use crate::offline;
use crate::pages::{self, Target, LANGUAGES};

/// Every file of the static site: its path (with `/`) and its bytes.
pub fn files() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (lang, _) in LANGUAGES {
        out.push((Target::site_file("index", lang), pages::catalogue_html(Target::Site, lang).into_bytes()));
        for kind in [GameKind::Tsoro, GameKind::Nsolo] {
            let ruleset = default_ruleset(kind);
            let html = pages::rules_html(Target::Site, lang, kind, ruleset).expect("every language has the rules");
            out.push((Target::site_file(&format!("rules-{}", kind.name()), lang), html.into_bytes()));
        }
        // One board page; its script takes the start from the address (`?ruleset=`).
        let start = Position::start(default_ruleset(GameKind::Tsoro));
        out.push((Target::site_file("play", lang), pages::play_html(Target::Site, lang, &start).into_bytes()));
        // The review page takes its game from the address or a record, like the board.
        out.push((Target::site_file("review", lang), pages::review_html(Target::Site, lang).into_bytes()));
    }
    out.extend(crate::learn::site_files());
    out.extend(crate::puzzles::site_files());
    for f in crate::assets::page_files() {
        let data = Assets::get(&f).expect("listed file exists").data.into_owned();
        out.push((format!("static/{f}"), data));
    }
    out.push(("manifest.webmanifest".into(), offline::manifest(Target::Site).into_bytes()));
    out.push(("sw.js".into(), offline::service_worker(Target::Site).into_bytes()));
    out
}

/// Writes the site into `dir` (which must exist); answers the number of files written.
pub fn write(dir: &Path) -> std::io::Result<usize> {
    let files = files();
    for (name, data) in &files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, data)?;
    }
    Ok(files.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_review_page_is_in_every_language_and_cached_offline() {
        let files = files();
        let text = |name: &str| {
            let (_, data) = files.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} missing"));
            String::from_utf8(data.clone()).unwrap()
        };
        for (lang, _) in LANGUAGES {
            let page = text(&Target::site_file("review", lang));
            assert!(page.contains("src=\"static/js/review.js\""), "{lang}");
            // No server in a static site: no online game to fetch.
            assert!(!page.contains("id=\"online-id\""), "{lang}");
            assert!(text(&Target::site_file("play", lang))
                .contains(&format!("href=\"{}\"", Target::site_file("review", lang))));
        }
        let sw = text("sw.js");
        assert!(sw.contains("\"review-da.html\"") && sw.contains("\"static/js/review.js\""));
    }
}
