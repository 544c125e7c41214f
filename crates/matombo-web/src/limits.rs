//! Connection-level protection of the server: the accept loop with caps per address and
//! in total (at the total cap the oldest idle connection makes way for the new one),
//! header-read and request timeouts, and the request policy (JSON content type
//! and allowed origins for everything that changes state, the WebSocket included).
//! The bounds and why they were chosen: docs/security.md.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use hyper_util::rt::{TokioIo, TokioTimer};
use matombo_api::{ErrorBody, ErrorCode};
use tower::ServiceExt as _;

/// Bounds on connections and requests; the defaults suit a public server.
#[derive(Clone, Debug)]
pub struct ServerLimits {
    /// Time to receive a request's headers, counted from the connection's start or the
    /// end of its previous answer (so it is also the keep-alive idle timeout).
    pub header_read: Duration,
    /// Time for a whole request: reading its body and answering it.
    pub request: Duration,
    /// Open HTTP connections in all (WebSocket connections, once upgraded, are counted
    /// by online play's own caps instead).
    pub max_connections: usize,
    /// Open HTTP connections from one address.
    pub connections_per_addr: usize,
    /// Origins (e.g. `https://example.org`) allowed besides the server's own; `*`: any.
    pub allowed_origins: Vec<String>,
    /// The `Host` names answered (see [`crate::hosts`]); the default answers every one.
    pub allowed_hosts: crate::hosts::AllowedHosts,
    /// Reverse proxies whose forwarding headers name the client (see [`crate::proxy`]);
    /// their connections are not held to `connections_per_addr`.
    pub trusted_proxies: crate::proxy::TrustedProxies,
    /// Send `Strict-Transport-Security` on answers to HTTPS visitors.
    pub hsts: bool,
    /// TLS of the server's own (None: plain HTTP).
    pub tls: Option<crate::tls::Tls>,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            header_read: Duration::from_secs(10),
            request: Duration::from_secs(30),
            max_connections: 4096,
            connections_per_addr: 128,
            allowed_origins: Vec::new(),
            allowed_hosts: Default::default(),
            trusted_proxies: Default::default(),
            hsts: false,
            tls: None,
        }
    }
}

// The same cut as the page's engine: error answers agree byte for byte.
pub use matombo_api::{cut, MAX_ERROR_CHARS};

/// Open HTTP connections, in all and by address, and each one's state, oldest first.
#[derive(Default)]
struct ConnTable {
    total: AtomicUsize,
    per_addr: Mutex<HashMap<IpAddr, usize>>,
    next_id: AtomicU64,
    live: Mutex<BTreeMap<u64, Arc<ConnCtl>>>,
}

/// What the accept loop knows of a connection: requests being answered, and the signal
/// that closes it to make way for a new one.
#[derive(Default)]
struct ConnCtl {
    in_flight: AtomicUsize,
    evict: tokio::sync::Notify,
}

/// A connection counted in the table; uncounted on drop.
struct ConnSlot {
    table: Arc<ConnTable>,
    addr: IpAddr,
    id: u64,
    ctl: Arc<ConnCtl>,
}

impl Drop for ConnSlot {
    fn drop(&mut self) {
        self.table.live.lock().expect("connection table").remove(&self.id);
        self.table.total.fetch_sub(1, Ordering::AcqRel);
        let mut per = self.table.per_addr.lock().expect("connection table");
        if let Some(n) = per.get_mut(&self.addr) {
            *n -= 1;
            if *n == 0 {
                per.remove(&self.addr);
            }
        }
    }
}

