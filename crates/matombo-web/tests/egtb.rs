//! Endgame tables on the server (`matombo serve --egtb`), over real HTTP on loopback:
//! `/api/egtb` lists them, `/api/egtb/probe` answers exactly what the tables hold, `/api/ai`
//! plays from them, and a damaged table stops the server from starting.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use matombo_ai::MATE;
use matombo_core::Ruleset;
use matombo_egtb::{Budget, Tables, Value};
use matombo_web::egtb::{Egtb, EgtbInfo, EgtbList, ProbeAnswer};
use serde_json::{json, Value as Json};

mod common;

const RULESET: &str = "tsoro:6,heads=0,bonus=0";
const STONES: u32 = 4;

/// The tables of [`RULESET`] up to [`STONES`] stones, written to a fresh directory.
fn build(name: &str) -> (PathBuf, Tables) {
    let dir = std::env::temp_dir().join(format!("matombo-web-egtb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let budget = Budget { threads: 1, memory: u64::MAX };
    let tables = Tables::build_in(&dir, RULESET.parse().unwrap(), STONES, budget, &|_, _| {}, &mut |_, _| {}).unwrap();
    (dir, tables)
}

async fn start(name: &str, egtb: Egtb) -> SocketAddr {
    common::start_server_with_tables(&common::temp_db("egtb", name), egtb).await
}

async fn post(addr: SocketAddr, path: &str, body: Json) -> (u16, String) {
    let r = reqwest::Client::new().post(format!("http://{addr}{path}")).json(&body).send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

async fn probe(addr: SocketAddr, body: Json) -> ProbeAnswer {
    let (status, text) = post(addr, "/api/egtb/probe", body).await;
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn the_server_lists_probes_and_plays_from_its_tables() {
    let (dir, tables) = build("serve");
    let egtb = Egtb::open(&dir).unwrap();
    let addr = start("serve", egtb).await;

    let list: EgtbList = reqwest::get(format!("http://{addr}/api/egtb")).await.unwrap().json().await.unwrap();
    assert_eq!(list, EgtbList { tables: vec![EgtbInfo { ruleset: RULESET.into(), stones: STONES }] });

    // Positions spread over the top layer, sent as start positions: the answer is the
    // tables' value for the side to move, with every turn that keeps it.
    let top = &tables.layers()[STONES as usize];
    let (mut checked, mut over) = (0, 0);
    for i in (0..top.index.len()).step_by(97) {
        let p = top.index.unrank(i);
        let v = tables.probe(&p).unwrap();
        if v == Value::Loss(0) {
            // No legal turn: the game is over, and a finished game has no value to probe.
            let (status, text) = post(addr, "/api/egtb/probe", json!({"start": p.to_string()})).await;
            assert_eq!(status, 422, "{p}: {text}");
            assert!(text.contains("game_over"), "{text}");
            over += 1;
            continue;
        }
        let a = probe(addr, json!({"start": p.to_string()})).await;
        let (value, best) = tables.best_turns(&p).unwrap();
        assert_eq!(a.ruleset, RULESET);
        assert_eq!((a.stones, a.max_stones), (STONES, Some(STONES)));
        assert_eq!(a.value.as_deref(), Some(value.kind()), "{p}");
        assert_eq!(a.distance, value.distance(), "{p}");
        assert_eq!(a.text, Some(value.to_string()));
        assert_eq!(a.best, best.iter().map(ToString::to_string).collect::<Vec<_>>(), "{p}");
        assert!(!a.best.is_empty(), "{p}");
        checked += 1;
    }
    assert!(checked > 50 && over > 0, "{checked} probed, {over} over");

    // After turns played: the position reached is probed, for its side to move.
    let (p, t, next) = (0..top.index.len())
        .map(|i| top.index.unrank(i))
        .filter_map(|p| {
            p.turns().find(|(_, c)| c.total_stones() == STONES && c.has_legal_turn()).map(|(t, c)| (p, t, c))
        })
        .next()
        .expect("a turn without capture");
    let v = tables.probe(&next).unwrap();
    let a = probe(addr, json!({"start": p.to_string(), "moves": [t.to_string()]})).await;
    assert_eq!((a.value.as_deref(), a.distance), (Some(v.kind()), v.distance()), "{p} {t}");
    assert_eq!(a.to_move, next.side_to_move().into());

    // Too many stones, or a ruleset without tables: answered, with no value.
    let a = probe(addr, json!({"start": RULESET})).await;
    assert_eq!((a.stones, a.max_stones, a.value, a.text), (24, Some(STONES), None, None));
    assert!(a.best.is_empty());
    let a = probe(addr, json!({"start": "tsoro:8"})).await;
    assert_eq!((a.ruleset.as_str(), a.max_stones, a.value), ("tsoro:8", None, None));

    // Bad requests change nothing and get the API's error body.
    for (body, code) in [
        (json!({"moves": []}), 400),
        (json!({"start": RULESET, "level": "hard"}), 400),
        (json!({"start": RULESET, "moves": ["Z9"]}), 400),
        (json!({"start": "tsoro:99"}), 400),
    ] {
        let (status, text) = post(addr, "/api/egtb/probe", body.clone()).await;
        assert_eq!(status, code, "{body}: {text}");
        assert!(text.contains("\"error\""), "{text}");
    }
    let r = reqwest::get(format!("http://{addr}/api/egtb/probe")).await.unwrap();
    assert_eq!(r.status().as_u16(), 405);

    // The AI plays from the tables: a win further away than its search sees is scored as
    // exactly that win, and played along it.
    let far = (0..top.index.len())
        .map(|i| top.index.unrank(i))
        .find(|p| matches!(tables.probe(p), Some(Value::Win(d)) if d >= 15))
        .expect("a long win among four stones");
    let Some(Value::Win(d)) = tables.probe(&far) else { unreachable!() };
    let (_, best) = tables.best_turns(&far).unwrap();
    let (status, text) = post(addr, "/api/ai", json!({"start": far.to_string(), "level": "medium", "seed": 1})).await;
    assert_eq!(status, 200, "{text}");
    let ai: Json = serde_json::from_str(&text).unwrap();
    assert_eq!(ai["score"], MATE - d as i32, "{far}: {text}");
    assert!(best.iter().any(|t| t.to_string() == ai["token"]), "{far}: {text} not among {best:?}");

    // The same request to a server without tables: the search alone does not see that far.
    let plain = start("plain", Egtb::none()).await;
    let (status, text) = post(plain, "/api/ai", json!({"start": far.to_string(), "level": "medium", "seed": 1})).await;
    assert_eq!(status, 200, "{text}");
    let ai: Json = serde_json::from_str(&text).unwrap();
    assert_ne!(ai["score"], MATE - d as i32, "{text}");
    let list: EgtbList = reqwest::get(format!("http://{plain}/api/egtb")).await.unwrap().json().await.unwrap();
    assert!(list.tables.is_empty());
    let a = probe(plain, json!({"start": far.to_string()})).await;
    assert_eq!((a.max_stones, a.value), (None, None));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn damaged_missing_or_foreign_tables_are_refused() {
    let (dir, _) = build("damaged");
    let ruleset: Ruleset = RULESET.parse().unwrap();
    let layer = matombo_egtb::file::layer_path(&dir, ruleset, 3);

    // A flipped bit: the checksum catches it, and the message names the file.
    let mut bytes = std::fs::read(&layer).unwrap();
    let good = bytes.clone();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&layer, &bytes).unwrap();
    let e = Egtb::open(&dir).unwrap_err().to_string();
    assert!(e.contains("corrupt") && e.contains("layer-003.mtb"), "{e}");

    // Cut short.
    std::fs::write(&layer, &good[..good.len() - 10]).unwrap();
    assert!(Egtb::open(&dir).unwrap_err().to_string().contains("corrupt"));
    std::fs::write(&layer, &good).unwrap();
    assert!(Egtb::open(&dir).is_ok());

    // Another ruleset's directory holding these files.
    let other = matombo_egtb::file::ruleset_dir(&dir, "tsoro:6".parse().unwrap());
    std::fs::rename(matombo_egtb::file::ruleset_dir(&dir, ruleset), &other).unwrap();
    let e = Egtb::open(&dir).unwrap_err().to_string();
    assert!(e.contains("wrong table"), "{e}");

    // The 0-stone layer gone from a directory of tables.
    std::fs::remove_file(other.join("layer-000.mtb")).unwrap();
    let e = Egtb::open(&dir).unwrap_err().to_string();
    assert!(e.contains("0-stone layer is missing"), "{e}");

    // No tables at all, or no directory.
    std::fs::remove_dir_all(&other).unwrap();
    assert!(Egtb::open(&dir).unwrap_err().to_string().contains("no tables"));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(Egtb::open(&dir).is_err());

    // In memory, for embedding: the same lookups.
    let t = Arc::new(Tables::build(ruleset, 2, 1).unwrap());
    let egtb = Egtb::from_tables(vec![t]);
    assert!(egtb.get(ruleset).is_some() && egtb.get("tsoro:8".parse().unwrap()).is_none());
}
