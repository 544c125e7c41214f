//! The online pages (lobby, room, archive, leaderboard, player) are the site's pages: its
//! header, its language switch and the chosen language's words, whatever the address.

mod common;

use common::{start_server, temp_db};
use matombo_web::limits::ServerLimits;
use matombo_web::online::Limits;

async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, Option<String>, String) {
    let r = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
    let status = r.status().as_u16();
    let cookie = r.headers().get("set-cookie").map(|v| v.to_str().unwrap().to_string());
    (status, cookie, r.text().await.unwrap())
}

#[tokio::test]
async fn online_pages_have_the_site_header_and_language_switch() {
    let addr = start_server(&temp_db("online_pages", "header"), Limits::default(), ServerLimits::default()).await;
    let words: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/content/ui.json")).unwrap(),
    )
    .unwrap();
    for (path, script) in [
        ("/online/", "online/lobby.js"),
        ("/online", "online/lobby.js"),
        ("/online/game/abc123", "online/game.js"),
        ("/online/archive", "online/archive.js"),
        ("/online/leaderboard", "online/leaderboard.js"),
        ("/online/player", "online/player.js"),
    ] {
        for lang in ["en", "fi", "da", "bn"] {
            let sep = if path.contains('?') { '&' } else { '?' };
            let (status, cookie, html) = get(addr, &format!("{path}{sep}lang={lang}")).await;
            assert_eq!(status, 200, "{path} {lang}");
            assert!(html.contains(&format!("<html lang=\"{lang}\">")), "{path} in {lang}");
            assert!(html.contains("<header class=\"site\">"), "{path}: the site header");
            assert_eq!(html.matches("hreflang=").count(), 4, "{path}: the language switch");
            assert!(html.contains(&format!("/online/{}", script.trim_start_matches("online/"))), "{path}: {script}");
            assert!(cookie.is_some_and(|c| c.starts_with(&format!("lang={lang}"))), "{path}: the choice is kept");
            let online = words[lang]["online"].as_str().unwrap();
            assert!(html.contains(online), "{path} in {lang} says {online:?}");
        }
    }
    // The language switch of a room leads to the same room.
    let (_, _, html) = get(addr, "/online/game/abc123?lang=fi").await;
    assert!(html.contains("href=\"/online/game/abc123?lang=bn\""), "switch to Bengali in the room");
    assert!(html.contains("data-room=\"abc123\""));
}

#[tokio::test]
async fn a_malformed_room_address_is_a_room_page_that_finds_no_game() {
    let addr = start_server(&temp_db("online_pages", "malformed"), Limits::default(), ServerLimits::default()).await;
    for path in ["/online/game/%3Cscript%3E", "/online/game/a-b", &format!("/online/game/{}", "x".repeat(65))] {
        let (status, _, html) = get(addr, path).await;
        assert_eq!(status, 200, "{path}");
        assert!(html.contains("data-room=\"\""), "{path}: no room id taken from it");
        assert!(!html.contains("<script>"), "{path}");
    }
    // The API under /online is not a page.
    let (status, _, _) = get(addr, "/online/nonsense").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_other_pages_link_to_online_play() {
    let addr = start_server(&temp_db("online_pages", "links"), Limits::default(), ServerLimits::default()).await;
    for path in ["/", "/play", "/rules/tsoro", "/rules/nsolo?lang=bn"] {
        let (_, _, html) = get(addr, path).await;
        assert!(html.contains("id=\"nav-online\""), "{path} links to online play");
    }
}
