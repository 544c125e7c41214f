//! One node of a cluster at a time runs the singleton jobs (expiry sweeps, quick
//! pairing): the one holding a session-level PostgreSQL advisory lock, [`LEADER_LOCK`], on
//! a connection of its own. The lock dies with that connection: when the leader's process
//! dies (or its connection does), PostgreSQL lets it go, and another node, trying every
//! [`TRY_EVERY`], takes it within about that time (plus the time PostgreSQL takes to see
//! the connection is gone: at once for a killed process, whose socket the kernel closes).
//!
//! With SQLite there is one node, always the leader.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// An arbitrary key of the leader's advisory lock (not the migrations' key).
pub const LEADER_LOCK: i64 = 0x6d61_746f_6d62_6f02;

/// How often a node that is not the leader tries to become it, and the leader checks its
/// connection.
pub const TRY_EVERY: Duration = Duration::from_millis(500);

/// Whether this node leads; shared with the jobs that only the leader runs.
#[derive(Clone, Default)]
pub(crate) struct Leader(Arc<AtomicBool>);

impl Leader {
    /// Whether this node runs the singleton jobs now.
    pub(crate) fn is_leader(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    /// Tries to take the lock, and keeps it for as long as the connection lives; then tries
    /// again. Runs as long as `alive` answers true.
    pub(crate) fn run(&self, url: String, alive: impl Fn() -> bool + Send + 'static) {
        let flag = self.0.clone();
        tokio::spawn(async move {
            while alive() {
                let Some(client) = crate::bus::connect_or_wait(&url, "leader: cannot connect", TRY_EVERY).await else {
                    continue;
                };
                loop {
                    if !alive() {
                        return;
                    }
                    let got = client.query_one("SELECT pg_try_advisory_lock($1)", &[&LEADER_LOCK]).await;
                    match got {
                        Ok(row) if row.get::<_, bool>(0) => {
                            if !flag.swap(true, Ordering::AcqRel) {
                                tracing::info!("leader: this node runs the expiry sweeps and pairing");
                            }
                            // Held: check the connection (the lock lives as long as it).
                            while alive() && client.simple_query("SELECT 1").await.is_ok() {
                                tokio::time::sleep(TRY_EVERY).await;
                            }
                            flag.store(false, Ordering::Release);
                            tracing::warn!("leader: connection lost; no longer the leader");
                            break;
                        }
                        Ok(_) => tokio::time::sleep(TRY_EVERY).await,
                        Err(_) => break,
                    }
                }
                flag.store(false, Ordering::Release);
                tokio::time::sleep(TRY_EVERY).await;
            }
        });
    }
}
