//! Prometheus metrics (`serve --metrics ADDR`): the server records through the `metrics`
//! crate's macros (which do nothing until a recorder is installed, so tests and the other
//! commands pay nothing), and [`serve_metrics`] answers `GET /metrics` in the Prometheus
//! text format on a listener of its own, never on the public port. Every metric is listed
//! in docs/operating.md.

use std::net::SocketAddr;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::online::OnlineState;

/// Latency buckets in seconds: from a fast commit (0.5 ms) to a slow search (10 s).
const BUCKETS: &[f64] = &[0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// Installs the process-wide recorder; its handle renders the text format.
pub fn install() -> Result<PrometheusHandle, String> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), BUCKETS)
        .map_err(|e| e.to_string())?
        .install_recorder()
        .map_err(|e| format!("installing the metrics recorder: {e}"))?;
    describe();
    Ok(handle)
}

fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram, Unit};
    describe_counter!("matombo_http_requests_total", "HTTP requests answered, by route and status");
    describe_gauge!("matombo_websockets_open", "WebSocket connections open, by kind (room, lobby)");
    describe_gauge!("matombo_live_rooms", "Unfinished online rooms");
    describe_counter!("matombo_turns_stored_total", "Turns committed to the store");
    describe_histogram!(
        "matombo_turn_latency_seconds",
        Unit::Seconds,
        "From a turn's arrival on its WebSocket to its broadcast (stored first)"
    );
    describe_counter!("matombo_refusals_total", "Error answers (HTTP and WebSocket), by error code");
    describe_histogram!("matombo_store_write_seconds", Unit::Seconds, "Durable writes: queue, commit and fsync");
    describe_gauge!("matombo_searches_running", "Engine searches running");
    describe_gauge!("matombo_searches_queued", "Engine searches waiting for a thread");
    describe_gauge!("matombo_draining", "1 while the node drains (after SIGTERM)");
    describe_counter!("matombo_forwarded_malformed_total", "Malformed forwarding headers from trusted proxies");
}

pub use matombo_online::metrics::{refusal, store_write, turn_done, websocket_open, OpenSocket};

/// Counts requests by route (the route's pattern, so that ids make no new series) and
/// status.
pub fn count_requests(app: Router) -> Router {
    app.layer(axum::middleware::from_fn(count_request))
}

async fn count_request(req: Request, next: Next) -> Response {
    let route = req.extensions().get::<MatchedPath>().map_or("unmatched", |m| m.as_str()).to_string();
    let r = next.run(req).await;
    metrics::counter!("matombo_http_requests_total", "route" => route, "status" => r.status().as_u16().to_string())
        .increment(1);
    r
}

/// What the metrics page reads at each scrape.
#[derive(Clone)]
pub struct Scrape {
    /// The recorder.
    pub handle: PrometheusHandle,
    /// Online play (live rooms, draining).
    pub online: OnlineState,
    /// The engine's pool (searches running, queued).
    pub pool: crate::api::AiPool,
}

async fn metrics_page(State(s): State<Scrape>) -> Response {
    metrics::gauge!("matombo_live_rooms").set(s.online.open_rooms() as f64);
    metrics::gauge!("matombo_searches_running").set(s.pool.running() as f64);
    metrics::gauge!("matombo_searches_queued").set(s.pool.waiting() as f64);
    metrics::gauge!("matombo_draining").set(if s.online.is_draining() { 1.0 } else { 0.0 });
    process_figures();
    s.handle.run_upkeep();
    ([(axum::http::header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], s.handle.render())
        .into_response()
}

/// Serves `/metrics` on `listener` until `stop` resolves.
pub async fn serve_metrics(
    listener: tokio::net::TcpListener,
    scrape: Scrape,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = Router::new().route("/metrics", get(metrics_page)).with_state(scrape);
    axum::serve(listener, app).with_graceful_shutdown(stop).await
}

/// Binds the metrics listener.
pub async fn bind(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr).await
}

/// The process's own figures, under the names Prometheus' client libraries use
/// (`process_cpu_seconds_total`, `process_resident_memory_bytes`, …), read from /proc.
fn process_figures() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf reads a constant of the system.
        let (tick, page) = unsafe { (libc::sysconf(libc::_SC_CLK_TCK), libc::sysconf(libc::_SC_PAGESIZE)) };
        if let Ok(stat) = std::fs::read_to_string("/proc/self/stat") {
            // The fields after the command name, which is in parentheses and may hold spaces.
            if let Some((_, rest)) = stat.rsplit_once(')') {
                let f: Vec<&str> = rest.split_whitespace().collect();
                let num = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok());
                // Fields 14, 15 (utime, stime), 20 (threads), 22 (start), 24 (rss) of
                // proc(5), counted here from field 3.
                if let (Some(u), Some(s)) = (num(11), num(12)) {
                    // A gauge: the counters of `metrics` hold whole numbers only.
                    metrics::gauge!("process_cpu_seconds_total").set((u + s) / tick as f64);
                }
                if let Some(t) = num(17) {
                    metrics::gauge!("process_threads").set(t);
                }
                if let Some(rss) = num(21) {
                    metrics::gauge!("process_resident_memory_bytes").set(rss * page as f64);
                }
                if let (Some(start), Some(boot)) = (num(19), boot_time()) {
                    metrics::gauge!("process_start_time_seconds").set(boot + start / tick as f64);
                }
            }
        }
        if let Ok(d) = std::fs::read_dir("/proc/self/fd") {
            metrics::gauge!("process_open_fds").set(d.count() as f64);
        }
        let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes the one struct passed.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0 {
            metrics::gauge!("process_max_fds").set(lim.rlim_cur as f64);
        }
    }
}

#[cfg(target_os = "linux")]
fn boot_time() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/stat").ok()?;
    s.lines().find_map(|l| l.strip_prefix("btime ")).and_then(|v| v.trim().parse().ok())
}
