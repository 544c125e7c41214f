//! # matombo-testkit
//!
//! What the tests of `matombo-online`, `matombo-web` and `matombo` share, apart from the
//! server each starts its own way: a WebSocket client that speaks online play's JSON
//! messages ([`ws`]), a small HTTP client for the JSON API ([`http`]) and fresh databases
//! on the throwaway PostgreSQL of `scripts/pg-cluster.sh` ([`pg`]). Helpers panic with a
//! message instead of returning errors: a failure is the test's failure.
#![deny(missing_docs)]

pub mod http;
pub mod pg;
pub mod ws;
