//! The HTML pages of the site, each drawn from its askama template (`templates/`, escaped by
//! default) inside the shared layout (`layout.rs`, `templates/base.html`), in the language
//! `words.rs` picks: the catalogue, the rules, the board, the review and the online pages.
//! The board itself is drawn by `board.js`.

mod catalogue;
mod online;
mod play;
mod review;
mod rules;
mod variant;

pub use crate::layout::Target;
pub use crate::words::{word, words, PageQuery, LANGUAGES};
pub use catalogue::{catalogue_html, catalogue_page};
pub use online::{
    online_archive_html, online_game_html, online_leaderboard_html, online_lobby_html, online_page, online_player_html,
};
pub use play::{play_html, play_page};
pub use review::{review_html, review_page};
pub use rules::{rules_html, rules_page};

/// Percent-encodes a query value.
pub fn url_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
