//! Every error path of the JSON API (`/api/*`) and of online play's HTTP routes, through a
//! whole server: each answers its status with the one error body of docs/api.md,
//! `{"error": "<code>", "message": "<sentence>"}`, its code from the closed list.

use std::net::SocketAddr;
use std::time::Duration;

use matombo_api::{ErrorBody, ErrorCode, MAX_ERROR_CHARS};
use matombo_web::limits::ServerLimits;
use matombo_web::online::Limits;
use serde_json::{json, Value};

mod common;

/// A whole server, as `matombo serve` runs it; one unfinished game per address.
async fn start(name: &str, limits: ServerLimits) -> SocketAddr {
    let online = Limits { rooms_per_addr: 1, ..Limits::default() };
    common::start_server(&common::temp_db("error-shape", name), online, limits).await
}

async fn send(req: reqwest::RequestBuilder) -> (u16, String) {
    let r = req.send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

fn post(addr: SocketAddr, path: &str, body: impl Into<String>) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(format!("http://{addr}{path}"))
        .header("content-type", "application/json")
        .body(body.into())
}

fn get(addr: SocketAddr, path: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new().get(format!("http://{addr}{path}"))
}

/// Checks an error answer: its status, and a body of exactly the documented shape with
/// the expected code and a short, non-empty message.
fn check(what: &str, (status, text): (u16, String), want_status: u16, want: ErrorCode) {
    assert_eq!(status, want_status, "{what}: {text}");
    let body: ErrorBody =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: not the error body ({e}): {text}"));
    assert_eq!(body.error, want, "{what}: {text}");
    assert!(!body.message.is_empty(), "{what}: {text}");
    assert!(body.message.chars().count() <= MAX_ERROR_CHARS + 1, "{what}: message not cut: {text}");
    // Exactly two fields: nothing else leaks into the body.
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 2, "{what}: {text}");
}

#[tokio::test]
async fn every_error_of_the_json_api_has_the_documented_shape() {
    use ErrorCode::*;
    let addr = start("api", ServerLimits::default()).await;
    let over: Vec<String> = common::finished_game(3).moves().iter().map(|t| t.to_string()).collect();
    let game = |body: Value| post(addr, "/api/game", body.to_string());
    let cases: Vec<(&str, reqwest::RequestBuilder, u16, ErrorCode)> = vec![
        ("not JSON", post(addr, "/api/game", "{not json"), 400, Malformed),
        ("unknown field", game(json!({"start": "tsoro:8", "colour": "red"})), 400, Malformed),
        ("bad start", game(json!({"start": "tsoro:5"})), 400, BadPosition),
        ("bad token", game(json!({"start": "tsoro:8", "moves": ["Q9"]})), 400, BadMove),
        ("bad decision", game(json!({"start": "tsoro:8", "apply": ["fly B2"]})), 400, BadDecision),
        ("bad side", game(json!({"start": "tsoro:8", "resigned": "W"})), 400, InvalidField),
        ("illegal turn", game(json!({"start": "tsoro:8", "apply": ["sow A1"]})), 422, Illegal),
        ("resign out of turn", game(json!({"start": "tsoro:8", "resigned": "N"})), 422, Illegal),
        ("after the end", game(json!({"start": "tsoro:6", "moves": over, "apply": ["sow B1"]})), 422, GameOver),
        ("long input", game(json!({"start": "x".repeat(100_000)})), 400, BadPosition),
        ("too long a game", game(json!({"start": "tsoro:8", "moves": vec!["B2"; 2001]})), 400, InvalidField),
        ("too large", game(json!({"start": "tsoro:8", "moves": ["x".repeat(200_000)]})), 413, TooLarge),
        (
            "unknown level",
            post(addr, "/api/ai", json!({"start": "tsoro:8", "level": "godlike"}).to_string()),
            400,
            Malformed,
        ),
        (
            "AI after the end",
            post(addr, "/api/ai", json!({"start": "tsoro:6", "moves": over}).to_string()),
            422,
            GameOver,
        ),
        (
            "bad tag",
            post(addr, "/api/record/export", json!({"start": "tsoro:8", "tags": {"a b": "x"}}).to_string()),
            400,
            Malformed,
        ),
        ("bad record", post(addr, "/api/record/import", json!({"text": "1. Q9 *"}).to_string()), 400, Malformed),
        (
            "foreign origin",
            post(addr, "/api/game", "{}").header("origin", "https://evil.example"),
            403,
            ForbiddenOrigin,
        ),
        ("no such route", get(addr, "/api/nope"), 404, NotFound),
        ("no such route, posted", post(addr, "/api/nope", "{}"), 404, NotFound),
        ("a GET of a POST route", get(addr, "/api/game"), 405, MethodNotAllowed),
        ("a POST of a GET route", post(addr, "/api/rulesets", "{}"), 405, MethodNotAllowed),
        (
            "not JSON content",
            reqwest::Client::new().post(format!("http://{addr}/api/game")).body("{}"),
            415,
            ContentType,
        ),
    ];
    for (what, req, status, code) in cases {
        check(what, send(req).await, status, code);
    }
}

