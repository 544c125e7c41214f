//! # matombo-wasm
//!
//! The board page's engine: the JSON API of `matombo-api` (the very functions the server
//! answers `/api/*` with) and the search, compiled to WebAssembly for
//! `wasm32-unknown-unknown` with raw `extern "C"` exports and no generated glue. The page's
//! ES module `assets/js/wasm.js` (about sixty lines) is the whole JavaScript side.
//!
//! The interface, in WebAssembly terms:
//! - `matombo_alloc(len) -> ptr` and `matombo_free(ptr, len)`: memory for messages;
//! - `matombo_call(ptr, len) -> out`: runs one request, the UTF-8 JSON
//!   `{"op": "game" | "ai" | "analyse" | "export" | "import" | "rulesets" | "ruleset" |
//!   "setup" | "speed" | "review_position" | "review" | "review_record", "body": {…}}`
//!   (`ruleset` and `setup`: ruleset names and position strings read and written, see
//!   `matombo_api::ruleset` and `matombo_api::setup`; the review: score one
//!   position, then classify the game's turns from the scores and write the annotated
//!   record; see `matombo_api::review`), and answers at `out` a little-endian `u32` length
//!   followed by that many bytes of JSON: `{"ok": <answer>}` or the server's error body
//!   plus its HTTP status, `{"error": "<code>", "message": "<sentence>", "status": 400 |
//!   422 | 500}`. The caller frees `out` with `matombo_free(out, 4 + length)`.
//! - imports `env.matombo_now_ms() -> f64` (a monotonic clock in milliseconds, for the
//!   search's time limits) and `env.matombo_report(ptr, len)` (an analysis's lines after
//!   each completed depth, as JSON).
//!
//! The same dispatch runs natively in [`handle`], so it is tested without a browser.
#![deny(missing_docs)]

use std::sync::atomic::AtomicBool;

use matombo_api::{ApiError, ErrorCode};
use serde::Deserialize;
use serde_json::Value;

/// One request to the engine.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Call {
    op: String,
    #[serde(default)]
    body: Value,
}

fn body<T: for<'de> Deserialize<'de>>(v: Value) -> Result<T, ApiError> {
    serde_json::from_value(v).map_err(|e| ApiError::bad(format!("malformed request body: {e}")))
}

fn json<T: serde::Serialize>(v: T) -> Result<Value, ApiError> {
    serde_json::to_value(v).map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))
}

/// The speed request of the in-browser benchmark.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpeedRequest {
    ruleset: String,
    ms: u64,
}

fn dispatch(request: &[u8], report: &mut dyn FnMut(&str)) -> Result<Value, ApiError> {
    let call: Call = matombo_api::parse_body(request)?;
    // A search in the page is stopped by ending its worker, so this flag stays down.
    let stop = AtomicBool::new(false);
    match call.op.as_str() {
        "game" => json(matombo_api::game(&body(call.body)?)?),
        "ai" => {
            let req: matombo_api::AiRequest = body(call.body)?;
            // The page always sends a seed (it has the randomness); 1 keeps a bare call valid.
            json(req.prepare(1)?.run(&stop)?)
        }
        "analyse" => {
            let req: matombo_api::AnalyseRequest = body(call.body)?;
            json(matombo_api::analyse(&req, &stop, &mut |a| {
                if let Ok(s) = serde_json::to_string(a) {
                    report(&s);
                }
            })?)
        }
        "export" => json(matombo_api::export(&body(call.body)?)?),
        "import" => json(matombo_api::import(&body(call.body)?)?),
        "rulesets" => json(matombo_api::games()),
        "ruleset" => json(matombo_api::ruleset(&body(call.body)?)?),
        "setup" => json(matombo_api::setup(&body(call.body)?)?),
        "speed" => {
            let req: SpeedRequest = body(call.body)?;
            json(matombo_api::search_speed(&req.ruleset, req.ms.min(60_000))?)
        }
        "review_position" => json(matombo_api::review_position(&body(call.body)?)?),
        "review" => json(matombo_api::review(&body(call.body)?)?),
        "review_record" => json(matombo_api::review_record(&body(call.body)?)?),
        other => Err(ApiError::bad(format!(
            "unknown op {other:?} (expected game, ai, analyse, export, import, rulesets, ruleset, \
             setup, speed, review_position, review or review_record)"
        ))),
    }
}

