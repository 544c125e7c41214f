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
  matombo serve --host 0.0.0.0 --public-host mancala.example   # answer to this name too
  matombo serve --egtb egtb           # the AI and the board use the endgame tables in ./egtb
  matombo serve --trusted-proxy 127.0.0.1/32 --metrics 127.0.0.1:9090   # behind nginx
  matombo serve --tls-cert cert.pem --tls-key key.pem --port 443 --hsts

The first line on stdout is the address served, e.g. http://127.0.0.1:8080/.
SIGTERM drains (WebSockets closed with 1012, exit 0 within 10 s); see docs/operating.md.")]
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
    /// A host name the server answers to (e.g. `mancala.example`; repeatable), besides the
    /// loopback names and the address it listens on; a request with any other `Host`
    /// is refused (421), against DNS rebinding. Behind a proxy: the public name.
    #[arg(long, value_name = "NAME")]
    pub public_host: Vec<String>,
    /// Endgame tables (the directory `matombo egtb build --dir` wrote): the AI probes the
    /// tables of its game's ruleset and the board shows their exact results. Every file
    /// is read and checked first; a missing or damaged table stops the start.
    #[arg(long, value_name = "DIR")]
    pub egtb: Option<PathBuf>,
    /// A reverse proxy's network (CIDR, e.g. `127.0.0.1/32`, `10.0.0.0/8`; repeatable):
    /// from a peer inside it, the client's address is read from `Forwarded` or
    /// `X-Forwarded-For`, and the scheme from `X-Forwarded-Proto` (docs/operating.md).
    #[arg(long, value_name = "CIDR")]
    pub trusted_proxy: Vec<String>,
    /// Send `Strict-Transport-Security` to visitors on HTTPS (this server's TLS, or a
    /// trusted proxy's). Only once HTTPS works for good: browsers remember it for a year.
    #[arg(long)]
    pub hsts: bool,
    /// Serve Prometheus metrics at http://ADDR/metrics, on a listener of their own (never
    /// on the public port), e.g. `127.0.0.1:9090`.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<std::net::SocketAddr>,
    /// Serve HTTPS (and wss://) on the port with this certificate chain (PEM); needs
    /// --tls-key. Both files are read again on SIGHUP (renewal without a restart).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// For measurements only (`matombo loadtest --rooms N --url …` from one address): the
    /// online limits of an in-process load test of N rooms. Never on a public server.
    #[arg(long, value_name = "ROOMS", hide = true)]
    pub loadtest_limits: Option<usize>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let trusted_proxies =
        matombo_web::proxy::TrustedProxies::parse(&args.trusted_proxy).context("reading --trusted-proxy")?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => {
            Some(matombo_web::tls::Tls::load(cert, key).context("reading --tls-cert and --tls-key")?)
        }
        _ => None,
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    let mut limits = matombo_web::limits::ServerLimits {
        allowed_origins: args.allow_origin,
        trusted_proxies,
        hsts: args.hsts,
        tls,
        ..Default::default()
    };
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
    let public_host = args.public_host;
    // Checked before anything starts; set on the address actually bound below.
    matombo_web::hosts::AllowedHosts::of(std::net::Ipv4Addr::LOCALHOST.into(), &public_host)
        .map_err(anyhow::Error::msg)?;
    let mut config = matombo_web::Config { host: args.host, port: args.port, db: args.db, limits };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the runtime")?;
    let served = runtime.block_on(async move {
        // Installed before anything records, so that every figure is counted.
        let recorder = match args.metrics {
            Some(_) => Some(matombo_web::metrics::install().map_err(anyhow::Error::msg)?),
            None => None,
        };
        let online_limits = match args.loadtest_limits {
            Some(rooms) => {
                tracing::warn!("--loadtest-limits: the limits of a load test, not of a public server");
                matombo_web::online::Limits::loadtest(rooms)
            }
            None => matombo_web::online::Limits::default(),
        };
        // The URL decides: PostgreSQL for `postgres://…`, else a SQLite file. A database
        // that cannot be reached stops the start here, before anything listens.
        let db = matombo_web::online::db_of(config.db.as_deref()).map_err(|e| anyhow::anyhow!("{e}"))?;
        let online = matombo_web::online::OnlineState::connect(&db, online_limits)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
            .context("opening the online-play database")?;
        let (listener, addr) = matombo_web::bind(&config)
            .await
            .with_context(|| format!("cannot listen on {}:{}", config.host, config.port))?;
        config.limits.allowed_hosts =
            matombo_web::hosts::AllowedHosts::of(addr.ip(), &public_host).map_err(anyhow::Error::msg)?;
        let (app, pool) = matombo_web::app_observed(online.clone(), egtb);
        if let (Some(handle), Some(maddr)) = (recorder, args.metrics) {
            let ml = matombo_web::metrics::bind(maddr)
                .await
                .with_context(|| format!("cannot listen on {maddr} for --metrics"))?;
            let local = ml.local_addr().context("the metrics listener")?;
            tracing::info!("metrics at http://{local}/metrics");
            let scrape = matombo_web::metrics::Scrape { handle, online: online.clone(), pool };
            tokio::spawn(async move {
                if let Err(e) = matombo_web::metrics::serve_metrics(ml, scrape, std::future::pending()).await {
                    tracing::error!(error = %e, "the metrics listener failed");
                }
            });
        }
        if let Some(tls) = &config.limits.tls {
            tls.reload_on_sighup();
        }
        let url = format!("{scheme}://{addr}/");
        // The address on stdout, so that scripts can find a server started with --port 0.
        println!("{url}");
        tracing::info!("serving {url}");
        if args.open {
            open_browser(&url);
        }
        matombo_web::shutdown::serve_draining(listener, app, config.limits, online).await.context("serving")
    });
    // Whatever still runs (a search, a blocking read) must not hold the exit past the drain.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    served
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
