//! # matombo-harness
//!
//! The test tools of matombo's server, apart from the server itself: the load test behind
//! `matombo loadtest` ([`loadtest`]), the attack harness behind `matombo attack`
//! ([`attack`], docs/security.md), and the in-process loopback server both start when no
//! `--url` is given. Only this crate (and tests) speak WebSocket as a client.
#![deny(missing_docs)]

pub mod attack;
pub mod loadtest;
mod local;
