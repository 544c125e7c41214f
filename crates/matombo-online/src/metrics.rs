//! What online play records for the Prometheus metrics (`serve --metrics`): through the
//! `metrics` crate's macros, which do nothing until the server installs a recorder, so
//! tests and the other commands pay nothing. The names are listed in docs/operating.md.

use std::time::{Duration, Instant};

/// A durable write done in `took`; `turn`: a turn was stored.
pub fn store_write(took: Duration, turn: bool) {
    metrics::histogram!("matombo_store_write_seconds").record(took.as_secs_f64());
    if turn {
        metrics::counter!("matombo_turns_stored_total").increment(1);
    }
}

/// A turn received at `since` and now broadcast.
pub fn turn_done(since: Instant) {
    metrics::histogram!("matombo_turn_latency_seconds").record(since.elapsed().as_secs_f64());
}

/// An error answered, by its code.
pub fn refusal(code: matombo_api::ErrorCode) {
    metrics::counter!("matombo_refusals_total", "code" => code.as_str()).increment(1);
}

/// Counts an open WebSocket of `kind` until dropped.
pub fn websocket_open(kind: &'static str) -> OpenSocket {
    metrics::gauge!("matombo_websockets_open", "kind" => kind).increment(1.0);
    OpenSocket(kind)
}

/// See [`websocket_open`].
pub struct OpenSocket(&'static str);

impl Drop for OpenSocket {
    fn drop(&mut self) {
        metrics::gauge!("matombo_websockets_open", "kind" => self.0).decrement(1.0);
    }
}
