//! Fresh databases on the throwaway PostgreSQL (`eval "$(bash scripts/pg-cluster.sh
//! start)"` sets `MATOMBO_TEST_PG`).

use std::sync::atomic::{AtomicU32, Ordering};

/// The server's URL from `MATOMBO_TEST_PG`, if set. Under CI (`CI` set) a missing one
/// fails the test: there the PostgreSQL cases must run, not be skipped.
pub fn url() -> Option<String> {
    match std::env::var("MATOMBO_TEST_PG") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            assert!(std::env::var("CI").is_err(), "MATOMBO_TEST_PG is not set: under CI these tests need PostgreSQL");
            None
        }
    }
}

/// A new, empty database on the server of `base` (a URL ending in a database name),
/// named after `name`, the process and a counter: its URL.
pub async fn fresh(base: &str, name: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let (client, conn) = tokio_postgres::connect(base, tokio_postgres::NoTls).await.expect("connect MATOMBO_TEST_PG");
    tokio::spawn(conn);
    let db = format!("t_{}_{}_{}", name, std::process::id(), N.fetch_add(1, Ordering::Relaxed));
    client.batch_execute(&format!("CREATE DATABASE {db}")).await.unwrap();
    let (prefix, _) = base.rsplit_once('/').expect("a URL with a database");
    format!("{prefix}/{db}")
}