/// Runs one request (the JSON `{"op": …, "body": …}`) and answers `{"ok": …}` or
/// `{"error": <code>, "message": …, "status": …}`; `report` receives an analysis's progress.
pub fn handle(request: &[u8], report: &mut dyn FnMut(&str)) -> String {
    let answer = match dispatch(request, report) {
        Ok(v) => serde_json::json!({ "ok": v }),
        Err(e) => {
            let body = e.body();
            serde_json::json!({ "error": body.error, "message": body.message, "status": e.status() })
        }
    };
    answer.to_string()
}

#[cfg(target_arch = "wasm32")]
mod exports {
    use std::alloc::{alloc, dealloc, Layout};

    #[link(wasm_import_module = "env")]
    extern "C" {
        fn matombo_report(ptr: *const u8, len: usize);
    }

    fn layout(len: usize) -> Layout {
        Layout::from_size_align(len.max(1), 4).expect("message size fits the address space")
    }

    /// Memory for a message of `len` bytes.
    #[no_mangle]
    pub extern "C" fn matombo_alloc(len: usize) -> *mut u8 {
        // SAFETY: the layout has a non-zero size.
        unsafe { alloc(layout(len)) }
    }

    /// Frees what [`matombo_alloc`] or [`matombo_call`] gave.
    ///
    /// # Safety
    /// `ptr` and `len` are those of one allocation, freed once.
    #[no_mangle]
    pub unsafe extern "C" fn matombo_free(ptr: *mut u8, len: usize) {
        dealloc(ptr, layout(len))
    }

