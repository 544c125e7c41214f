//! The lessons can never teach something false: every position of `lessons.json` parses,
//! every demonstration turn is legal, and every task's goal is met by its solution and by
//! no listed wrong turn, checked through the same `matombo_api::game` answers the page's
//! engine gives, step by step as the page checks them (docs/lessons.md). And every lesson
//! has its words in every language.

use std::collections::BTreeSet;
use std::path::Path;

use matombo_api::{game, EventJson, GameRequest, GameState};
use matombo_core::{Decision, Position, Side, Token};
use matombo_web::learn::{lessons, Goal, Task};

/// The topics in the order issue 36 lists them.
const ORDER: [&str; 11] =
    ["board", "sowing", "relay", "turnend", "capture", "bonus", "heads", "singles", "endless", "end", "nsolo"];

/// What the page knows after some of the learner's steps.
struct Seen {
    decisions: Vec<String>,
    events: Vec<EventJson>,
    state: GameState,
}

fn meets(goal: &Goal, seen: &Seen) -> bool {
    let laps: Vec<&str> = seen
        .events
        .iter()
        .filter_map(|e| match e {
            EventJson::Lap { last, .. } => Some(last.as_str()),
            _ => None,
        })
        .collect();
    let captures: Vec<(&str, u16)> = seen
        .events
        .iter()
        .filter_map(|e| match e {
            EventJson::Capture { hole, stones } => Some((hole.as_str(), *stones)),
            _ => None,
        })
        .collect();
    let count = |hole: &str| {
        let rows = &seen.state.rows;
        let row = match &hole[..1] {
            "b" => &rows.b,
            "a" => &rows.a,
            "A" => &rows.A,
            _ => &rows.B,
        };
        row[hole[1..].parse::<usize>().expect("a hole number") - 1]
    };
    let winner = seen.state.outcome.as_ref().map(|o| o.winner.map(|w| w.as_str().to_string()));
    goal.start.as_ref().is_none_or(|s| seen.decisions.first() == Some(&format!("sow {s}")))
        && goal.ends.as_ref().is_none_or(|h| laps.last() == Some(&h.as_str()))
        && goal.laps_min.is_none_or(|n| laps.len() >= n)
        && goal.stop.is_none_or(|s| seen.decisions.iter().any(|d| d == "stop") == s)
        && goal.capture.iter().all(|h| captures.iter().any(|(c, _)| c == h))
        && goal.stones_min.is_none_or(|n| captures.iter().map(|(_, s)| u32::from(*s)).sum::<u32>() >= n)
        && goal.empty.iter().all(|h| count(h) == 0)
        && goal.winner.as_ref().is_none_or(|w| winner.as_ref().is_some_and(|x| x.as_deref() == Some(w.as_str())))
        && goal.draw.is_none_or(|d| winner.as_ref().is_some_and(|x| x.is_none()) == d)
}

/// The learner's steps of a turn as the page sends them: one decision a step (the start,
/// each head choice, each bonus pick, `done`).
fn steps(decisions: &[Decision]) -> Vec<Vec<String>> {
    decisions.iter().map(|d| vec![d.to_string()]).collect()
}

/// Plays `token` step by step from the task's start; answers whether the goal was met at
/// some step, as the page would find.
fn solves(task: &Task, token: &str) -> Result<bool, String> {
    let mut g = matombo_api::replay(&task.position, &task.moves).map_err(|e| e.message)?;
    let t: Token = token.parse().map_err(|e| format!("{token}: {e}"))?;
    let decisions = g.position().resolve(&t).map_err(|e| format!("{token}: {e}"))?;
    g.play(&t).map_err(|e| e.to_string())?;
    let mut seen = Seen { decisions: Vec::new(), events: Vec::new(), state: state(task, &[], &[])? };
    let mut steps = steps(&decisions);
    // The token's decisions can end on a Tsoro pick with earlier holes still open; the
    // page's bonus then waits for more picks, and the learner presses Done.
    let whole = state(task, &[], &decisions.iter().map(|d| d.to_string()).collect::<Vec<_>>())?;
    if whole.played.is_empty() {
        steps.push(vec!["done".to_string()]);
    }
    for step in steps {
        let answer = state(task, &seen.decisions, &step)?;
        seen.decisions.extend(step);
        seen.events.extend(answer.events.iter().map(copy));
        seen.state = answer;
        if meets(&task.goal, &seen) {
            return Ok(true);
        }
    }
    assert_eq!(seen.state.played, vec![token.to_string()], "the turn was played whole");
    Ok(false)
}

fn copy(e: &EventJson) -> EventJson {
    match e {
        EventJson::Lap { from, stones, last, path } => {
            EventJson::Lap { from: from.clone(), stones: *stones, last: last.clone(), path: path.clone() }
        }
        EventJson::Capture { hole, stones } => EventJson::Capture { hole: hole.clone(), stones: *stones },
    }
}

fn state(task: &Task, pending: &[String], apply: &[String]) -> Result<GameState, String> {
    let req = GameRequest {
        start: task.position.clone(),
        moves: task.moves.clone(),
        pending: pending.to_vec(),
        apply: apply.to_vec(),
        ..Default::default()
    };
    game(&req).map_err(|e| e.message)
}

#[test]
fn there_are_at_least_ten_lessons_in_the_order_of_the_issue() {
    let ids: Vec<&str> = lessons().lessons.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ORDER);
    for l in &lessons().lessons {
        assert!(l.id.bytes().all(|b| b.is_ascii_lowercase()), "{}: an id is lower-case letters", l.id);
        assert!((2..=4).contains(&l.tasks.len()), "{}: 2 to 4 tasks", l.id);
    }
}

