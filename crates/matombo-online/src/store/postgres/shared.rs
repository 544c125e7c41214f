//! What the nodes of a cluster share besides the games (issue 35): the lobby's open
//! challenges and seeks, each row tagged with the node that holds its maker's connection,
//! and the per-address and per-player creation budgets and room quotas.
//!
//! The rows are the authority: taking a challenge is one `DELETE … RETURNING`, so of two
//! accepts on two nodes one gets the row and the other nothing; two seeks are paired by
//! deleting both in one transaction. A node holds a session-level advisory lock keyed by
//! its id while it lives ([`PgStore::hold_node_lock`]); the leader removes the rows of a
//! node whose lock it can take ([`PgStore::drop_dead_nodes`]).

use tokio_postgres::GenericClient;

use super::{apply, backend, ms, retryable, Fail, PgStore, RETRIES};
use crate::store::{Op, StoreError};

/// An open challenge as stored: id, node, maker, open (listed), and the body the lobby
/// reads back (its own serialization).
#[derive(Clone, Debug)]
pub struct ChallengeRow {
    /// Challenge id.
    pub id: String,
    /// The node holding its maker's connection.
    pub node: u64,
    /// The maker's player id.
    pub player: String,
    /// Listed (false: link-only).
    pub open: bool,
    /// What the lobby needs to show and accept it (JSON).
    pub body: String,
}

/// A seek as stored: node and connection, player, body (JSON), since (Unix ms).
#[derive(Clone, Debug)]
pub struct SeekRow {
    /// The node holding the seeking connection.
    pub node: u64,
    /// The connection on that node.
    pub conn: u64,
    /// The player.
    pub player: String,
    /// What pairing needs (JSON).
    pub body: String,
    /// When it began (Unix ms).
    pub since: u64,
}

/// What a room's creation is counted against across nodes.
#[derive(Clone, Debug, Default)]
pub struct Counted {
    /// The address whose unfinished rooms are counted (`creator_addr` of the rooms).
    pub addr: Option<String>,
    /// Players whose unfinished rooms are counted (seated in them).
    pub players: Vec<String>,
    /// Budget keys (`addr:…`, `player:…`), each a token bucket.
    pub budgets: Vec<String>,
    /// Unfinished rooms each address or player may have.
    pub max_rooms: usize,
    /// Bucket refill per second.
    pub rate: f64,
    /// Bucket size.
    pub burst: f64,
    /// Unix ms.
    pub now: u64,
}

/// Why a counted creation was refused (nothing written).
#[derive(Debug)]
pub enum Refusal {
    /// A creation budget is spent.
    Budget,
    /// The address has its most unfinished rooms.
    AddrQuota,
    /// A player has his most unfinished rooms.
    PlayerQuota,
    /// The store failed.
    Store(StoreError),
}

fn i(x: u64) -> i64 {
    x as i64
}

impl PgStore {
    /// Holds this node's lock on `client` (a connection of the node's own, alive as long
    /// as the node): the sign that its lobby rows are still wanted.
    pub async fn hold_node_lock(client: &tokio_postgres::Client, node: u64) -> Result<(), StoreError> {
        client.execute("SELECT pg_advisory_lock($1)", &[&i(node)]).await.map_err(backend)?;
        Ok(())
    }

    /// Stores an open challenge.
    pub async fn put_challenge(&self, r: &ChallengeRow, created: u64) -> Result<(), StoreError> {
        let c = self.conn().await?;
        c.execute(
            "INSERT INTO lobby_challenges(id, node, player, open, body, created) VALUES ($1,$2,$3,$4,$5,$6)",
            &[&r.id, &i(r.node), &r.player, &r.open, &r.body, &ms(created)],
        )
        .await
        .map_err(backend)?;
        Ok(())
    }

    /// Takes a challenge (accepted, or cancelled when `by` is its maker): the one caller
    /// that gets it back decides; every other gets None.
    pub async fn take_challenge(&self, id: &str, by: Option<&str>) -> Result<Option<ChallengeRow>, StoreError> {
        let c = self.conn().await?;
        let row = c
            .query_opt(
                "DELETE FROM lobby_challenges WHERE id=$1 AND ($2::TEXT IS NULL OR player=$2)
                 RETURNING id, node, player, open, body",
                &[&id, &by],
            )
            .await
            .map_err(backend)?;
        Ok(row.map(|r| challenge_row(&r)))
    }

