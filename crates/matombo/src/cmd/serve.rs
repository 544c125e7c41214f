//! `matombo serve`: the web site (catalogue, rules, board, JSON API, online play) from
//! this one binary, with every file embedded.

use std::path::PathBuf;

use anyhow::Context;

/// Arguments of `matombo serve`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  matombo serve                       # http://127.0.0.1:8080/
  matombo serve --port 0 --open       # a free port, opened in the browser
  matombo serve --host 0.0.0.0 --port 80 --db /var/lib/matombo/online.sqlite
  matombo serve --db postgres://matombo@127.0.0.1:5432/matombo   # a PostgreSQL database
  matombo serve --allow-origin https://example.org   # pages of another site may use the API
  matombo serve --egtb egtb           # the AI and the board use the endgame tables in ./egtb

The first line on stdout is the address served, e.g. http://127.0.0.1:8080/.")]
pub struct Args {
    /// Address to listen on (0.0.0.0 for every interface).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on; 0 picks a free one.
    #[arg(long, short, default_value_t = 8080)]
    pub port: u16,
    /// Open the site in the default browser once the server listens.
    #[arg(long)]
    pub open: bool,
    /// Online play's database: a SQLite file (default: online.sqlite3 in the user's data
    /// directory), or a PostgreSQL URL `postgres://user@host:port/db` that several nodes
    /// may share.
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<PathBuf>,
    /// An origin (e.g. `https://example.org`) whose pages may post to the API and open the
    /// WebSocket, besides the server's own; repeatable; `*` allows any.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Endgame tables (the directory `matombo egtb build --dir` wrote): the AI probes the
    /// tables of its game's ruleset and the board shows their exact results. Every file
    /// is read and checked first; a missing or damaged table stops the start.
    #[arg(long, value_name = "DIR")]
    pub egtb: Option<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut limits = matombo_web::limits::ServerLimits { allowed_origins: args.allow_origin, ..Default::default() };
    // Idle sockets must never exhaust the descriptors: raise the limit, and keep the
    // connection caps below what it allows (HTTP and WebSocket connections, the database).
    if let Some(files) = matombo_web::limits::raise_open_files() {
        let online = matombo_web::online::Limits::default().max_connections as u64;
        let room = files.saturating_sub(online + 64) as usize;
        if room < limits.max_connections {
            tracing::warn!(open_files = files, "open-file limit low: at most {room} HTTP connections");
            limits.max_connections = room.max(16);
        }
    }
    // Read before anything listens: a damaged table is refused, never served from.
    let egtb = match &args.egtb {
        Some(dir) => {
            let egtb = matombo_web::egtb::Egtb::open(dir).with_context(|| {
                format!(
                    "reading the endgame tables in {} (rebuild a damaged one with `matombo egtb build`, or serve without --egtb)",
                    dir.display()
                )
            })?;
            for t in egtb.list().tables {
                tracing::info!("endgame tables of {} up to {} stones", t.ruleset, t.stones);
            }
            egtb
        }
        None => matombo_web::egtb::Egtb::none(),
    };
    let config = matombo_web::Config { host: args.host, port: args.port, db: args.db, limits };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the runtime")?;
    runtime.block_on(async move {
        // The URL decides: PostgreSQL for `postgres://…`, else a SQLite file. A database
        // that cannot be reached stops the start here, before anything listens.
        let db = matombo_web::online::db_of(config.db.as_deref()).map_err(|e| anyhow::anyhow!("{e}"))?;
        let online = matombo_web::online::OnlineState::connect(&db, matombo_web::online::Limits::default())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
            .context("opening the online-play database")?;
        let (listener, addr) = matombo_web::bind(&config)
            .await
            .with_context(|| format!("cannot listen on {}:{}", config.host, config.port))?;
        let url = format!("http://{addr}/");
        // The address on stdout, so that scripts can find a server started with --port 0.
        println!("{url}");
        tracing::info!("serving {url}");
        if args.open {
            open_browser(&url);
        }
        matombo_web::serve(listener, matombo_web::app_with_tables(online, egtb), config.limits).await.context("serving")
    })
}

/// Opens `url` in the desktop's browser; failing that, says so and carries on.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        ("open", vec![url])
    } else if cfg!(windows) {
        ("cmd", vec!["/C", "start", "", url])
    } else {
        ("xdg-open", vec![url])
    };
    if let Err(e) = std::process::Command::new(opener.0).args(&opener.1).spawn() {
        tracing::warn!("could not open a browser ({}: {e}); open {url} yourself", opener.0);
    }
}