    /// Runs one request of `len` bytes at `ptr` (see the crate's documentation).
    ///
    /// # Safety
    /// `ptr` and `len` describe initialised memory the caller owns.
    #[no_mangle]
    pub unsafe extern "C" fn matombo_call(ptr: *const u8, len: usize) -> *mut u8 {
        let request = std::slice::from_raw_parts(ptr, len);
        let out = super::handle(request, &mut |s| matombo_report(s.as_ptr(), s.len()));
        let n = out.len();
        let buf = matombo_alloc(4 + n);
        std::ptr::copy_nonoverlapping((n as u32).to_le_bytes().as_ptr(), buf, 4);
        std::ptr::copy_nonoverlapping(out.as_ptr(), buf.add(4), n);
        buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(req: &str) -> Value {
        serde_json::from_str(&handle(req.as_bytes(), &mut |_| {})).unwrap()
    }

    #[test]
    fn game_answers_as_the_api_does() {
        let v = call(r#"{"op":"game","body":{"start":"tsoro:8","apply":["sow B2"]}}"#);
        let direct = matombo_api::game(&matombo_api::GameRequest {
            start: "tsoro:8".into(),
            apply: vec!["sow B2".into()],
            ..Default::default()
        })
        .unwrap();
        assert_eq!(v["ok"], serde_json::to_value(direct).unwrap());
        assert_eq!(v["ok"]["phase"], "head");
    }

    #[test]
    fn rulesets_and_positions_are_read_and_written_by_the_engine() {
        let v = call(r#"{"op":"ruleset","body":{"game":"tsoro","size":8,"heads":1,"bonus":2}}"#);
        assert_eq!(v["ok"]["name"], "tsoro:8,heads=1");
        assert_eq!(v["ok"]["head_holes"], serde_json::json!(["B8", "b8"]));
        let v = call(r#"{"op":"setup","body":{"text":"tsoro:8,heads=1"}}"#);
        assert_eq!(v["ok"]["text"], "tsoro:8,heads=1 3,2*7/0*8/0*8/2*7,3 S");
        assert_eq!(v["ok"]["grid"][3][7], 3);
        let v = call(r#"{"op":"setup","body":{"ruleset":"tsoro:6","grid":[[1],[0],[0],[0]],"side":"N"}}"#);
        assert_eq!(v["ok"]["text"], "tsoro:6 1/0/0/0 N");
        assert!(v["ok"]["position"].is_null() && v["ok"]["problem"].is_string(), "{v}");
        let v = call(r#"{"op":"ruleset","body":{"game":"nsolo","size":99}}"#);
        assert_eq!(v["error"], "bad_ruleset");
    }

    #[test]
    fn bonus_picks_come_in_any_order() {
        // nsolo: B1 captures a1's two stones; two more stones, picked last hole first.
        let v = call(r#"{"op":"game","body":{"start":"nsolo","pending":["sow B1","take a7"],"apply":["take b3"]}}"#);
        assert_eq!(v["ok"]["played"], serde_json::json!(["B1xb3xa7"]));
        let v = call(r#"{"op":"game","body":{"start":"nsolo","pending":["sow B1"],"apply":["take a7"]}}"#);
        assert_eq!(v["ok"]["left"], 1);
        assert_eq!(v["ok"]["picks"], serde_json::json!(["a7"]));
        assert_eq!(v["ok"]["rows"]["a"][6], 1);
        assert!(v["ok"]["clickable"].as_array().unwrap().iter().any(|h| h == "b1"), "{v}");
        let v = call(r#"{"op":"game","body":{"start":"tsoro:8","apply":["sow B7"]}}"#);
        assert_eq!(v["ok"]["events"][0]["path"], serde_json::json!(["B8", "A8"]));
    }

    #[test]
    fn errors_carry_the_servers_status() {
        let v = call(r#"{"op":"game","body":{"start":"tsoro:8","apply":["sow A1"]}}"#);
        assert_eq!(v["status"], 422);
        assert_eq!(v["error"], "illegal");
        assert!(v["message"].as_str().unwrap().contains("not legal"), "{v}");
        for (bad, code) in [
            (r#"{"op":"game","body":{"start":"tsoro:5"}}"#, "bad_position"),
            ("not json", "malformed"),
            (r#"{"op":"fly"}"#, "malformed"),
        ] {
            let v = call(bad);
            assert_eq!(v["status"], 400, "{bad}: {v}");
            assert_eq!(v["error"], code, "{bad}: {v}");
            assert!(!v["message"].as_str().unwrap().is_empty());
        }
    }

    #[test]
    fn analysis_reports_every_depth_and_three_lines() {
        let mut depths = Vec::new();
        let out = handle(br#"{"op":"analyse","body":{"start":"tsoro:8","depth":4,"lines":3}}"#, &mut |s| {
            depths.push(serde_json::from_str::<Value>(s).unwrap()["depth"].as_u64().unwrap())
        });
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(depths, [1, 2, 3, 4]);
        assert_eq!(v["ok"]["depth"], 4);
        let lines = v["ok"]["lines"].as_array().unwrap();
        assert_eq!(lines.len(), 3);
        let pos = matombo_api::replay("tsoro:8", &[]).unwrap().position().clone();
        for l in lines {
            let token: matombo_core::Token = l["token"].as_str().unwrap().parse().unwrap();
            assert!(pos.play(&token).is_ok(), "{l}");
        }
    }

    #[test]
    fn a_review_scores_positions_then_classifies_and_annotates() {
        let moves = ["B2=", "b2=", "B7"];
        let mut scores = Vec::new();
        for i in 0..=moves.len() {
            let body =
                serde_json::json!({"start": "tsoro:8", "moves": &moves[..i], "played": moves.get(i), "nodes": 2000});
            let v = call(&serde_json::json!({"op": "review_position", "body": body}).to_string());
            assert!(v["ok"]["best"].is_string(), "{v}");
            scores.push(v["ok"].clone());
        }
        let body = serde_json::json!({"start": "tsoro:8", "moves": moves, "scores": scores});
        let v = call(&serde_json::json!({"op": "review", "body": body}).to_string());
        assert_eq!(v["ok"]["turns"].as_array().unwrap().len(), 3, "{v}");
        assert_eq!(v["ok"]["positions"][1]["score"], scores[1]["score"]);
        let v = call(&serde_json::json!({"op": "review_record", "body": body}).to_string());
        let record: matombo_core::Record = v["ok"]["record"].as_str().unwrap().parse().unwrap();
        assert!(record.annotation(0).unwrap().eval().is_some());
    }

    #[test]
    fn ai_plays_a_legal_turn() {
        let v = call(r#"{"op":"ai","body":{"start":"nsolo:8","level":"easy","seed":7}}"#);
        let token = v["ok"]["token"].as_str().unwrap();
        let pos = matombo_api::replay("nsolo:8", &[]).unwrap().position().clone();
        assert!(pos.play(&token.parse().unwrap()).is_ok(), "{v}");
    }
}
