//! The board's JSON API and pages, through the router (no network).

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use matombo_core::{Decision, Game, Position, Ruleset};
use matombo_web::api::{self, GameRequest};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tower::ServiceExt;

mod common;

async fn call(method: &str, uri: &str, body: Option<String>) -> (StatusCode, String) {
    let req = Request::builder().method(method).uri(uri).header("content-type", "application/json");
    let req = req.body(body.map_or(Body::empty(), Body::from)).unwrap();
    let resp = matombo_web::site().oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(bytes.to_vec()).unwrap())
}

async fn post(uri: &str, body: Value) -> (StatusCode, Value) {
    let (status, text) = call("POST", uri, Some(body.to_string())).await;
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("{uri}: not JSON ({e}): {text}")))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn start_state_matches_the_engine() {
    let (status, s) = post("/api/game", json!({"start": "tsoro:8"})).await;
    assert_eq!(status, StatusCode::OK, "{s}");
    let start = Position::start("tsoro:8".parse().unwrap());
    assert_eq!(s["position"], start.to_string());
    assert_eq!(s["phase"], "start");
    assert_eq!(s["to_move"], "south");
    for (row, side, kind) in [
        ("B", matombo_core::Side::South, matombo_core::Row::Outer),
        ("a", matombo_core::Side::North, matombo_core::Row::Inner),
    ] {
        let want: Vec<u16> = (1..=8).map(|k| start.count(matombo_core::Hole::new(side, kind, k))).collect();
        let got: Vec<u16> = serde_json::from_value(s["rows"][row].clone()).unwrap();
        assert_eq!(got, want, "row {row}");
    }
    let legal: Vec<String> = start.begin_turn().decisions().iter().map(|d| d.to_string()).collect();
    assert_eq!(strings(&s["legal"]), legal);
    assert_eq!(s["clickable"].as_array().unwrap().len(), legal.len());
}

