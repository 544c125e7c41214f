//! The JSON API of the board page, stateless: every request carries the game (start
//! position, turns played, decisions of the turn in progress) and the server replays it
//! with `matombo-core`, so nothing is kept per user on the server. The requests and
//! answers, and the functions that compute them, are those of the crate `matombo-api`,
//! which the in-browser engine runs too; this module puts them on HTTP.
//!
//! | method and path | body | answer |
//! |---|---|---|
//! | `GET /api/rulesets` | – | the games, their sizes (traditional first) and options |
//! | `POST /api/game` | [`GameRequest`] | [`GameState`]: board, legal decisions, events, outcome |
//! | `POST /api/ai` | [`AiRequest`] | [`AiAnswer`]: the AI's turn (token and decisions) |
//! | `POST /api/record/export` | [`ExportRequest`] | `{"record": "<PGN-like text>"}` |
//! | `POST /api/record/import` | `{"text": "<record>"}` | [`GameState`] of the recorded game |
//! | `POST /api/ruleset` | [`matombo_api::RulesetRequest`] | the ruleset's canonical name and description |
//! | `POST /api/setup` | [`matombo_api::SetupRequest`] | [`matombo_api::SetupAnswer`]: a position read or written |
//! | `GET /api/egtb`, `POST /api/egtb/probe` | see [`crate::egtb`] | the endgame tables (`serve --egtb`) |
//!
//! Malformed or illegal requests are answered `400` (cannot be read), `413` (too large) or
//! `422` (illegal in the position) with the error body of docs/api.md, [`ErrorBody`]
//! (`{"error": "<code>", "message": "<sentence cut to 200 characters>"}`), and change
//! nothing.
//!
//! Bounds (see docs/security.md): bodies at most [`MAX_BODY`] bytes; games at most
//! [`MAX_PLIES`] turns and [`MAX_DECISIONS`] decisions per list; records at most
//! [`MAX_TAGS`] tags of [`MAX_TAG_CHARS`] characters. Replays, records and searches run
//! on blocking threads under a CPU budget: past it `503` with `Retry-After`. `/api/ai`
//! runs at most one search per client address (`429` with `Retry-After` for a second one)
//! and queues at most [`AI_MAX_WAITING`] searches (`429` past it); a search whose client
//! hangs up is stopped, and its permit is held until it has stopped.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
pub use matombo_api::{
    game, games, AiAnswer, AiRequest, ErrorBody, ErrorCode, EventJson, ExportAnswer, ExportRequest, GameInfo,
    GameRequest, GameState, ImportAnswer, ImportRequest, Lost, OutcomeJson, Rows, RulesetInfo, SideJson,
    NSOLO_TRADITIONAL, TSORO_TRADITIONAL,
};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::egtb::Egtb;
use crate::limits::ClientAddr;

/// Largest request body of the JSON API, in bytes.
pub const MAX_BODY: usize = 128 * 1024;
/// Most turns a request's game may have. Not a rule (RULES.md sets no length limit): a
/// bound on the work and memory of one request. Real games are far shorter.
pub const MAX_PLIES: usize = 2000;
/// Most decisions in one list of a request (`pending`, `apply`).
pub const MAX_DECISIONS: usize = 400;
/// Most tags in a record, exported or imported.
pub const MAX_TAGS: usize = 64;
/// Most characters of one tag's name or value in an exported record.
pub const MAX_TAG_CHARS: usize = 256;
/// Most searches waiting for a permit, all clients together.
pub const AI_MAX_WAITING: usize = 16;
/// How long a replay or record job waits for the CPU budget before `503`.
const CPU_WAIT: Duration = Duration::from_secs(5);

/// An API error as an HTTP answer: the one error type of the board's API and online
/// play, its status from its code.
pub use matombo_online::ApiError;

fn bad(message: impl Into<String>) -> ApiError {
    ApiError(matombo_api::ApiError::bad(message))
}

/// A request past one of the bounds above (still `400`).
fn beyond(message: String) -> ApiError {
    ApiError(matombo_api::ApiError::new(ErrorCode::InvalidField, message))
}

fn internal(message: String) -> ApiError {
    ApiError(matombo_api::ApiError::new(ErrorCode::Internal, message))
}

