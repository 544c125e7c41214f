//! # matombo-web
//!
//! The web server of matombo: the catalogue of games, the rules pages in four languages,
//! the board page (against the AI or two people on one device), the stateless JSON API the
//! board uses (see [`api`]), and online play (see [`online`]). Every file the site needs
//! is embedded in the binary.
#![deny(missing_docs)]

pub mod api;
pub mod assets;
pub mod backup;
pub mod egtb;
pub mod headers;
pub mod hosts;
pub mod layout;
pub mod learn;
pub mod limits;
pub mod metrics;
pub mod offline;
pub mod pages;
pub mod proxy;
pub mod puzzles;
pub mod shutdown;
pub mod static_site;
pub mod tls;
pub mod words;

/// Online play, its own crate; the site mounts its routes and draws its pages.
pub use matombo_online as online;

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::routing::get;
use axum::Router;

/// How to run the server.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on, e.g. `127.0.0.1`.
    pub host: String,
    /// Port; 0 picks a free one.
    pub port: u16,
    /// Online play's database file (None: the default file in the user's data directory).
    pub db: Option<PathBuf>,
    /// Connection and request bounds.
    pub limits: limits::ServerLimits,
}

/// The site without online play: pages, static files and the JSON API, with the site's
/// headers and compression.
pub fn site() -> Router {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    site_with(api::AiPool::new(threads), api::CpuBudget::new(threads))
}

/// The site without online play, with a chosen search pool and CPU budget.
pub fn site_with(pool: api::AiPool, cpu: api::CpuBudget) -> Router {
    headers::harden(site_routes(pool, cpu))
}

fn site_routes(pool: api::AiPool, cpu: api::CpuBudget) -> Router {
    Router::new()
        .route("/", get(pages::catalogue_page))
        .route("/rules/{game}", get(pages::rules_page))
        .route("/play", get(pages::play_page))
        .route("/review", get(pages::review_page))
        .route("/learn", get(learn::index_page))
        .route("/learn/{id}", get(learn::lesson_page))
        .route("/puzzles", get(puzzles::index_page))
        .route("/puzzles/{id}", get(puzzles::puzzle_page))
        .route("/static/{*path}", get(assets::static_file))
        .route("/sw.js", get(offline::service_worker_file))
        .route("/manifest.webmanifest", get(offline::manifest_file))
        .route("/api/rulesets", api::get_only(api::rulesets_handler))
        .route("/api/egtb", api::get_only(egtb::list_handler).with_state(pool.tables().clone()))
        .route("/api/{*rest}", axum::routing::any(api::no_such_route))
        .route("/healthz", get(api::health_handler).with_state((pool.clone(), cpu.clone())))
        .merge(api::routes(pool, cpu))
}

/// The whole site, online play included.
pub fn app(online: online::OnlineState) -> Router {
    app_with_tables(online, egtb::Egtb::none())
}

/// The whole site, online play included, the AI and `/api/egtb` using the endgame tables
/// `egtb`.
pub fn app_with_tables(online: online::OnlineState, egtb: egtb::Egtb) -> Router {
    app_observed(online, egtb).0
}

/// The whole site as `matombo serve` runs it: [`app_with_tables`] with `/readyz` and
/// the requests counted for the metrics; the engine's pool comes back for the metrics.
pub fn app_observed(online: online::OnlineState, egtb: egtb::Egtb) -> (Router, api::AiPool) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let pool = api::AiPool::new(threads).with_tables(egtb);
    let routes = site_routes(pool.clone(), api::CpuBudget::new(threads))
        .route("/readyz", get(shutdown::readyz).with_state(online.clone()));
    let pages = online::PAGE_PATHS.iter().fold(Router::new(), |r, path| r.route(path, get(pages::online_page)));
    // Identities' puzzle ratings, rated against the shipped puzzles.
    let puzzles = online::puzzles::routes(online.clone(), online::puzzles::PuzzleSet::from_jsonl(puzzles::jsonl()));
    (headers::harden(metrics::count_requests(routes.merge(pages).merge(puzzles).merge(online::routes(online)))), pool)
}

/// Binds the listener; the address actually bound is returned (useful with port 0).
pub async fn bind(config: &Config) -> std::io::Result<(tokio::net::TcpListener, SocketAddr)> {
    let addr = tokio::net::lookup_host((config.host.as_str(), config.port))
        .await?
        .next()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, format!("no address for {}", config.host)))?;
    let listener = limits::listen(addr)?;
    let addr = listener.local_addr()?;
    Ok((listener, addr))
}

/// Serves `app` on `listener` under `limits` until Ctrl-C (or SIGTERM on Unix).
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: limits::ServerLimits,
) -> std::io::Result<()> {
    limits::serve_until(listener, app, limits, shutdown()).await
}

async fn shutdown() {
    shutdown::signal().await;
    tracing::info!("shutting down");
}
