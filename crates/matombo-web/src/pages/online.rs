//! The online pages (lobby, game room, archive, leaderboard, player), routed by the online
//! router; their scripts under `assets/online/` fill them from the server.

use askama::Template;
use axum::extract::Query;
use axum::response::Response;

use crate::api::games;
use crate::layout::{render, respond, Layout, Target};
use crate::words::{cat, game_names_json, language, word, PageQuery};

/// Serves the online pages (lobby, game room, archive, leaderboard, player) from the
/// site's templates, in the visitor's language; routed by the online router.
pub async fn online_page(req: axum::extract::Request) -> Response {
    let path = req.uri().path().to_string();
    let rest = path.strip_prefix("/online").unwrap_or_default();
    let q = Query::<PageQuery>::try_from_uri(req.uri()).map(|Query(q)| q).unwrap_or_default();
    let (lang, set) = language(&q, req.headers());
    let html = match rest {
        "" | "/" => online_lobby_html(lang),
        "/archive" => online_archive_html(lang),
        "/leaderboard" => online_leaderboard_html(lang),
        "/player" => online_player_html(lang),
        _ => match rest.strip_prefix("/game/") {
            Some(id) if !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric()) => {
                online_game_html(lang, id)
            }
            // A malformed room address: the room page says there is no such game.
            _ => online_game_html(lang, ""),
        },
    };
    respond(lang, set, html)
}

/// The layout of an online page titled by the word `title`, with its script under `online/`.
fn online_layout(lang: &str, here: &str, title: &str, script: &str) -> Layout {
    let title = format!("{} – matombo", word(lang, title));
    Layout::new(Target::Server, lang, &title, "online-page", (here, ""), &format!("online/{script}.js"))
}

/// A game of the new-game form; its sizes go to the page's script, which fills the size list.
struct LobbyGame {
    game: &'static str,
    sizes: String,
    default: u8,
    name: String,
}

#[derive(Template)]
#[template(path = "online/lobby.html")]
struct Lobby {
    l: Layout,
    games: Vec<LobbyGame>,
    rated_rules: String,
}

/// The lobby: open challenges, games in progress, quick pairing, the new-game form and
/// the player's identity.
pub fn online_lobby_html(lang: &str) -> String {
    let games = games()
        .into_iter()
        .map(|g| LobbyGame {
            game: g.game,
            sizes: g.sizes.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(","),
            default: g.default_size,
            name: cat(lang, g.game, "name"),
        })
        .collect();
    // The numbers come from the server's rules, so that the page says what counts.
    let rated_rules = word(lang, "rated_rules")
        .replace("{turns}", &matombo_online::rating::MIN_TURNS_EACH.to_string())
        .replace("{games}", &matombo_online::rating::RATED_PER_PAIR_PER_DAY.to_string());
    render(&Lobby { l: online_layout(lang, "online", "online", "lobby"), games, rated_rules })
}

#[derive(Template)]
#[template(path = "online/game.html")]
struct Room<'a> {
    l: Layout,
    id: &'a str,
    names: String,
}

/// The game room of `id` (empty: a malformed address, which the page reports as no such
/// game). Its script asks the server for the room and draws it.
pub fn online_game_html(lang: &str, id: &str) -> String {
    let l = online_layout(lang, &format!("online-game/{id}"), "online_game", "game");
    render(&Room { l, id, names: game_names_json(lang) })
}

#[derive(Template)]
#[template(path = "online/archive.html")]
struct OnlineArchive<'a> {
    l: Layout,
    name: &'a str,
}

#[derive(Template)]
#[template(path = "online/leaderboard.html")]
struct OnlineLeaderboard<'a> {
    l: Layout,
    name: &'a str,
}

#[derive(Template)]
#[template(path = "online/player.html")]
struct OnlinePlayer<'a> {
    l: Layout,
    name: &'a str,
}

/// An online page that lists (archive, leaderboard, player): its box `name` and layout.
fn online_list(lang: &str, name: &str, title: &str) -> Layout {
    online_layout(lang, name, title, name.trim_start_matches("online-"))
}

/// Finished games, newest first.
pub fn online_archive_html(lang: &str) -> String {
    let name = "online-archive";
    render(&OnlineArchive { l: online_list(lang, name, "finished_games"), name })
}

/// The leaderboard of one rating group (chosen on the page).
pub fn online_leaderboard_html(lang: &str) -> String {
    let name = "online-leaderboard";
    render(&OnlineLeaderboard { l: online_list(lang, name, "leaderboard"), name })
}

/// A player's ratings and games (the visitor's own unless `?id=` names another player).
pub fn online_player_html(lang: &str) -> String {
    let name = "online-player";
    render(&OnlinePlayer { l: online_list(lang, name, "my_games"), name })
}