    /// Removes the challenges a player made through `node` (his last lobby connection
    /// there closed).
    pub async fn drop_challenges_of(&self, node: u64, player: &str) -> Result<Vec<ChallengeRow>, StoreError> {
        let c = self.conn().await?;
        let rows = c
            .query(
                "DELETE FROM lobby_challenges WHERE node=$1 AND player=$2 RETURNING id, node, player, open, body",
                &[&i(node), &player],
            )
            .await
            .map_err(backend)?;
        Ok(rows.iter().map(challenge_row).collect())
    }

    /// Every open challenge, oldest first.
    pub async fn challenges(&self) -> Result<Vec<ChallengeRow>, StoreError> {
        let rows =
            self.rows("SELECT id, node, player, open, body FROM lobby_challenges ORDER BY created, id", &[]).await?;
        Ok(rows.iter().map(challenge_row).collect())
    }

    /// Stores a seek; false if the player seeks already (on any node).
    pub async fn put_seek(&self, r: &SeekRow) -> Result<bool, StoreError> {
        let c = self.conn().await?;
        let n = c
            .execute(
                "INSERT INTO lobby_seeks(node, conn, player, body, since) VALUES ($1,$2,$3,$4,$5)
                 ON CONFLICT DO NOTHING",
                &[&i(r.node), &i(r.conn), &r.player, &r.body, &ms(r.since)],
            )
            .await
            .map_err(backend)?;
        Ok(n == 1)
    }

    /// Removes a connection's seek, if any.
    pub async fn drop_seek(&self, node: u64, conn: u64) -> Result<(), StoreError> {
        let c = self.conn().await?;
        c.execute("DELETE FROM lobby_seeks WHERE node=$1 AND conn=$2", &[&i(node), &i(conn)]).await.map_err(backend)?;
        Ok(())
    }

    /// Every seek, oldest first.
    pub async fn seeks(&self) -> Result<Vec<SeekRow>, StoreError> {
        let rows = self
            .rows("SELECT node, conn, player, body, since FROM lobby_seeks ORDER BY since, node, conn", &[])
            .await?;
        Ok(rows
            .iter()
            .map(|r| SeekRow {
                node: r.get::<_, i64>(0) as u64,
                conn: r.get::<_, i64>(1) as u64,
                player: r.get(2),
                body: r.get(3),
                since: r.get::<_, i64>(4) as u64,
            })
            .collect())
    }

    /// Takes two seeks for one game: both, or neither (one was withdrawn meanwhile).
    pub async fn take_pair(&self, a: (u64, u64), b: (u64, u64)) -> Result<bool, StoreError> {
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(backend)?;
        let n = tx
            .execute(
                "DELETE FROM lobby_seeks WHERE (node=$1 AND conn=$2) OR (node=$3 AND conn=$4)",
                &[&i(a.0), &i(a.1), &i(b.0), &i(b.1)],
            )
            .await
            .map_err(backend)?;
        if n != 2 {
            return Ok(false); // dropped: rolled back
        }
        tx.commit().await.map_err(backend)?;
        Ok(true)
    }

    /// Removes the lobby rows of every node other than `me` that no longer holds its
    /// lock (dead, or cut from the database); answers the challenges removed.
    pub async fn drop_dead_nodes(&self, me: u64) -> Result<Vec<ChallengeRow>, StoreError> {
        let c = self.conn().await?;
        let nodes = c
            .query(
                "SELECT node FROM lobby_challenges WHERE node<>$1 UNION SELECT node FROM lobby_seeks WHERE node<>$1",
                &[&i(me)],
            )
            .await
            .map_err(backend)?;
        let mut gone = Vec::new();
        for n in nodes.iter().map(|r| r.get::<_, i64>(0)) {
            let free: bool = c.query_one("SELECT pg_try_advisory_lock($1)", &[&n]).await.map_err(backend)?.get(0);
            if !free {
                continue;
            }
            // Taken only to learn it was free: given back on this pooled connection at once.
            c.execute("SELECT pg_advisory_unlock($1)", &[&n]).await.map_err(backend)?;
            c.execute("DELETE FROM lobby_seeks WHERE node=$1", &[&n]).await.map_err(backend)?;
            let rows = c
                .query("DELETE FROM lobby_challenges WHERE node=$1 RETURNING id, node, player, open, body", &[&n])
                .await
                .map_err(backend)?;
            gone.extend(rows.iter().map(challenge_row));
        }
        Ok(gone)
    }