/// An answer refusing work for now: `status` with `Retry-After: 1`; `503` is `busy` (the
/// server's), `429` is `rate_limited` (the client's own share).
fn busy(status: StatusCode, message: &str) -> Response {
    let code = if status == StatusCode::TOO_MANY_REQUESTS { ErrorCode::RateLimited } else { ErrorCode::Busy };
    ([(header::RETRY_AFTER, "1")], ApiError::new(code, message)).into_response()
}

/// The body as JSON; a body past the route's limit is `413` `too_large`, as documented.
pub(crate) fn parse_body<T: for<'de> serde::Deserialize<'de>>(
    body: Result<Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    let body = body.map_err(|e| {
        let code = if e.status() == StatusCode::PAYLOAD_TOO_LARGE { ErrorCode::TooLarge } else { ErrorCode::Malformed };
        ApiError(matombo_api::ApiError::new(code, e.body_text()))
    })?;
    Ok(matombo_api::parse_body(&body)?)
}

pub(crate) fn check_game(moves: &[String], lists: &[&[String]]) -> Result<(), ApiError> {
    if moves.len() > MAX_PLIES {
        return Err(beyond(format!("a game of at most {MAX_PLIES} turns, please ({} sent)", moves.len())));
    }
    if lists.iter().any(|l| l.len() > MAX_DECISIONS) {
        return Err(beyond(format!("at most {MAX_DECISIONS} decisions per list")));
    }
    Ok(())
}

/// Bounds the replays and record conversions running at once, on blocking threads.
#[derive(Clone)]
pub struct CpuBudget {
    permits: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
    max_waiting: usize,
}

impl CpuBudget {
    /// At most `n` jobs at once and `8 * n` waiting.
    pub fn new(n: usize) -> CpuBudget {
        let n = n.max(1);
        CpuBudget { permits: Arc::new(Semaphore::new(n)), waiting: Arc::new(AtomicUsize::new(0)), max_waiting: 8 * n }
    }

    /// Runs `f` on a blocking thread under the budget; `503` past it.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, Response> {
        let overloaded = || busy(StatusCode::SERVICE_UNAVAILABLE, "the server is busy; try again");
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(overloaded());
        }
        let permit = tokio::time::timeout(CPU_WAIT, self.permits.clone().acquire_owned()).await;
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        let Ok(Ok(permit)) = permit else { return Err(overloaded()) };
        // The permit goes with the job: it is held until the job ends, even if the client
        // has hung up meanwhile.
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            f()
        })
        .await
        .map_err(|e| internal(format!("job failed: {e}")).into_response())?
        .map_err(IntoResponse::into_response)
    }
}

/// `POST /api/game`.
pub async fn game_handler(
    State(cpu): State<CpuBudget>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<GameState>, Response> {
    let req: GameRequest = parse_body(body).map_err(IntoResponse::into_response)?;
    check_game(&req.moves, &[&req.pending, &req.apply]).map_err(IntoResponse::into_response)?;
    Ok(Json(cpu.run(move || Ok(game(&req)?)).await?))
}

/// Bounds the AI searches: `n` running at once, one per client address, and
/// [`AI_MAX_WAITING`] waiting.
#[derive(Clone)]
pub struct AiPool {
    permits: Arc<Semaphore>,
    running: Arc<AtomicUsize>,
    waiting: Arc<AtomicUsize>,
    per_addr: Arc<Mutex<HashMap<IpAddr, usize>>>,
    egtb: Egtb,
}

impl AiPool {
    /// A pool running at most `n` searches at once.
    pub fn new(n: usize) -> AiPool {
        AiPool {
            permits: Arc::new(Semaphore::new(n.max(1))),
            running: Arc::default(),
            waiting: Arc::default(),
            per_addr: Arc::default(),
            egtb: Egtb::none(),
        }
    }

    /// This pool's searches probing `egtb` (the tables of their ruleset, if held).
    pub fn with_tables(mut self, egtb: Egtb) -> AiPool {
        self.egtb = egtb;
        self
    }

    /// The endgame tables the searches probe.
    pub fn tables(&self) -> &Egtb {
        &self.egtb
    }

    /// Searches running now (their threads included, whether or not anyone waits for them).
    pub fn running(&self) -> usize {
        self.running.load(Ordering::Acquire)
    }

    /// Searches waiting for a permit now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Acquire)
    }
}

/// A client's place in the pool, from its request's arrival to its search's end.
struct AiTicket {
    pool: AiPool,
    addr: Option<IpAddr>,
    running: bool,
}