#[tokio::test]
async fn a_head_choice_then_stop_gives_the_engine_turn() {
    let (status, s) = post("/api/game", json!({"start": "tsoro:8", "apply": ["sow B2"]})).await;
    assert_eq!(status, StatusCode::OK, "{s}");
    assert_eq!(s["phase"], "head");
    assert_eq!(s["head"], "B7");
    assert_eq!(strings(&s["legal"]), ["continue", "stop"]);
    assert_eq!(strings(&s["pending"]), ["sow B2"]);
    assert!(s["events"].as_array().unwrap().iter().any(|e| e["type"] == "lap" && e["from"] == "B2"));
    let (status, s) = post("/api/game", json!({"start": "tsoro:8", "pending": ["sow B2"], "apply": ["stop"]})).await;
    assert_eq!(status, StatusCode::OK, "{s}");
    let start = Position::start("tsoro:8".parse().unwrap());
    let after = start.play(&"B2=".parse().unwrap()).unwrap();
    assert_eq!(strings(&s["moves"]), ["B2="]);
    assert_eq!(strings(&s["played"]), ["B2="]);
    assert_eq!(s["position"], after.to_string());
    assert_eq!(s["to_move"], "north");
    assert!(s["pending"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn illegal_and_malformed_requests_are_refused_with_a_message() {
    let cases = [
        (json!({"start": "tsoro:8", "apply": ["sow A1"]}), StatusCode::UNPROCESSABLE_ENTITY, "not legal"),
        (json!({"start": "tsoro:8", "apply": ["sow b2"]}), StatusCode::UNPROCESSABLE_ENTITY, "not legal"),
        (json!({"start": "tsoro:8", "moves": ["B2"]}), StatusCode::UNPROCESSABLE_ENTITY, "head"),
        (
            json!({"start": "tsoro:8", "token": "B2+", "pending": ["sow B2"]}),
            StatusCode::BAD_REQUEST,
            "start of a turn",
        ),
        (json!({"start": "tsoro:8", "apply": ["fly B2"]}), StatusCode::BAD_REQUEST, "not a decision"),
        (json!({"start": "tsoro:99"}), StatusCode::BAD_REQUEST, "bad start position"),
        (json!({"start": "tsoro:8 2*8/0*8/0*8/2*7,3 S"}), StatusCode::BAD_REQUEST, "33 stones"),
        (json!({"start": "tsoro:8", "moves": ["Q9"]}), StatusCode::BAD_REQUEST, "bad turn token"),
        (json!({"start": "tsoro:8", "resigned": "N"}), StatusCode::UNPROCESSABLE_ENTITY, "own turn"),
        (json!({"start": "tsoro:8", "colour": "red"}), StatusCode::BAD_REQUEST, "unknown field"),
        (json!({"moves": []}), StatusCode::BAD_REQUEST, "missing field"),
    ];
    for (body, status, needle) in cases {
        let (got, v) = post("/api/game", body.clone()).await;
        assert_eq!(got, status, "{body}: {v}");
        let msg = v["message"].as_str().unwrap();
        assert!(msg.contains(needle), "{body}: {msg}");
    }
    let (status, text) = call("POST", "/api/game", Some("{not json".into())).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(text.contains("malformed request body"), "{text}");
}

/// Plays random games on every ruleset one decision at a time through the API and checks
/// every turn against the engine's turn builder, bonus picks in any order (rows, legal
/// decisions, tokens, outcome).
#[test]
fn every_ruleset_plays_through_the_api_as_the_engine_does() {
    let mut rng = SmallRng::seed_from_u64(7);
    let mut rulesets = 0;
    for ruleset in Ruleset::all() {
        rulesets += 1;
        let start = Position::start(ruleset);
        let mut game = Game::new(start.clone());
        let mut moves: Vec<String> = Vec::new();
        for _ in 0..12 {
            if game.is_over() {
                break;
            }
            let mut turn = game.position().build_turn();
            let mut pending: Vec<String> = Vec::new();
            while !turn.is_complete() {
                let legal = turn.decisions();
                let req = GameRequest {
                    start: ruleset.to_string(),
                    moves: moves.clone(),
                    pending: pending.clone(),
                    ..GameRequest::default()
                };
                let s = api::game(&req).unwrap_or_else(|e| panic!("{ruleset}: {e:?}"));
                let want: Vec<String> = legal.iter().map(|d| d.to_string()).collect();
                assert_eq!(s.legal, want, "{ruleset} after {moves:?} {pending:?}");
                let d: Decision = legal[rng.random_range(0..legal.len())];
                turn.apply(d).unwrap();
                pending.push(d.to_string());
            }
            let token = turn.token().unwrap();
            let last = pending.pop().unwrap();
            let s = api::game(&GameRequest {
                start: ruleset.to_string(),
                moves: moves.clone(),
                pending,
                apply: vec![last],
                ..GameRequest::default()
            })
            .unwrap();
            game.play(&token).unwrap();
            moves.push(token.to_string());
            assert_eq!(s.moves, moves, "{ruleset}");
            assert_eq!(s.position, game.position().to_string(), "{ruleset}");
            assert_eq!(s.outcome.is_some(), game.is_over(), "{ruleset}");
            let total: u32 =
                [&s.rows.b, &s.rows.a, &s.rows.A, &s.rows.B].iter().flat_map(|r| r.iter()).map(|&c| c as u32).sum();
            assert_eq!(total, game.position().total_stones(), "{ruleset}");
        }
    }
    assert!(rulesets > 200, "only {rulesets} rulesets");
}

#[tokio::test]
async fn nsolo_bonus_counts_down_stone_by_stone() {
    // From the standard start, B1 ends in A8 facing a1 (2 stones): two more stones to take.
    let (status, s) = post("/api/game", json!({"start": "nsolo", "apply": ["sow B1"]})).await;
    assert_eq!(status, StatusCode::OK, "{s}");
    assert_eq!(s["phase"], "bonus");
    assert_eq!(s["left"], 2);
    assert!(s["events"].as_array().unwrap().iter().any(|e| e["type"] == "capture" && e["hole"] == "a1"));
    let (_, s) = post("/api/game", json!({"start": "nsolo", "pending": ["sow B1"], "apply": ["take b3"]})).await;
    assert_eq!(s["left"], 1);
    assert_eq!(s["partial"], "B1xb3");
    let (_, s) =
        post("/api/game", json!({"start": "nsolo", "pending": ["sow B1", "take b3"], "apply": ["take b3"]})).await;
    assert_eq!(strings(&s["moves"]), ["B1xb3:2"]);
    assert_eq!(s["lost"]["north"], 4);
    assert_eq!(s["lost"]["south"], 0);
}

#[tokio::test]
async fn bonus_picks_in_any_order_and_taken_back() {
    // South's B1 captures a1's two stones: two more, the later hole in canonical order first.
    let (_, s) = post("/api/game", json!({"start": "nsolo", "pending": ["sow B1"], "apply": ["take a7"]})).await;
    assert_eq!(s["left"], 1);
    assert_eq!(strings(&s["picks"]), ["a7"]);
    assert_eq!(s["partial"], "B1xa7");
    assert!(strings(&s["clickable"]).contains(&"b3".to_string()), "{s}");
    let (_, done) =
        post("/api/game", json!({"start": "nsolo", "pending": ["sow B1", "take a7"], "apply": ["take b3"]})).await;
    assert_eq!(strings(&done["moves"]), ["B1xb3xa7"]);
    // Taking a pick back is sending the decisions without it.
    let (_, back) = post("/api/game", json!({"start": "nsolo", "pending": ["sow B1"]})).await;
    assert_eq!(back["left"], 2);
    assert!(strings(&back["picks"]).is_empty());
    // A hole with nothing left to take is refused and changes nothing.
    let (status, e) = post("/api/game", json!({"start": "nsolo", "pending": ["sow B1"], "apply": ["take a8"]})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    // Each lap carries the holes it sowed into.
    let (_, s) = post("/api/game", json!({"start": "tsoro:8", "apply": ["sow B7"]})).await;
    assert_eq!(strings(&s["events"][0]["path"]), ["B8", "A8"]);
}

#[tokio::test]
async fn rulesets_and_positions_are_read_and_written() {
    let (status, r) = post("/api/ruleset", json!({"game": "tsoro", "size": 8, "heads": 2, "bonus": 3})).await;
    assert_eq!(status, StatusCode::OK, "{r}");
    assert_eq!(r["name"], "tsoro:8,bonus=3");
    let (status, e) = post("/api/ruleset", json!({"game": "tsoro", "size": 40})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{e}");
    assert_eq!(e["error"], "bad_ruleset");
    let (_, p) = post("/api/setup", json!({"text": "nsolo:8 2*8/0,2*7/2*7,0/2*8 N"})).await;
    assert_eq!(p["side"], "north");
    assert_eq!(p["position"], "nsolo:8 2*8/0,2*7/2*7,0/2*8 N");
    let grid = json!([[2, 2, 2, 2, 2, 2], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [2, 2, 2, 2, 2, 3]]);
    let (_, w) = post("/api/setup", json!({"ruleset": "tsoro:6", "grid": grid, "side": "S"})).await;
    assert_eq!(w["text"], "tsoro:6 2*6/0*6/0*6/2*5,3 S");
    assert!(w["position"].is_null());
    assert!(w["problem"].as_str().unwrap().contains("25"), "{w}");
}

#[tokio::test]
async fn a_whole_token_reports_its_events_and_the_game_can_be_resigned() {
    let (status, s) = post("/api/game", json!({"start": "tsoro:8", "token": "B2+"})).await;
    assert_eq!(status, StatusCode::OK, "{s}");
    let laps = s["events"].as_array().unwrap().iter().filter(|e| e["type"] == "lap").count();
    assert!(laps >= 2, "{s}");
    let (status, s) = post("/api/game", json!({"start": "tsoro:8", "moves": ["B2+"], "resigned": "N"})).await;
    assert_eq!(status, StatusCode::OK, "{s}");
    assert_eq!(s["phase"], "over");
    assert_eq!(s["outcome"]["winner"], "south");
    assert_eq!(s["outcome"]["termination"], "resignation");
    let (status, v) =
        post("/api/game", json!({"start": "tsoro:8", "moves": ["B2+"], "resigned": "N", "apply": ["sow b2"]})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
}

#[tokio::test]
async fn a_finished_game_reports_its_outcome_and_refuses_more_turns() {
    let game = common::finished_game(3);
    let moves: Vec<String> = game.moves().iter().map(|t| t.to_string()).collect();
    let outcome = game.outcome().expect("a finished game has its outcome");
    let (status, s) = post("/api/game", json!({"start": "tsoro:6", "moves": moves})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(s["phase"], "over");
    assert_eq!(s["outcome"]["result"], outcome.result());
    assert!(s["legal"].as_array().unwrap().is_empty());
    let (status, v) = post("/api/game", json!({"start": "tsoro:6", "moves": moves, "apply": ["sow B1"]})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(v["message"].as_str().unwrap().contains("over"), "{v}");
}

#[tokio::test]
async fn records_round_trip_and_bad_records_are_refused() {
    // Three turns of the engine's own choosing (the last legal turn each time).
    let mut p = Position::start("tsoro:8".parse().unwrap());
    let mut moves = Vec::new();
    for _ in 0..3 {
        let (t, next) = p.turns().last().unwrap();
        moves.push(t.to_string());
        p = next;
    }
    // A position other than the standard start, North to move.
    let start = "tsoro:8 2*8/0*8/0*8/2*8 N";
    let (status, v) = post(
        "/api/record/export",
        json!({"start": start, "moves": ["b2=", "B2="], "tags": {"South": "Ann", "North": "Bo"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let text = v["record"].as_str().unwrap();
    assert!(text.contains("[South \"Ann\"]") && text.contains("[Position \"tsoro:8 2*8/0*8/0*8/2*8 N\"]"), "{text}");
    assert!(text.contains("1... b2= 2. B2= *"), "{text}");
    let (status, s) = post("/api/record/import", json!({"text": text})).await;
    assert_eq!(status, StatusCode::OK, "{s}");
    assert_eq!(strings(&s["moves"]), ["b2=", "B2="]);
    assert_eq!(s["start"], start);

    // Standard start, exported and read back.
    let (status, v) = post("/api/record/export", json!({"start": "tsoro:8", "moves": moves})).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let (_, s) = post("/api/record/import", json!({"text": v["record"]})).await;
    assert_eq!(strings(&s["moves"]), moves);
    assert_eq!(s["start"], "tsoro:8 2*8/0*8/0*8/2*8 S");
    assert_eq!(s["resigned"], Value::Null);

    // A resignation goes through the record and comes back as a side.
    let (_, v) = post("/api/record/export", json!({"start": "tsoro:8", "moves": ["B2+"], "resigned": "N"})).await;
    let (status, s) = post("/api/record/import", json!({"text": v["record"]})).await;
    assert_eq!(status, StatusCode::OK, "{s}");
    assert_eq!((&s["resigned"], &s["outcome"]["winner"]), (&json!("north"), &json!("south")), "{s}");

    let (status, v) = post("/api/record/import", json!({"text": "[Ruleset \"tsoro:8\"]\n\n1. Z9 *\n"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["message"].as_str().unwrap().contains("line"), "{v}");
    let (status, _) = post("/api/record/export", json!({"start": "tsoro:8", "moves": ["B1="]})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn the_ai_answers_a_legal_turn() {
    let (status, v) =
        post("/api/ai", json!({"start": "tsoro:8", "moves": ["B2="], "level": "beginner", "seed": 1})).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let p = Position::start("tsoro:8".parse().unwrap()).play(&"B2=".parse().unwrap()).unwrap();
    let token = v["token"].as_str().unwrap().parse().unwrap();
    let decisions = p.resolve(&token).unwrap();
    assert_eq!(strings(&v["decisions"]), decisions.iter().map(|d| d.to_string()).collect::<Vec<_>>());
    let (status, v) = post("/api/ai", json!({"start": "tsoro:8", "level": "grandmaster"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(v["message"].as_str().unwrap().contains("unknown level"), "{v}");
}

#[tokio::test]
async fn rulesets_list_traditional_sizes_first() {
    let (status, text) = call("GET", "/api/rulesets", None).await;
    assert_eq!(status, StatusCode::OK);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v[0]["game"], "tsoro");
    assert_eq!(v[0]["sizes"][0], 21);
    assert_eq!(v[0]["sizes"].as_array().unwrap().len(), 16);
    assert_eq!(v[1]["sizes"][0], 8);
    assert_eq!(v[1]["sizes"].as_array().unwrap().len(), 29);
}

#[tokio::test]
async fn pages_render_in_every_language_with_the_engine_diagram() {
    for lang in ["en", "fi", "da", "bn"] {
        let (status, html) = call("GET", &format!("/?lang={lang}"), None).await;
        assert_eq!(status, StatusCode::OK);
        assert!(html.contains(&format!("<html lang=\"{lang}\">")));
        assert!(html.contains("card-tsoro") && html.contains("card-nsolo"));
        for (game, size, holes, stones) in [("tsoro", 8, 32, 32), ("nsolo", 36, 144, 284), ("tsoro", 21, 84, 84)] {
            let (status, html) = call("GET", &format!("/rules/{game}?size={size}&lang={lang}"), None).await;
            assert_eq!(status, StatusCode::OK, "{game} {lang}");
            let start = Position::start(format!("{game}:{size}").parse().unwrap());
            assert_eq!(start.total_stones(), stones);
            assert!(html.contains(&format!("data-holes=\"{holes}\"")), "{game} {size} {lang}");
            assert!(html.contains(&format!("data-stones=\"{stones}\"")), "{game} {size} {lang}");
            assert!(html.contains(&start.to_string()), "{game} {lang}");
            assert!(!html.contains("<div class=\"start-diagram\""), "placeholder left in {game} {lang}");
        }
    }
    let (status, _) = call("GET", "/rules/chess", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, html) = call("GET", "/rules/tsoro?size=40", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(html.contains("6..21"), "{html}");
    let (status, html) = call("GET", "/play?game=nsolo&size=12", None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("data-start=\"nsolo:12 "));
    let (status, _) = call("GET", "/play?position=nonsense", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, js) = call("GET", "/static/js/board.js", None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(js.contains("export class Board"));
}

#[tokio::test]
async fn the_review_page_renders_in_every_language_and_the_board_links_to_it() {
    let words: Value = serde_json::from_str(include_str!("../assets/content/ui.json")).unwrap();
    for lang in ["en", "fi", "da", "bn"] {
        // The game is in the address; the page is the same for every game (its script reads it).
        let (status, html) =
            call("GET", &format!("/review?ruleset=tsoro:8&moves=B2%3D&turn=1&lang={lang}"), None).await;
        assert_eq!(status, StatusCode::OK, "{lang}");
        assert!(html.contains(&format!("<html lang=\"{lang}\">")));
        assert!(html.contains("/js/review.js\""), "{lang}: the page's module");
        let title = words[lang]["review_title"].as_str().unwrap();
        assert!(html.contains(&format!("<h1 id=\"review-title\" class=\"play-title\">{title}</h1>")), "{lang}");
        // The default budget is offered selected, and `matombo review`'s is offered too.
        assert!(html.contains("<option value=\"300000\" selected>"), "{lang}");
        assert!(html.contains("<option value=\"1000000\">"), "{lang}");
        let (_, play) = call("GET", &format!("/play?ruleset=tsoro:8&lang={lang}"), None).await;
        assert!(play.contains(&format!("id=\"review-link\" href=\"/review?lang={lang}\"")), "{lang}: Review game");
    }
}