impl ConnTable {
    /// Counts a new connection from `addr`: refused past the per-address cap; at the total
    /// cap the oldest connection with no request in flight (an idle keep-alive, or a socket
    /// that never sent a request) is closed to make way, so that idle sockets cannot lock
    /// out new clients; refused only when every connection is busy.
    fn take(self: &Arc<Self>, addr: IpAddr, limits: &ServerLimits) -> Option<ConnSlot> {
        {
            let mut per = self.per_addr.lock().expect("connection table");
            let n = per.entry(addr).or_default();
            // A trusted proxy carries many visitors: their own limits apply per request.
            if *n >= limits.connections_per_addr && !limits.trusted_proxies.contains(addr) {
                return None;
            }
            *n += 1;
        }
        if self.total.fetch_add(1, Ordering::AcqRel) >= limits.max_connections && !self.evict_idle() {
            self.total.fetch_sub(1, Ordering::AcqRel);
            let mut per = self.per_addr.lock().expect("connection table");
            if let Some(n) = per.get_mut(&addr) {
                *n -= 1;
                if *n == 0 {
                    per.remove(&addr);
                }
            }
            return None;
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let ctl = Arc::new(ConnCtl::default());
        self.live.lock().expect("connection table").insert(id, ctl.clone());
        Some(ConnSlot { table: self.clone(), addr, id, ctl })
    }

    /// Closes the oldest idle connection; false if there is none. Its slot is freed when
    /// its task ends, a moment later: the total may pass the cap by the connections
    /// being closed.
    fn evict_idle(&self) -> bool {
        let mut live = self.live.lock().expect("connection table");
        let Some(id) = live.iter().find(|(_, c)| c.in_flight.load(Ordering::Acquire) == 0).map(|(&id, _)| id) else {
            return false;
        };
        let ctl = live.remove(&id).expect("found above");
        // `notify_one` keeps the signal if the task is not waiting yet.
        ctl.evict.notify_one();
        true
    }
}

/// Counts a request in flight on its connection until its answer is ready.
struct InFlight(Arc<ConnCtl>);

impl InFlight {
    fn new(ctl: &Arc<ConnCtl>) -> InFlight {
        ctl.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(ctl.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves `app` on `listener` under `limits` until `stop` resolves; then stops accepting,
/// lets the requests in flight finish (at most `limits.request`), and returns.
pub async fn serve_until(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: ServerLimits,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let limits = Arc::new(limits);
    let app = policy(app, limits.clone());
    let table = Arc::new(ConnTable::default());
    let (closing_tx, closing) = tokio::sync::watch::channel(false);
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1.timer(TokioTimer::new()).header_read_timeout(limits.header_read).keep_alive(true).max_buf_size(64 * 1024);
    let mut refused: u64 = 0;
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut stop => break,
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(e) => {
                    // Out of file descriptors (or the like): pause instead of spinning, the
                    // connections open meanwhile keep being served.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Some(slot) = table.take(peer.ip(), &limits) else {
            refused += 1;
            if refused.is_power_of_two() {
                tracing::warn!(refused, "connection refused: too many open connections");
            }
            continue;
        };
        let _ = stream.set_nodelay(true);
        let tls = limits.tls.as_ref().map(|t| t.acceptor());
        let (ctl, app, limits_conn) = (slot.ctl.clone(), app.clone(), limits.clone());
        let svc = move |mut req: Request<hyper::body::Incoming>| {
            // Busy from the request's headers until its answer is ready: not evicted.
            let busy = InFlight::new(&ctl);
            // The one place where the client's address is decided (see `crate::proxy`):
            // `ConnectInfo` carries the visitor, `PeerAddr` the TCP peer.
            let tls = limits_conn.tls.is_some();
            let client = crate::proxy::resolve(peer.ip(), req.headers(), &limits_conn.trusted_proxies, tls);
            req.extensions_mut().insert(ConnectInfo(SocketAddr::new(client.ip, peer.port())));
            req.extensions_mut().insert(crate::proxy::PeerAddr(peer));
            req.extensions_mut().insert(client);
            let span = tracing::info_span!("request", client = %client.ip);
            let answer = app.clone().oneshot(req.map(Body::new));
            tracing::Instrument::instrument(
                async move {
                    let r = answer.await;
                    drop(busy);
                    r
                },
                span,
            )
        };
        let (closing, http1, header_read) = (closing.clone(), http1.clone(), limits.header_read);
        tokio::spawn(async move {
            match tls {
                None => drive(&http1, stream, svc, &slot, closing).await,
                Some(acceptor) => {
                    // The handshake is held to the header-read time, as a slow request is.
                    let shake = tokio::time::timeout(header_read, acceptor.accept(stream));
                    tokio::select! {
                        r = shake => if let Ok(Ok(stream)) = r {
                            drive(&http1, stream, svc, &slot, closing).await;
                        },
                        _ = slot.ctl.evict.notified() => {}
                    }
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    let _ = closing_tx.send(true);
    let deadline = tokio::time::Instant::now() + limits.request;
    while table.total.load(Ordering::Acquire) > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Serves one connection until it ends, is evicted, or the server closes.
async fn drive<I, F, Fut>(
    http1: &hyper::server::conn::http1::Builder,
    io: I,
    svc: F,
    slot: &ConnSlot,
    mut closing: tokio::sync::watch::Receiver<bool>,
) where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    F: FnMut(Request<hyper::body::Incoming>) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = Result<Response, std::convert::Infallible>> + Send + 'static,
{
    let svc = hyper_util::service::TowerToHyperService::new(tower::service_fn(svc));
    let conn = http1.serve_connection(TokioIo::new(io), svc).with_upgrades();
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        // Made way for a new connection: closed at once (dropped).
        _ = slot.ctl.evict.notified() => {}
        _ = async { closing.wait_for(|c| *c).await.is_ok() } => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}

/// The request policy around `app`: the request timeout, then for state-changing requests
/// and WebSocket upgrades the origin check, and for bodies the JSON content type.
fn policy(app: Router, limits: Arc<ServerLimits>) -> Router {
    app.layer(axum::middleware::from_fn_with_state(limits, check_request))
}

fn refuse(status: StatusCode, code: ErrorCode, message: &str) -> Response {
    crate::metrics::refusal(code);
    (status, Json(ErrorBody::new(code, message))).into_response()
}

/// Whether the `Origin` of a request is allowed: absent (not a browser, or a same-origin
/// GET), the server's own (`Host`, with the visitor's scheme when it is known: this
/// server's TLS, or a trusted proxy's `X-Forwarded-Proto`), or one of the allowed ones.
fn origin_allowed(headers: &HeaderMap, limits: &ServerLimits, https: Option<bool>) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else { return true };
    let Ok(origin) = origin.to_str() else { return false };
    if limits.allowed_origins.iter().any(|o| o == "*" || o.trim_end_matches('/') == origin) {
        return true;
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let own = match https {
        Some(true) => origin.strip_prefix("https://"),
        // Served over plain HTTP, told by nobody: either scheme (a proxy may add TLS).
        _ => origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")),
    };
    !host.is_empty() && own == Some(host)
}

async fn check_request(State(limits): State<Arc<ServerLimits>>, req: Request, next: Next) -> Response {
    let https = req.extensions().get::<crate::proxy::Client>().and_then(|c| c.https);
    let mut answer = checked_request(&limits, https, req, next).await;
    if limits.hsts && https == Some(true) {
        answer
            .headers_mut()
            .insert(header::STRICT_TRANSPORT_SECURITY, axum::http::HeaderValue::from_static("max-age=31536000"));
    }
    answer
}

async fn checked_request(limits: &ServerLimits, https: Option<bool>, req: Request, next: Next) -> Response {
    // First of all, before anything is read or done: DNS rebinding (crate::hosts).
    if !limits.allowed_hosts.allows(req.headers().get(header::HOST).and_then(|h| h.to_str().ok())) {
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            ErrorCode::UnknownHost,
            "this server does not answer to this host name (the server adds names with --public-host)",
        );
    }
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let upgrade = req.headers().get(header::UPGRADE).is_some();
    if (changes || upgrade) && !origin_allowed(req.headers(), limits, https) {
        return refuse(
            StatusCode::FORBIDDEN,
            ErrorCode::ForbiddenOrigin,
            "this origin may not use the API (the server allows others with --allow-origin)",
        );
    }
    if changes {
        let json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ErrorCode::ContentType,
                "send Content-Type: application/json",
            );
        }
    }
    match tokio::time::timeout(limits.request, next.run(req)).await {
        Ok(r) => r,
        Err(_) => refuse(StatusCode::REQUEST_TIMEOUT, ErrorCode::Timeout, "the request took too long"),
    }
}

/// Backlog of the listening socket (the kernel caps it at `net.core.somaxconn`). Tokio's
/// default, 1,024, overflows under a connection flood: the SYN of an honest client is then
/// dropped and retried a second later, so its request takes a second.
pub const LISTEN_BACKLOG: u32 = 4096;

/// A listener on `addr` with [`LISTEN_BACKLOG`].
pub fn listen(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let sock = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    // As std's listener does: a restarted server can bind while old connections linger.
    #[cfg(unix)]
    sock.set_reuseaddr(true)?;
    sock.bind(addr)?;
    sock.listen(LISTEN_BACKLOG)
}

/// Raises the soft limit on open files to the hard limit (at most 65,536) where the
/// system allows it; returns the soft limit in force afterwards.
#[cfg(unix)]
pub fn raise_open_files() -> Option<u64> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit read or write the one struct passed, nothing else.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return None;
        }
        let want = lim.rlim_max.min(65_536);
        if lim.rlim_cur < want {
            let raised = libc::rlimit { rlim_cur: want, rlim_max: lim.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim.rlim_cur = want;
            }
        }
    }
    // `rlim_t` is not 64 bits on every Unix.
    #[allow(clippy::unnecessary_cast)]
    Some(lim.rlim_cur as u64)
}

/// Not available off Unix.
#[cfg(not(unix))]
pub fn raise_open_files() -> Option<u64> {
    None
}

/// The client's address (None when served without connection info, e.g. in tests
/// through the router alone).
pub struct ClientAddr(pub Option<IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(ClientAddr(parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip())))
    }
}