#[test]
fn every_demonstration_is_legal() {
    for l in &lessons().lessons {
        let d = &l.demo;
        let g = matombo_api::replay(&d.position, &d.moves).unwrap_or_else(|e| panic!("{}: {}", l.id, e.message));
        assert!(!d.moves.is_empty(), "{}: the demonstration plays", l.id);
        assert_eq!(g.moves().len(), d.moves.len());
        for (m, played) in d.moves.iter().zip(g.moves()) {
            assert_eq!(*m, played.to_string(), "{}: tokens are canonical", l.id);
        }
        if let Some(h) = &d.mark {
            let pos: Position = d.position.parse().unwrap();
            assert!(
                h.parse::<matombo_core::Hole>().is_ok_and(|h| h.check(pos.ruleset().size()).is_ok()),
                "{}: mark {h}",
                l.id
            );
        }
    }
}

#[test]
fn every_task_is_solved_by_its_solution_and_by_no_wrong_turn() {
    for l in &lessons().lessons {
        for (i, task) in l.tasks.iter().enumerate() {
            let name = format!("{} task {}", l.id, i + 1);
            let start =
                matombo_api::replay(&task.position, &task.moves).unwrap_or_else(|e| panic!("{name}: {}", e.message));
            assert_eq!(start.position().side_to_move(), Side::South, "{name}: the learner plays South");
            assert!(start.outcome().is_none(), "{name}: the game is not over");
            assert!(!task.goal.is_empty(), "{name}: a goal");
            assert_eq!(solves(task, &task.solution), Ok(true), "{name}: the solution {}", task.solution);
            assert!(!task.wrong.is_empty(), "{name}: a wrong turn to refuse");
            for w in &task.wrong {
                assert_eq!(solves(task, w), Ok(false), "{name}: the wrong turn {w}");
            }
            // Every legal turn, for the count of right and wrong ones: the goal is never met by all.
            let (mut right, mut wrong) = (0, 0);
            for (token, _) in start.position().turns() {
                match solves(task, &token.to_string()) {
                    Ok(true) => right += 1,
                    Ok(false) => wrong += 1,
                    Err(e) => panic!("{name}: {token}: {e}"),
                }
            }
            assert!(right >= 1 && wrong >= 1, "{name}: {right} right and {wrong} wrong turns");
        }
    }
}

#[test]
fn a_goal_that_is_not_met_is_refused() {
    // The checker itself: a solution played against another task's goal fails.
    let l = &lessons().lessons.iter().find(|l| l.id == "capture").unwrap();
    let mut task = l.tasks[0].clone();
    task.goal = Goal { capture: vec!["a6".into()], ..Goal::default() };
    assert_eq!(solves(&task, &task.solution), Ok(false));
    assert!(solves(&task, "B1").is_err(), "an illegal turn is an error");
}

fn json(path: &str) -> serde_json::Map<String, serde_json::Value> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/content"));
    serde_json::from_str(&std::fs::read_to_string(dir.join(path)).unwrap()).unwrap()
}

#[test]
fn every_lesson_word_is_in_every_language() {
    let all = json("learn.json");
    let en: BTreeSet<&String> = all["en"].as_object().unwrap().keys().collect();
    for lang in ["fi", "da", "bn"] {
        let words = all[lang].as_object().unwrap_or_else(|| panic!("no {lang}"));
        assert_eq!(words.keys().collect::<BTreeSet<_>>(), en, "{lang} words differ from English");
        for (k, v) in words {
            assert!(v.as_str().is_some_and(|s| !s.trim().is_empty()), "{lang}.{k} is empty");
            assert_ne!(Some(v), all["en"].get(k).filter(|_| k.ends_with("_text")), "{lang}.{k} is not translated");
        }
    }
    let mut wanted: BTreeSet<String> = BTreeSet::new();
    for l in &lessons().lessons {
        for k in ["title", "text", "demo"] {
            wanted.insert(format!("{}_{k}", l.id));
        }
        for i in 1..=l.tasks.len() {
            wanted.insert(format!("{}_{i}", l.id));
            wanted.insert(format!("{}_{i}_hint", l.id));
        }
    }
    for k in &wanted {
        assert!(en.contains(k), "learn.json lacks {k}");
    }
    // No lesson word is left over from a task that is gone.
    let ids: Vec<String> = lessons().lessons.iter().map(|l| format!("{}_", l.id)).collect();
    for k in en.iter().filter(|k| ids.iter().any(|p| k.starts_with(p.as_str()))) {
        assert!(wanted.contains(*k), "learn.json has {k}, which no lesson uses");
    }
}

#[test]
fn every_word_a_lesson_script_uses_exists() {
    let learn = json("learn.json");
    let ui = json("ui.json");
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/js/learn"));
    let mut used = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for (prefix, words) in [("say.", &learn["en"]), ("words.", &ui["en"])] {
            for (i, _) in text.match_indices(prefix) {
                if i > 0 && text.as_bytes()[i - 1].is_ascii_alphanumeric() {
                    continue;
                }
                let name: String =
                    text[i + prefix.len()..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                used += 1;
                assert!(words.get(&name).is_some(), "{} uses {prefix}{name}, which is missing", path.display());
            }
        }
    }
    assert!(used > 10, "the scripts use the words ({used} found)");
}