impl Drop for AiTicket {
    fn drop(&mut self) {
        if self.running {
            self.pool.running.fetch_sub(1, Ordering::AcqRel);
        }
        if let Some(a) = self.addr {
            let mut per = self.pool.per_addr.lock().expect("ai pool lock");
            if let Some(n) = per.get_mut(&a) {
                *n -= 1;
                if *n == 0 {
                    per.remove(&a);
                }
            }
        }
    }
}

/// Sets the stop flag when dropped: the handler's future is dropped when its client hangs up.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The longest any search may run, whatever its level says.
const AI_HARD_LIMIT: Duration = Duration::from_secs(10);

/// `POST /api/ai`.
pub async fn ai_handler(
    State(pool): State<AiPool>,
    ClientAddr(addr): ClientAddr,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<AiAnswer>, Response> {
    let req: AiRequest = parse_body(body).map_err(IntoResponse::into_response)?;
    check_game(&req.moves, &[]).map_err(IntoResponse::into_response)?;
    if let Some(a) = addr {
        let mut per = pool.per_addr.lock().expect("ai pool lock");
        let n = per.entry(a).or_default();
        if *n >= 1 {
            return Err(busy(StatusCode::TOO_MANY_REQUESTS, "one search at a time per client; try again"));
        }
        *n += 1;
    }
    let mut ticket = AiTicket { pool: pool.clone(), addr, running: false };
    if pool.waiting.fetch_add(1, Ordering::AcqRel) >= AI_MAX_WAITING {
        pool.waiting.fetch_sub(1, Ordering::AcqRel);
        return Err(busy(StatusCode::TOO_MANY_REQUESTS, "too many searches waiting; try again"));
    }
    let permit: Result<OwnedSemaphorePermit, _> = pool.permits.clone().acquire_owned().await;
    pool.waiting.fetch_sub(1, Ordering::AcqRel);
    let permit = permit.map_err(|_| bad("server shutting down").into_response())?;
    pool.running.fetch_add(1, Ordering::AcqRel);
    ticket.running = true;
    let stop = Arc::new(AtomicBool::new(false));
    let _stop_on_hang_up = StopOnDrop(stop.clone());
    let seed = rand::random();
    let egtb = pool.egtb.clone();
    let result = tokio::task::spawn_blocking(move || {
        // Held until the search has ended, whether or not its client still waits.
        let _held = (permit, ticket);
        let job = req.prepare(seed)?;
        let limit = (job.level.time() * 2).min(AI_HARD_LIMIT);
        // The stop flag bounds the search even if its own clock overruns.
        let flag = stop.clone();
        let timer = std::thread::spawn(move || {
            let started = std::time::Instant::now();
            while !flag.load(Ordering::Relaxed) {
                let left = limit.saturating_sub(started.elapsed());
                if left.is_zero() {
                    flag.store(true, Ordering::Relaxed);
                    break;
                }
                std::thread::park_timeout(left.min(Duration::from_millis(50)));
            }
        });
        let mut engine = matombo_ai::Engine::new(job.seed);
        if let Some(t) = egtb.get(job.position.ruleset()) {
            engine = engine.with_tables(t);
        }
        let r = job.run_with(engine, &stop);
        stop.store(true, Ordering::Relaxed);
        timer.thread().unpark();
        let _ = timer.join();
        Ok::<_, ApiError>(r?)
    })
    .await
    .map_err(|e| internal(format!("search failed: {e}")).into_response())?;
    result.map(Json).map_err(IntoResponse::into_response)
}

fn check_tags<'a>(tags: impl Iterator<Item = (&'a String, &'a String)>) -> Result<(), ApiError> {
    let mut n = 0;
    for (k, v) in tags {
        n += 1;
        if n > MAX_TAGS {
            return Err(beyond(format!("at most {MAX_TAGS} tags in a record")));
        }
        if k.chars().count() > MAX_TAG_CHARS || v.chars().count() > MAX_TAG_CHARS {
            return Err(beyond(format!("tag names and values of at most {MAX_TAG_CHARS} characters")));
        }
    }
    Ok(())
}

