//! The store through its trait, against both backends: SQLite always, PostgreSQL when
//! `MATOMBO_TEST_PG` names a server (scripts/test.sh starts a throwaway cluster with
//! scripts/pg-cluster.sh; under CI a missing one fails the tests). Each PostgreSQL case
//! gets a database of its own.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use matombo_core::{Outcome, Position, Ruleset, Side, Termination};
use matombo_online::store::{self, Db, GameStore, Op, StoreError};
use matombo_testkit::pg;

fn create(id: &str, ruleset: &str) -> Op {
    let rs: Ruleset = ruleset.parse().unwrap();
    Op::Create {
        id: id.into(),
        ruleset: ruleset.into(),
        start: Position::start(rs).to_string(),
        tokens: [format!("{id}s"), format!("{id}n")],
        invite: format!("{id}i"),
        creator: Side::South,
        name: "Rudo".into(),
        control: None,
        days_per_turn: None,
        created: 1_000,
        creator_addr: Some("127.0.0.1".into()),
    }
}

fn claim(id: &str) -> Op {
    Op::Claim { id: id.into(), side: Side::North, name: "Tendai".into(), at: 2_000 }
}

fn resign(id: &str, winner: Side) -> Op {
    Op::End {
        id: id.into(),
        outcome: Outcome { winner: Some(winner), termination: Termination::Resignation },
        remaining: None,
        at: 3_000,
    }
}

fn first_turn(ruleset: &str) -> String {
    let rs: Ruleset = ruleset.parse().unwrap();
    Position::start(rs).turns().next().unwrap().0.to_string()
}