#[tokio::test]
async fn a_second_search_and_a_slow_request_have_the_documented_shape() {
    let addr = start("busy", ServerLimits { request: Duration::from_millis(800), ..ServerLimits::default() }).await;
    // One search at a time per client: the second is refused while the first runs.
    let first = tokio::spawn(send(post(addr, "/api/ai", json!({"start": "tsoro:8", "level": "max"}).to_string())));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let r = post(addr, "/api/ai", json!({"start": "tsoro:8", "level": "easy"}).to_string()).send().await.unwrap();
    assert_eq!(r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string()), Some("1".into()));
    let answer = (r.status().as_u16(), r.text().await.unwrap());
    check("second search", answer, 429, ErrorCode::RateLimited);
    first.abort();
    // A body that never arrives: the request timeout answers.
    let mut s = common::unfinished_post(addr).await;
    let answer = common::answer_within(&mut s, Duration::from_secs(5)).await;
    let status: u16 = answer.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    check("slow body", (status, body), 408, ErrorCode::Timeout);
}

#[tokio::test]
async fn every_error_of_online_play_over_http_has_the_documented_shape() {
    use ErrorCode::*;
    let addr = start("online", ServerLimits::default()).await;
    let rooms = |body: Value| post(addr, "/api/online/rooms", body.to_string());
    // A game whose second seat is then taken.
    let (st, text) = send(rooms(json!({"ruleset": "tsoro:8", "side": "south"}))).await;
    assert_eq!(st, 201, "{text}");
    let created: Value = serde_json::from_str(&text).unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let invite = created["invite"].as_str().unwrap().to_string();
    let claim = |body: Value| post(addr, &format!("/api/online/rooms/{id}/claim"), body.to_string());
    let (st, text) = send(claim(json!({"invite": invite}))).await;
    assert_eq!(st, 200, "{text}");
    let cases: Vec<(&str, reqwest::RequestBuilder, u16, ErrorCode)> = vec![
        ("not JSON", post(addr, "/api/online/rooms", "{not json"), 400, Malformed),
        ("bad ruleset", rooms(json!({"ruleset": "tsoro:5"})), 400, BadRuleset),
        ("bad side", rooms(json!({"ruleset": "tsoro:8", "side": "east"})), 400, InvalidField),
        (
            "bad clock",
            rooms(json!({"ruleset": "tsoro:8", "clock": {"initial_ms": 1, "increment_ms": 0}})),
            400,
            InvalidField,
        ),
        ("long name", rooms(json!({"ruleset": "tsoro:8", "name": "n".repeat(41)})), 400, InvalidField),
        ("second unfinished game", rooms(json!({"ruleset": "tsoro:8"})), 429, TooManyRooms),
        ("claim, not JSON", post(addr, &format!("/api/online/rooms/{id}/claim"), "[]"), 400, Malformed),
        ("wrong invitation", claim(json!({"invite": "nope"})), 403, BadInvite),
        ("seats taken", claim(json!({"invite": invite})), 409, SeatsTaken),
        ("claim, no such game", post(addr, "/api/online/rooms/zzz/claim", r#"{"invite":"x"}"#), 404, NotFound),
        ("no such game", get(addr, "/api/online/rooms/zzzzzzzz"), 404, NotFound),
        ("not an id", get(addr, &format!("/api/online/rooms/{}", "a".repeat(40))), 404, NotFound),
        ("no such record", get(addr, "/api/online/rooms/zzzzzzzz/record"), 404, NotFound),
        // A socket for no such game is opened, told `not_found` and closed with code 4404, so
        // that a browser can read it (tests/online_lobby.rs, a_wrong_room_says_no_such_game).
        ("socket without upgrade", get(addr, &format!("/api/online/rooms/{id}/ws")), 400, Malformed),
        (
            "foreign origin",
            rooms(json!({"ruleset": "tsoro:8"})).header("origin", "https://evil.example"),
            403,
            ForbiddenOrigin,
        ),
        ("no such route", get(addr, "/api/online/nope"), 404, NotFound),
        ("a GET of a POST route", get(addr, "/api/online/rooms"), 405, MethodNotAllowed),
        // The page builds turns with its own engine; the server's twin route is gone.
        ("the removed decisions route", post(addr, "/api/online/decisions", "{}"), 404, NotFound),
        ("a POST of a GET route", post(addr, "/api/online/archive", "{}"), 405, MethodNotAllowed),
        (
            "a DELETE",
            reqwest::Client::new()
                .delete(format!("http://{addr}/api/online/rooms/{id}"))
                .header("content-type", "application/json"),
            405,
            MethodNotAllowed,
        ),
    ];
    for (what, req, status, code) in cases {
        check(what, send(req).await, status, code);
    }
    // A refused method says which it takes.
    let r = get(addr, "/api/online/rooms").send().await.unwrap();
    assert_eq!(r.headers().get("allow").map(|v| v.to_str().unwrap().to_string()), Some("POST".into()));
}

#[test]
fn the_codes_are_the_documented_list() {
    // docs/api.md lists every code, each once, in this order.
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/api.md")).unwrap();
    let section = doc.split("<!-- error codes -->").nth(1).expect("docs/api.md: the list of error codes");
    let listed: Vec<&str> = section
        .lines()
        .take_while(|l| !l.starts_with("<!--"))
        .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
        .collect();
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(listed, codes);
    for c in ErrorCode::ALL {
        assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
    }
}
