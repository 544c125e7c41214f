//! `matombo puzzles generate --db`: the finished online games of a store mined by the
//! same recipe as self-play (docs/puzzles.md).

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

use anyhow::Context;
use matombo_core::{Game, Ruleset};
use matombo_lab::puzzles::{self, MineConfig, Puzzle};
use matombo_online::store::{self, Db, GameStore};

use super::{config_of, GenerateArgs};

/// A page of the archive read at a time.
const PAGE: u32 = 200;

/// The finished games of `store` on `rulesets`, ordered by room id (the archive's order,
/// newest first, changes as games finish); the number of games that could not be read.
async fn finished_games(s: &dyn GameStore, rulesets: &[Ruleset]) -> anyhow::Result<(Vec<(String, Game)>, usize)> {
    let mut entries = Vec::new();
    for offset in (0..).step_by(PAGE as usize) {
        let page = s.archive(PAGE, offset).await.context("reading the finished games")?;
        let last = page.len() < PAGE as usize;
        entries.extend(page);
        if last {
            break;
        }
    }
    entries.sort_by(|a, b| a.id.cmp(&b.id));
    entries.dedup_by(|a, b| a.id == b.id);
    let mut games = Vec::new();
    let mut skipped = 0;
    for e in entries {
        if !e.ruleset.parse::<Ruleset>().is_ok_and(|r| rulesets.contains(&r)) {
            continue;
        }
        match s.load_room(e.id.clone(), 0).await {
            Ok(Some(room)) if room.game.is_over() => games.push((e.id, room.game)),
            Ok(_) => skipped += 1,
            Err(err) => {
                tracing::warn!(room = %e.id, error = %err, "skipped: cannot be read");
                skipped += 1;
            }
        }
    }
    Ok((games, skipped))
}

/// The puzzles of the finished online games in `db` (positions in `seen` skipped, those
/// found added to it), in room id order, each with its origin `online:<room id>`.
pub(super) fn mine_online(a: &GenerateArgs, db: &str, seen: &mut HashSet<String>) -> anyhow::Result<Vec<Puzzle>> {
    let db = Db::parse(db);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let (games, skipped) = rt.block_on(async {
        let s = store::open(&db).await.with_context(|| format!("opening {}", db.describe()))?;
        finished_games(s.as_ref(), &a.rulesets).await
    })?;
    let mut configs: HashMap<Ruleset, MineConfig> = HashMap::new();
    for (_, g) in &games {
        let r = g.start().ruleset();
        if let std::collections::hash_map::Entry::Vacant(e) = configs.entry(r) {
            e.insert(config_of(a, r)?);
        }
    }
    let bar = crate::cmd::progress(games.len() as u64, "{bar:30} {pos}/{len} online games ({elapsed}, eta {eta})");
    let mut by_game: Vec<Vec<Puzzle>> = vec![Vec::new(); games.len()];
    matombo_lab::parallel(
        games.len(),
        a.threads,
        |i| puzzles::mine_game(&configs[&games[i].1.start().ruleset()], &games[i].1),
        |i, ps| {
            by_game[i] = ps;
            bar.inc(1);
            Ok::<_, anyhow::Error>(ControlFlow::Continue(()))
        },
    )?;
    bar.finish_and_clear();
    let mut found = Vec::new();
    for ((id, _), ps) in games.iter().zip(by_game) {
        for mut p in ps {
            if seen.insert(p.position.clone()) {
                p.origin = Some(format!("online:{id}"));
                found.push(p);
            }
        }
    }
    eprintln!(
        "{} puzzles from {} finished online games in {} ({skipped} skipped: unreadable)",
        found.len(),
        games.len(),
        db.describe()
    );
    Ok(found)
}
