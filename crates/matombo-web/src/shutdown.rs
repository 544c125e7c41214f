//! Readiness and graceful restart. On the first SIGTERM (or Ctrl-C) the node drains:
//! `/readyz` answers `503`, the listener stops accepting, every WebSocket is closed with
//! code 1012 (service restart: the pages reconnect at once, to another node if there is
//! one), the requests in flight finish, the store's log is checkpointed, and the process
//! exits 0 — all within [`DRAIN`]. Every acknowledged write was committed before its
//! acknowledgement, so nothing acknowledged is lost, even when the drain is cut short. A
//! second signal ends the process at once (exit status 1): SQLite's write-ahead log keeps
//! the store whole whatever the moment.

use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::limits::ServerLimits;
use crate::online::OnlineState;

/// The longest drain: within the 10 s a supervisor usually grants before SIGKILL
/// (systemd's default is 90 s; Kubernetes' 30 s; docs/operating.md).
pub const DRAIN: Duration = Duration::from_secs(8);

/// `GET /readyz`: `200` when the store answers and the node is not draining, else `503`.
pub async fn readyz(State(online): State<OnlineState>) -> Response {
    let (status, why) = if online.is_draining() {
        (StatusCode::SERVICE_UNAVAILABLE, "draining")
    } else if !online.store_answers().await {
        (StatusCode::SERVICE_UNAVAILABLE, "store not answering")
    } else {
        (StatusCode::OK, "ready")
    };
    (status, [(header::CACHE_CONTROL, "no-store")], Json(serde_json::json!({"status": why}))).into_response()
}

/// Resolves at the first SIGTERM or Ctrl-C.
pub async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

/// Serves `app` with online play until a signal, then drains (see the module).
pub async fn serve_draining(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    limits: ServerLimits,
    online: OnlineState,
) -> std::io::Result<()> {
    let (drain_tx, mut drain_rx) = tokio::sync::watch::channel(false);
    let drainer = online.clone();
    let stop = async move {
        signal().await;
        tracing::info!("draining: /readyz is 503, WebSockets closed with 1012 (a second signal ends at once)");
        drainer.drain();
        let _ = drain_tx.send(true);
        // Signals are registered by now: the second one ends the process.
        tokio::spawn(async {
            signal().await;
            tracing::warn!("second signal: ending now (every acknowledged write is already committed)");
            std::process::exit(1);
        });
    };
    let served = crate::limits::serve_until(listener, app, limits, stop);
    tokio::pin!(served);
    let deadline = async {
        let _ = drain_rx.wait_for(|d| *d).await;
        tokio::time::sleep(DRAIN).await;
    };
    tokio::pin!(deadline);
    let cut = tokio::select! {
        r = &mut served => { r?; false }
        _ = &mut deadline => true,
    };
    // WebSockets close on their own once told; wait for them, within the deadline.
    if !cut {
        let until = tokio::time::Instant::now() + DRAIN;
        while online.connections() > 0 && tokio::time::Instant::now() < until {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(20)) => {}
                _ = &mut deadline => break,
            }
        }
    }
    if online.connections() > 0 || cut {
        tracing::warn!(websockets = online.connections(), "drain deadline reached; ending with connections open");
    }
    online.finish_store();
    tracing::info!("drained");
    Ok(())
}