fn player(id: &str) -> Op {
    Op::CreatePlayer { id: id.into(), key_hash: format!("key-{id}"), name: id.into(), created: 500, addr: None }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_ends_and_refusals_are_typed_on_every_backend() {
    for (kind, db) in common::backends("store", "basic").await {
        let s = store::open(&db).await.unwrap();
        s.write(create("r1", "tsoro:8")).await.unwrap();
        s.write(claim("r1")).await.unwrap();
        let t = first_turn("tsoro:8");
        let turn = |ply| Op::Turn { id: "r1".into(), ply, token: t.clone(), remaining: None, at: 2_500, end: None };
        s.write(turn(0)).await.unwrap();
        // The `(room, ply)` key: a second turn 0 is refused, typed, and changes nothing.
        match s.write(turn(0)).await {
            Err(StoreError::PlyTaken { room, ply }) => assert_eq!((room.as_str(), ply), ("r1", 0), "{kind}"),
            other => panic!("{kind}: {other:?}"),
        }
        let room = s.load_room("r1".into(), 4_000).await.unwrap().unwrap();
        assert_eq!(room.game.moves().len(), 1, "{kind}");
        assert!(room.seats[1].claimed && room.seats[1].name == "Tendai", "{kind}");
        assert!(matches!(s.write(Op::Abort { id: "r1".into(), at: 2_600 }).await, Err(StoreError::NotAbortable(_))));
        s.write(resign("r1", Side::North)).await.unwrap();
        let archive = s.archive(10, 0).await.unwrap();
        assert_eq!(archive.len(), 1, "{kind}");
        assert_eq!((archive[0].result.as_str(), archive[0].turns), ("0-1", 1), "{kind}");
        assert_eq!(archive[0].termination, Some(Termination::Resignation));

        // A room closed by expiry refuses writes.
        s.write(create("r2", "nsolo:8")).await.unwrap();
        let closed = s.write(Op::Expire { now: 10_000, unclaimed_before: 5_000, idle_before: 0 }).await.unwrap();
        assert_eq!(closed, vec!["r2".to_string()], "{kind}");
        assert_eq!(s.closed("r2".into()).await.unwrap().as_deref(), Some("unclaimed"), "{kind}");
        assert!(matches!(s.write(claim("r2")).await, Err(StoreError::Closed(id)) if id == "r2"), "{kind}");
        assert!(s.load_room("r2".into(), 10_000).await.unwrap().is_none());

        // Transfer codes: a wrong one is BadCode; a right one moves the key once.
        s.write(player("pa")).await.unwrap();
        assert!(matches!(
            s.write(Op::UseTransfer { code_hash: "nope".into(), key_hash: "k2".into(), now: 1 }).await,
            Err(StoreError::BadCode)
        ));
        s.write(Op::TransferCode { code_hash: "c1".into(), player: "pa".into(), expires: 100 }).await.unwrap();
        let moved = s.write(Op::UseTransfer { code_hash: "c1".into(), key_hash: "k2".into(), now: 50 }).await.unwrap();
        assert_eq!(moved, vec!["pa".to_string()]);
        assert_eq!(s.player_by_key("k2".into()).await.unwrap().unwrap().0, "pa");
        assert!(matches!(
            s.write(Op::UseTransfer { code_hash: "c1".into(), key_hash: "k3".into(), now: 50 }).await,
            Err(StoreError::BadCode)
        ));
        // All or nothing: a batch with a failing write leaves nothing behind.
        let many = Op::Many(vec![create("r3", "tsoro:8"), claim("nosuchroom")]);
        assert!(s.write(many).await.is_err(), "{kind}");
        assert!(s.load_room("r3".into(), 10_000).await.unwrap().is_none(), "{kind}: half a batch was kept");
    }
}

fn join(id: &str, side: Side, member: &str, captain: bool) -> Op {
    Op::Join {
        id: id.into(),
        side,
        member: member.into(),
        token: format!("{member}-token"),
        name: format!("{member}-name"),
        captain,
        at: 2_000,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn team_members_captaincy_votes_and_marks_are_stored_on_every_backend() {
    use matombo_online::team::{TeamMode, MAX_MEMBERS};
    for (kind, db) in common::backends("store", "teams").await {
        let s = store::open(&db).await.unwrap();
        // A plain room has no teams.
        s.write(create("p1", "nsolo:8")).await.unwrap();
        assert!(s.load_room("p1".into(), 3_000).await.unwrap().unwrap().teams.is_none(), "{kind}");
        let teams = Op::Teams {
            id: "t1".into(),
            mode: TeamMode::Vote,
            vote_ms: 5_000,
            invites: ["si".into(), "ni".into()],
            public: false,
        };
        s.write(Op::Many(vec![create("t1", "nsolo:8"), teams, join("t1", Side::South, "ma", true)])).await.unwrap();
        s.write(join("t1", Side::North, "mb", true)).await.unwrap();
        s.write(join("t1", Side::South, "mc", false)).await.unwrap();
        s.write(join("t1", Side::South, "md", false)).await.unwrap();
        s.write(Op::Captain { id: "t1".into(), side: Side::South, member: "mc".into() }).await.unwrap();
        s.write(Op::Remove { id: "t1".into(), member: "md".into() }).await.unwrap();
        let t = first_turn("nsolo:8");
        let vote = |member: &str| Op::Vote {
            id: "t1".into(),
            ply: 0,
            member: member.into(),
            token: t.clone(),
            closes_at: 9_000,
        };
        s.write(vote("mc")).await.unwrap();
        s.write(vote("ma")).await.unwrap();
        // A new vote replaces the old one, and goes last.
        s.write(vote("mc")).await.unwrap();
        s.write(Op::Marks { id: "t1".into(), member: "ma".into(), holes: vec!["B2".into(), "a5".into()] })
            .await
            .unwrap();
        s.write(Op::Marks { id: "t1".into(), member: "mc".into(), holes: vec!["B1".into()] }).await.unwrap();
        s.write(Op::Marks { id: "t1".into(), member: "mc".into(), holes: vec![] }).await.unwrap();

        let room = s.load_room("t1".into(), 3_000).await.unwrap().unwrap();
        let teams = room.teams.expect("a team game");
        assert_eq!(
            (teams.mode, teams.vote_ms, teams.invites.clone()),
            (TeamMode::Vote, 5_000, ["si".into(), "ni".into()])
        );
        let roster: Vec<(&str, Side, bool, bool)> =
            teams.members.iter().map(|m| (m.id.as_str(), m.side, m.captain, m.removed)).collect();
        assert_eq!(
            roster,
            [
                ("ma", Side::South, false, false),
                ("mb", Side::North, true, false),
                ("mc", Side::South, true, false),
                ("md", Side::South, false, true),
            ],
            "{kind}"
        );
        assert_eq!(teams.members[2].token, "mc-token");
        assert!(room.seats[1].claimed && room.seats[1].name == "mb-name", "{kind}: the first North member's seat");
        let v = teams.vote.expect("the vote in progress");
        assert_eq!((v.ply, v.closes_at), (0, 9_000), "{kind}");
        assert_eq!(v.votes, [("ma".to_string(), t.clone()), ("mc".to_string(), t.clone())], "{kind}");
        assert_eq!(teams.marks.len(), 1, "{kind}");
        assert_eq!(teams.marks["ma"], ["B2", "a5"]);
        // The leader finds the votes past their time.
        assert!(s.due_votes(8_999).await.unwrap().is_empty(), "{kind}");
        assert_eq!(s.due_votes(9_000).await.unwrap(), ["t1"], "{kind}");

        // The turn ends the vote.
        s.write(Op::Turn { id: "t1".into(), ply: 0, token: t.clone(), remaining: None, at: 4_000, end: None })
            .await
            .unwrap();
        let room = s.load_room("t1".into(), 5_000).await.unwrap().unwrap();
        assert!(room.teams.unwrap().vote.is_none(), "{kind}");
        assert!(s.due_votes(10_000).await.unwrap().is_empty(), "{kind}");

        // At most MAX_MEMBERS active members a side, however the joins come.
        for i in 0..MAX_MEMBERS - 1 {
            s.write(join("t1", Side::North, &format!("n{i}"), false)).await.unwrap();
        }
        match s.write(join("t1", Side::North, "late", false)).await {
            Err(StoreError::TeamFull(id)) => assert_eq!(id, "t1"),
            other => panic!("{kind}: {other:?}"),
        }
        s.write(Op::Remove { id: "t1".into(), member: "n3".into() }).await.unwrap();
        s.write(join("t1", Side::North, "late", false)).await.unwrap();
    }
}

/// A rated game between `a` and `b` in room `id`, created, bound, and two turns played
/// by each side (a rated game counts from then on).
async fn rated_game(s: &Arc<dyn GameStore>, id: &str, a: &str, b: &str) {
    rated_game_of(s, id, a, b, 4).await;
}

async fn rated_game_of(s: &Arc<dyn GameStore>, id: &str, a: &str, b: &str, plies: u32) {
    let bind = Op::Bind { id: id.into(), players: [Some(a.into()), Some(b.into())], rated: true, listed: false };
    s.write(Op::Many(vec![create(id, "tsoro:8"), bind])).await.unwrap();
    s.write(claim(id)).await.unwrap();
    let mut p = Position::start("tsoro:8".parse().unwrap());
    for ply in 0..plies {
        let (token, next) = p.turns().next().unwrap();
        let op = Op::Turn { id: id.into(), ply, token: token.to_string(), remaining: None, at: 2_500, end: None };
        s.write(op).await.unwrap();
        p = next;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ratings_change_once_with_the_end_of_the_game() {
    for (kind, db) in common::backends("store", "rated").await {
        let s = store::open(&db).await.unwrap();
        for p in ["ann", "bob"] {
            s.write(player(p)).await.unwrap();
        }
        rated_game(&s, "g1", "ann", "bob").await;
        s.write(resign("g1", Side::South)).await.unwrap();
        // A second end (a replayed write) changes nothing more.
        let _ = s.write(resign("g1", Side::South)).await;
        let changes = s.rating_changes("g1".into()).await.unwrap();
        assert_eq!(changes.len(), 2, "{kind}");
        let ann = s.player("ann".into()).await.unwrap().unwrap();
        let (grp, r, games) = &ann.ratings[0];
        assert_eq!((grp.as_str(), *games), ("tsoro-small", 1), "{kind}");
        assert!(r.rating > 1500.0, "{kind}: the winner gains");
        let board = s.leaderboard("tsoro-small".into(), 0, 10, 0).await.unwrap();
        assert_eq!(board.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["ann", "bob"], "{kind}");
        let hist = s.history("bob".into(), 10, 0).await.unwrap();
        assert_eq!(hist.len(), 1);
        assert!(!hist[0].south && hist[0].rated && hist[0].after.unwrap().0 < 1500.0, "{kind}");
    }
}

/// Issue 37, rating farming, on every backend: a game where a side made fewer than two
/// turns is unrated (its result stands); at most three rated games a day between the same
/// two players count; the leaderboard lists established players before provisional ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_games_and_a_pairs_fourth_game_of_the_day_are_unrated() {
    for (kind, db) in common::backends("store", "farming").await {
        let s = store::open(&db).await.unwrap();
        for p in ["ann", "bob"] {
            s.write(player(p)).await.unwrap();
        }
        rated_game_of(&s, "short", "ann", "bob", 3).await;
        s.write(resign("short", Side::South)).await.unwrap();
        assert!(s.rating_changes("short".into()).await.unwrap().is_empty(), "{kind}: 3 plies rated");
        assert_eq!(s.archive(10, 0).await.unwrap()[0].result, "1-0", "{kind}: the result stands");
        for i in 0..4 {
            let id = format!("p{i}");
            rated_game(&s, &id, "ann", "bob").await;
            s.write(resign(&id, Side::South)).await.unwrap();
            let changes = s.rating_changes(id).await.unwrap();
            assert_eq!(changes.len(), if i < 3 { 2 } else { 0 }, "{kind}: game {i} of the pair today");
        }
        // The hub plays many newcomers, winning half: established; those who beat him
        // stay provisional with higher ratings.
        s.write(player("hub")).await.unwrap();
        for i in 0..30 {
            let (id, opp) = (format!("h{i}"), format!("o{i}"));
            s.write(player(&opp)).await.unwrap();
            rated_game(&s, &id, &opp, "hub").await;
            s.write(resign(&id, if i % 2 == 0 { Side::South } else { Side::North })).await.unwrap();
        }
        let hub = s.player("hub".into()).await.unwrap().unwrap();
        assert!(!hub.ratings[0].1.provisional(), "{kind}: {:?}", hub.ratings[0]);
        let board = s.leaderboard("tsoro-small".into(), 0, 50, 0).await.unwrap();
        let first_provisional = board.iter().position(|r| r.2.provisional()).unwrap();
        assert!(board[first_provisional..].iter().all(|r| r.2.provisional()), "{kind}: established after provisional");
        assert_eq!(board[0].0, "hub", "{kind}");
        assert!(board[1].2.rating > board[0].2.rating, "{kind}: a higher provisional rating comes after");
    }
}

/// One player in many rated games that all end at the same moment: every game's change
/// must start from the rating the previous one left (no lost update), whatever the order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_endings_of_one_players_games_lose_no_update() {
    const GAMES: usize = 24;
    for (kind, db) in common::backends("store", "concurrent").await {
        let s = store::open(&db).await.unwrap();
        s.write(player("hub")).await.unwrap();
        for i in 0..GAMES {
            s.write(player(&format!("opp{i}"))).await.unwrap();
            rated_game(&s, &format!("c{i}"), "hub", &format!("opp{i}")).await;
        }
        let barrier = Arc::new(tokio::sync::Barrier::new(GAMES));
        let tasks: Vec<_> = (0..GAMES)
            .map(|i| {
                let (s, barrier) = (s.clone(), barrier.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    let winner = if i % 3 == 0 { Side::North } else { Side::South };
                    s.write(resign(&format!("c{i}"), winner)).await
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().unwrap_or_else(|e| panic!("{kind}: {e}"));
        }
        let hub = s.player("hub".into()).await.unwrap().unwrap();
        assert_eq!(hub.ratings.len(), 1);
        let (_, final_rating, games) = &hub.ratings[0];
        assert_eq!(*games as usize, GAMES, "{kind}: every game counted once");
        // The hub's changes form one chain from the start rating to the final one.
        let mut changes = Vec::new();
        for i in 0..GAMES {
            let c = s.rating_changes(format!("c{i}")).await.unwrap();
            changes.push(c.into_iter().find(|c| c.player == "hub").unwrap());
        }
        let mut at = (1500.0f64, 350.0f64);
        let mut left: Vec<_> = changes.iter().collect();
        while !left.is_empty() {
            let i = left
                .iter()
                .position(|c| (c.before.0 - at.0).abs() < 1e-9 && (c.before.1 - at.1).abs() < 1e-9)
                .unwrap_or_else(|| panic!("{kind}: no change starts from {at:?}: an update was lost"));
            at = left.remove(i).after;
        }
        assert!((at.0 - final_rating.rating).abs() < 1e-9, "{kind}: the stored rating is the chain's end");
    }
}

#[tokio::test]
async fn a_wrong_or_unreachable_postgres_url_fails_fast_and_says_so() {
    // Nothing listens on port 1 of loopback.
    let t = Instant::now();
    let e = store::open(&Db::parse("postgres://nobody@127.0.0.1:1/nothing")).await.err().expect("must fail");
    assert!(t.elapsed() < Duration::from_secs(20));
    let msg = e.to_string();
    assert!(msg.contains("cannot connect") && msg.contains("127.0.0.1:1"), "{msg}");
    let e = store::open(&Db::parse("postgres://a:secret@127.0.0.1:1/x?sslmode=bogus")).await.err().unwrap();
    assert!(!e.to_string().contains("secret"), "the password is never shown: {e}");
    if let Some(base) = pg::url() {
        let (prefix, _) = base.rsplit_once('/').unwrap();
        let e = store::open(&Db::Postgres(format!("{prefix}/no_such_database_here"))).await.err().unwrap();
        assert!(e.to_string().contains("no_such_database_here"), "{e}");
    }
}

#[tokio::test]
async fn the_url_decides_the_backend() {
    assert_eq!(Db::parse("postgres://u@h:5432/d"), Db::Postgres("postgres://u@h:5432/d".into()));
    assert_eq!(Db::parse("postgresql://u@h/d"), Db::Postgres("postgresql://u@h/d".into()));
    assert_eq!(Db::parse("/var/lib/matombo/online.sqlite3"), Db::Sqlite("/var/lib/matombo/online.sqlite3".into()));
    assert_eq!(Db::parse("postgres://u:pw@h/d").describe(), "postgres://u:***@h/d");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_migrations_are_versioned_and_refuse_a_newer_schema() {
    let Some(base) = pg::url() else { return };
    let url = pg::fresh(&base, "migrate").await;
    // Two nodes starting at once: the schema is made once (an advisory lock orders them).
    let db = Db::Postgres(url.clone());
    let (a, b) = tokio::join!(store::open(&db), store::open(&db));
    a.unwrap();
    b.unwrap();
    let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let v: i32 = c.query_one("SELECT version FROM schema_version", &[]).await.unwrap().get(0);
    assert_eq!(v as usize, store::postgres::SCHEMA_VERSION);
    let rows = c.query("SELECT * FROM schema_version", &[]).await.unwrap();
    assert_eq!(rows.len(), 1);
    c.execute("UPDATE schema_version SET version = version + 1", &[]).await.unwrap();
    let e = store::open(&Db::Postgres(url)).await.err().unwrap();
    assert!(matches!(e, StoreError::Schema(_)) && e.to_string().contains("newer matombo"), "{e}");
}

/// A PostgreSQL tool (`pg_dump`, `pg_restore`): Debian's wrapper on PATH, else the newest
/// version's own folder.
fn pg_tool(name: &str) -> std::path::PathBuf {
    let mut dirs: Vec<_> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.flatten().map(|e| e.path().join("bin").join(name)).filter(|p| p.exists()).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs.pop().unwrap_or_else(|| name.into())
}

fn run_tool(name: &str, args: &[&str]) {
    let out = std::process::Command::new(pg_tool(name)).args(args).output().unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(out.status.success(), "{name} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// docs/operating.md's backup of the PostgreSQL store, run as written: `pg_dump` of a live
/// store (a game in progress, a finished rated game), `pg_restore` into a fresh database,
/// and the store opened on the copy holds both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pg_dump_of_the_store_restores_with_every_game() {
    let Some(base) = pg::url() else { return };
    let url = pg::fresh(&base, "dump").await;
    let s = store::open(&Db::Postgres(url.clone())).await.unwrap();
    for p in ["ana", "ben"] {
        s.write(player(p)).await.unwrap();
    }
    rated_game(&s, "done", "ana", "ben").await;
    s.write(resign("done", Side::South)).await.unwrap();
    s.write(create("live", "tsoro:8")).await.unwrap();
    s.write(claim("live")).await.unwrap();
    let mut game = matombo_core::Game::new(Position::start("tsoro:8".parse().unwrap()));
    for ply in 0..3 {
        let token = game.position().turns().next().unwrap().0.to_string();
        s.write(Op::Turn { id: "live".into(), ply, token: token.clone(), remaining: None, at: 2_500, end: None })
            .await
            .unwrap();
        game.play(&token.parse().unwrap()).unwrap();
    }
    let ana = s.player("ana".into()).await.unwrap().unwrap();
    assert_eq!(ana.ratings[0].2, 1, "the finished game was rated");

    let dir = std::env::temp_dir().join(format!("matombo-pgdump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("matombo.dump");
    run_tool("pg_dump", &["--format=custom", &format!("--file={}", dump.display()), &url]);
    let copy = pg::fresh(&base, "restored").await;
    run_tool(
        "pg_restore",
        &["--clean", "--if-exists", "--no-owner", &format!("--dbname={copy}"), &dump.display().to_string()],
    );
    std::fs::remove_dir_all(&dir).unwrap();

    let r = store::open(&Db::Postgres(copy)).await.expect("the restored store opens");
    let live = r.load_room("live".into(), 4_000).await.unwrap().expect("the game in progress");
    assert_eq!(live.game.moves(), game.moves());
    assert!(live.seats[1].claimed);
    let archive = r.archive(10, 0).await.unwrap();
    assert_eq!(archive.iter().map(|g| g.id.as_str()).collect::<Vec<_>>(), ["done"]);
    let restored = r.player("ana".into()).await.unwrap().unwrap();
    assert_eq!((restored.ratings[0].1.rating, restored.ratings[0].2), (ana.ratings[0].1.rating, 1));
    assert_eq!(r.rating_changes("done".into()).await.unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn correspondence_deadlines_and_public_team_games_on_every_backend() {
    use matombo_online::room::{Room, TimeControl};
    use matombo_online::team::TeamMode;
    const DAY: u64 = 86_400_000;
    let corr = |id: &str, days: u32| {
        let mut op = create(id, "tsoro:8");
        if let Op::Create { control, days_per_turn, .. } = &mut op {
            *control = Some(TimeControl { initial_ms: u64::from(days) * DAY, increment_ms: 0 });
            *days_per_turn = Some(days);
        }
        op
    };
    let deadline = |r: Room| r.clocks.as_ref().and_then(|c| c.deadline(r.to_move()));
    for (kind, db) in common::backends("store", "corr").await {
        let s = store::open(&db).await.unwrap();
        s.write(corr("c1", 2)).await.unwrap();
        s.write(corr("c2", 1)).await.unwrap();
        assert_eq!(deadline(s.load_room("c1".into(), 1_500).await.unwrap().unwrap()), None, "{kind}: not yet");
        s.write(claim("c1")).await.unwrap();
        let room = s.load_room("c1".into(), 3_000).await.unwrap().unwrap();
        assert_eq!(room.clocks.as_ref().unwrap().days_per_turn, Some(2), "{kind}");
        assert_eq!(deadline(room), Some(2_000 + 2 * DAY), "{kind}: from the claim");
        // Idle for days: not closed; the invitation of one day not taken: closed.
        let closed = s.write(Op::Expire { now: DAY + 1_001, unclaimed_before: DAY, idle_before: DAY }).await.unwrap();
        assert_eq!(closed, vec!["c2".to_string()], "{kind}");
        let t = first_turn("tsoro:8");
        let turn = Op::Turn { id: "c1".into(), ply: 0, token: t, remaining: Some([2 * DAY; 2]), at: 5_000, end: None };
        s.write(turn).await.unwrap();
        assert_eq!(deadline(s.load_room("c1".into(), 6_000).await.unwrap().unwrap()), Some(5_000 + 2 * DAY));
        assert!(s.due_votes(5_000 + 2 * DAY - 1).await.unwrap().is_empty(), "{kind}");
        assert_eq!(s.due_votes(5_000 + 2 * DAY).await.unwrap(), vec!["c1".to_string()], "{kind}");
        // A start after the deadline: one more hour, kept in the store.
        let now = 10 * DAY;
        let rooms = s.load_unfinished(now, 0, 0).await.unwrap();
        assert_eq!(rooms.len(), 1, "{kind}");
        assert_eq!(deadline(rooms.into_iter().next().unwrap().0), Some(now + store::RESTART_GRACE_MS));
        assert_eq!(deadline(s.load_room("c1".into(), now).await.unwrap().unwrap()), Some(now + 3_600_000));
        s.write(resign("c1", Side::South)).await.unwrap();
        assert!(s.due_votes(100 * DAY).await.unwrap().is_empty(), "{kind}: over");

        // Public team games: listed newest first until finished; private ones never.
        for (id, public, created) in [("p1", true, 1_000), ("p2", false, 2_000), ("p3", true, 3_000)] {
            let mut op = create(id, "nsolo:8");
            if let Op::Create { created: c, .. } = &mut op {
                *c = created;
            }
            let invites = [format!("{id}si"), format!("{id}ni")];
            let teams = Op::Teams { id: id.into(), mode: TeamMode::Any, vote_ms: 5_000, invites, public };
            s.write(Op::Many(vec![op, teams, join(id, Side::South, &format!("{id}m"), true)])).await.unwrap();
        }
        s.write(join("p1", Side::North, "p1x", true)).await.unwrap();
        s.write(join("p1", Side::North, "p1y", false)).await.unwrap();
        let rows = s.public_teams(50).await.unwrap();
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["p3", "p1"], "{kind}");
        let p1 = &rows[1];
        assert_eq!((p1.mode.as_str(), p1.created, p1.creator.as_str()), ("any", 1_000, "p1m-name"), "{kind}");
        assert_eq!((p1.members, p1.invites.clone()), ([1, 2], ["p1si".to_string(), "p1ni".to_string()]));
        assert_eq!((p1.control, p1.days_per_turn), (None, None));
        assert_eq!(s.public_teams(1).await.unwrap().len(), 1);
        s.write(resign("p3", Side::North)).await.unwrap();
        let rows = s.public_teams(50).await.unwrap();
        assert_eq!(rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["p1"], "{kind}");
    }
}
