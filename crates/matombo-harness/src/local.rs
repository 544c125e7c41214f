//! A server started in this process on loopback, for the load test and the attack
//! harness: its own Tokio runtime of two threads (as `serve` has on a two-core machine,
//! so that the clients' work is not the server's), a fresh database, and the production
//! connection limits of `serve` (`ServerLimits::default()`), so that the figures are those
//! of production. Stopped, and its database removed, on drop.

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::Router;

use matombo_online::{Limits, OnlineState};
use matombo_web::limits::ServerLimits;

/// A running server; see the module.
pub(crate) struct LocalServer {
    /// Where it listens.
    pub(crate) addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    dir: PathBuf,
}

impl LocalServer {
    /// Starts `app` (made from the online state) with online play under `limits`; `name`
    /// names the database directory and the thread.
    pub(crate) fn start(
        name: &str,
        limits: Limits,
        app: impl FnOnce(OnlineState) -> Router,
    ) -> Result<LocalServer, String> {
        // Unique per server: one process (a test binary) may run several at once.
        static SERVERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = SERVERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("matombo-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let state =
            OnlineState::open_with_limits(Some(&dir.join("online.sqlite3")), limits).map_err(|e| e.to_string())?;
        let app = app(state);
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(format!("{name}-server"))
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build();
                let Ok(rt) = rt else { return };
                rt.block_on(async move {
                    let listener = match matombo_web::limits::listen(([127, 0, 0, 1], 0).into()) {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = addr_tx.send(Err(e.to_string()));
                            return;
                        }
                    };
                    let _ = addr_tx.send(listener.local_addr().map_err(|e| e.to_string()));
                    let stop = async {
                        let _ = stop_rx.await;
                    };
                    // As `serve` does: the loopback names and the address bound.
                    let limits = ServerLimits {
                        allowed_hosts: matombo_web::hosts::AllowedHosts::of([127, 0, 0, 1].into(), &[])
                            .expect("no public name"),
                        ..ServerLimits::default()
                    };
                    let _ = matombo_web::limits::serve_until(listener, app, limits, stop).await;
                });
            })
            .map_err(|e| e.to_string())?;
        let addr = addr_rx.recv().map_err(|e| e.to_string())??;
        Ok(LocalServer { addr, stop: Some(stop_tx), thread: Some(thread), dir })
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The loopback address of an `http://host:port` URL (`localhost` allowed); anything else
/// is refused, for `who` (the tool) runs against loopback only.
pub(crate) fn loopback(url: &str, who: &str) -> Result<SocketAddr, String> {
    let rest = url.strip_prefix("http://").ok_or("the URL must start with http://")?;
    let hostport = rest.split('/').next().unwrap_or_default().replacen("localhost", "127.0.0.1", 1);
    let addr: SocketAddr = hostport.parse().map_err(|_| format!("{hostport:?} is not host:port"))?;
    if !addr.ip().is_loopback() {
        return Err(format!("{who} only runs against loopback (127.0.0.1)"));
    }
    Ok(addr)
}