/// `POST /api/record/export`.
pub async fn export_handler(
    State(cpu): State<CpuBudget>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<ExportAnswer>, Response> {
    let req: ExportRequest = parse_body(body).map_err(IntoResponse::into_response)?;
    check_game(&req.moves, &[]).map_err(IntoResponse::into_response)?;
    check_tags(req.tags.iter()).map_err(IntoResponse::into_response)?;
    Ok(Json(cpu.run(move || Ok(matombo_api::export(&req)?)).await?))
}

/// `POST /api/record/import`: the game of a record, as a [`GameState`] (plus its tags).
pub async fn import_handler(
    State(cpu): State<CpuBudget>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<ImportAnswer>, Response> {
    let req: ImportRequest = parse_body(body).map_err(IntoResponse::into_response)?;
    // Counted before parsing, so that the parser never sees more than the bound.
    let tags = req.text.lines().filter(|l| l.trim_start().starts_with('[')).count();
    if tags > MAX_TAGS {
        return Err(beyond(format!("at most {MAX_TAGS} tags in a record ({tags} sent)")).into_response());
    }
    let answer = cpu.run(move || Ok(matombo_api::import(&req)?)).await?;
    if answer.state.moves.len() > MAX_PLIES {
        return Err(beyond(format!("a game of at most {MAX_PLIES} turns, please")).into_response());
    }
    Ok(Json(answer))
}

/// Any path under `/api/` that is no route: `404` with the error body.
pub async fn no_such_route(uri: axum::http::Uri) -> Response {
    let message = format!("no API route {}", uri.path());
    (StatusCode::NOT_FOUND, Json(ErrorBody::new(ErrorCode::NotFound, &message))).into_response()
}

// The method guards are shared with online play's routes.
pub use matombo_online::methods::{get_only, post_only, wrong_method};

/// `POST /api/ruleset`: a ruleset's canonical name from its name or its game and options.
pub async fn ruleset_handler(body: Result<Bytes, BytesRejection>) -> Result<Json<matombo_api::RulesetInfo>, Response> {
    let req: matombo_api::RulesetRequest = parse_body(body).map_err(IntoResponse::into_response)?;
    Ok(Json(matombo_api::ruleset(&req).map_err(|e| ApiError(e).into_response())?))
}

/// `POST /api/setup`: a position string read into rows, or rows written as one.
pub async fn setup_handler(body: Result<Bytes, BytesRejection>) -> Result<Json<matombo_api::SetupAnswer>, Response> {
    let req: matombo_api::SetupRequest = parse_body(body).map_err(IntoResponse::into_response)?;
    Ok(Json(matombo_api::setup(&req).map_err(|e| ApiError(e).into_response())?))
}

/// `GET /api/rulesets`.
pub async fn rulesets_handler() -> Json<Vec<GameInfo>> {
    Json(games())
}

/// `GET /healthz`: `{"status":"ok", …}` with the searches running and waiting.
pub async fn health_handler(State((pool, _cpu)): State<(AiPool, CpuBudget)>) -> Response {
    (
        [(header::CACHE_CONTROL, "no-store")],
        Json(serde_json::json!({
            "status": "ok",
            "searches_running": pool.running(),
            "searches_waiting": pool.waiting(),
        })),
    )
        .into_response()
}

/// The state-changing routes of the API, with their body limits.
pub fn routes(pool: AiPool, cpu: CpuBudget) -> Router {
    let limit = DefaultBodyLimit::max(MAX_BODY);
    Router::new()
        .route("/api/game", post_only(game_handler).with_state(cpu.clone()))
        .route("/api/record/export", post_only(export_handler).with_state(cpu.clone()))
        .route("/api/record/import", post_only(import_handler).with_state(cpu.clone()))
        .route("/api/ruleset", post_only(ruleset_handler))
        .route("/api/setup", post_only(setup_handler))
        .route("/api/egtb/probe", post_only(crate::egtb::probe_handler).with_state((pool.egtb.clone(), cpu.clone())))
        .route("/api/ai", post_only(ai_handler).with_state(pool))
        .layer(limit)
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt;

    use super::*;

    #[tokio::test]
    async fn refusals_for_now_have_the_error_body_and_retry_after() {
        for (status, code) in [
            (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Busy),
            (StatusCode::TOO_MANY_REQUESTS, ErrorCode::RateLimited),
        ] {
            let r = busy(status, "try again");
            assert_eq!(r.status(), status);
            assert_eq!(r.headers()[header::RETRY_AFTER], "1");
            let bytes = r.into_body().collect().await.unwrap().to_bytes();
            let body: ErrorBody = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(body, ErrorBody::new(code, "try again"));
        }
    }
}