    /// Forgets the budgets refilled to their burst (forgetting them changes nothing).
    pub async fn prune_budgets(&self, now: u64, rate: f64, burst: f64) -> Result<(), StoreError> {
        let c = self.conn().await?;
        c.execute(
            "DELETE FROM budgets WHERE tokens + GREATEST(0, $1::INT8 - at) * $2::FLOAT8 / 1000.0 >= $3::FLOAT8",
            &[&ms(now), &rate, &burst],
        )
        .await
        .map_err(backend)?;
        Ok(())
    }

    /// Writes `op` (a room's creation) if every count allows it, in one transaction: the
    /// budgets' tokens taken and the unfinished rooms counted under a lock per address
    /// and player, so that two nodes creating at once cannot both pass the last place.
    pub async fn write_counted(&self, op: Op, k: &Counted) -> Result<Vec<String>, Refusal> {
        let mut attempt = 0;
        loop {
            let mut c = self.conn().await.map_err(Refusal::Store)?;
            let r = async {
                let tx = c.transaction().await?;
                let out = counted(&*tx, &op, k).await?;
                if out.is_ok() {
                    tx.commit().await?;
                }
                Ok::<_, Fail>(out)
            }
            .await;
            match r {
                Ok(out) => return out,
                Err(f) if retryable(&f) && attempt < RETRIES => attempt += 1,
                Err(f) => return Err(Refusal::Store(f.into())),
            }
        }
    }
}

async fn counted(c: &impl GenericClient, op: &Op, k: &Counted) -> Result<Result<Vec<String>, Refusal>, Fail> {
    let mut keys: Vec<String> = k.addr.iter().map(|a| format!("addr:{a}")).collect();
    keys.extend(k.players.iter().map(|p| format!("player:{p}")));
    keys.sort();
    for key in &keys {
        c.execute("SELECT pg_advisory_xact_lock(hashtext('matombo-quota'), hashtext($1))", &[key]).await?;
    }
    let max = k.max_rooms as i64;
    if let Some(a) = &k.addr {
        let n: i64 = c
            .query_one("SELECT COUNT(*) FROM rooms WHERE creator_addr=$1 AND finished IS NULL AND closed IS NULL", &[a])
            .await?
            .get(0);
        if n >= max {
            return Ok(Err(Refusal::AddrQuota));
        }
    }
    for p in &k.players {
        let n: i64 = c
            .query_one(
                "SELECT COUNT(*) FROM rooms WHERE (south_player=$1 OR north_player=$1)
                 AND finished IS NULL AND closed IS NULL",
                &[p],
            )
            .await?
            .get(0);
        if n >= max {
            return Ok(Err(Refusal::PlayerQuota));
        }
    }
    let mut budgets = k.budgets.clone();
    budgets.sort();
    for key in &budgets {
        // A token bucket in one row: refilled to now, one token taken if there is one.
        let taken = c
            .query_opt(
                "INSERT INTO budgets(key, tokens, at) VALUES ($1, $2::FLOAT8 - 1, $4::INT8)
                 ON CONFLICT (key) DO UPDATE
                   SET tokens = LEAST($2::FLOAT8, budgets.tokens
                                + GREATEST(0, $4::INT8 - budgets.at) * $3::FLOAT8 / 1000.0) - 1,
                       at = $4::INT8
                   WHERE LEAST($2::FLOAT8, budgets.tokens
                                + GREATEST(0, $4::INT8 - budgets.at) * $3::FLOAT8 / 1000.0) >= 1
                 RETURNING key",
                &[key, &k.burst, &k.rate, &ms(k.now)],
            )
            .await?;
        if taken.is_none() {
            return Ok(Err(Refusal::Budget));
        }
    }
    Ok(Ok(apply(c, op).await?))
}

fn challenge_row(r: &tokio_postgres::Row) -> ChallengeRow {
    ChallengeRow { id: r.get(0), node: r.get::<_, i64>(1) as u64, player: r.get(2), open: r.get(3), body: r.get(4) }
}
