//! The attack harness behind `matombo attack`: each attack of issue 29 replayed on
//! loopback against a server (one started in this process with the production limits, a
//! fresh database for every attack, or one at a given URL) while an honest client measures
//! `GET /` and plays an online game turn by turn. Every attack gets a verdict against
//! [`Thresholds`]. The attackers connect from addresses of their own (127.1.x.y, 127.2.x.y,
//! …), the honest client from 127.0.0.1, as on a real network where they are different
//! machines. Protocol and figures: docs/security.md.

mod attacks;
mod audience;
pub mod honest;
mod lobby_flood;
pub mod net;
mod rating_farm;
mod rebinding;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use honest::HonestReport;

use crate::local::{loopback, LocalServer};
use matombo_online::Limits;

/// The tool's name in messages.
const WHO: &str = "the attack harness";

/// How big the attacks are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// The sizes of issue 29 (e.g. 20,000 idle sockets, 500 addresses filling rooms).
    Full,
    /// Smaller sizes for CI, a few seconds each.
    Short,
}

/// The attacks, in the order they run.
pub const ATTACKS: [&str; 11] = [
    "foreign-origin",
    "huge-tags",
    "long-game",
    "one-room",
    "create-resign",
    "idle-sockets",
    "room-fill",
    "audience",
    "dns-rebinding",
    "lobby-flood",
    "rating-farm",
];

/// What an honest client must see during every attack for it to pass.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Thresholds {
    /// `GET /` 99th percentile, ms.
    pub get_p99_ms: f64,
    /// Online turn (sent to received by the opponent) 99th percentile, ms.
    pub turn_p99_ms: f64,
    /// Honest online turns per second of attack, at least (the client plays 4 a second).
    pub min_turns_per_sec: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds { get_p99_ms: 100.0, turn_p99_ms: 250.0, min_turns_per_sec: 2.0 }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Servers to attack (`http://127.0.0.1:PORT`, loopback only), the nodes of one
    /// cluster; none starts one in this process for each attack.
    pub urls: Vec<String>,
    /// How long each attack runs.
    pub duration: Duration,
    /// Attack sizes.
    pub scale: Scale,
    /// The attacks to run (names of [`ATTACKS`]); empty: all.
    pub only: Vec<String>,
    /// The verdict's bounds.
    pub thresholds: Thresholds,
}

/// One attack's figures and verdict.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AttackReport {
    /// The attack's name.
    pub attack: String,
    /// Seconds it ran.
    pub seconds: f64,
    /// The attacker's requests and connections by outcome (HTTP status, refusal code,
    /// or failure).
    pub outcomes: BTreeMap<String, u64>,
    /// What the attacker achieved.
    pub effect: String,
    /// Whether the server's bound against this attack held.
    pub bound_held: bool,
    /// What the honest client saw meanwhile.
    pub honest: HonestReport,
    /// Resident memory of this process at the end, MiB (the in-process server's included;
    /// Linux only).
    pub rss_mib: Option<f64>,
    /// Passed.
    pub pass: bool,
    /// Why not.
    pub failures: Vec<String>,
}

fn rss_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = s.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Runs the attacks of `config` one after the other; `on_start(name)` is called as each
/// begins.
pub async fn run(config: &Config, mut on_start: impl FnMut(&str)) -> Result<Vec<AttackReport>, String> {
    for name in &config.only {
        if !ATTACKS.contains(&name.as_str()) {
            return Err(format!("no attack {name:?}; the attacks: {}", ATTACKS.join(", ")));
        }
    }
    if config.duration < Duration::from_secs(1) || config.duration > Duration::from_secs(600) {
        return Err("the duration of an attack: from 1 to 600 seconds".into());
    }
    let remote = config.urls.iter().map(|u| loopback(u, WHO)).collect::<Result<Vec<_>, _>>()?;
    // Check that attackers can use addresses of their own before starting anything.
    let probe = tokio::net::TcpSocket::new_v4().map_err(|e| e.to_string())?;
    probe
        .bind(SocketAddr::new(net::attacker(0, 0), 0))
        .map_err(|e| format!("cannot bind {} (attackers need 127.0.0.0/8 on loopback): {e}", net::attacker(0, 0)))?;
    drop(probe);
    matombo_web::limits::raise_open_files();
    let mut reports = Vec::new();
    for (k, name) in ATTACKS.iter().enumerate() {
        if !config.only.is_empty() && !config.only.iter().any(|o| o == name) {
            continue;
        }
        on_start(name);
        let local = match remote.is_empty() {
            false => None,
            true => Some(LocalServer::start(&format!("attack-{name}"), Limits::default(), matombo_web::app)?),
        };
        // Several nodes: the attacks go round them, and the honest client plays on the
        // next one (so that it feels what the attack does to the cluster, not one node).
        let (server, honest) = match remote.as_slice() {
            [] => {
                let a = local.as_ref().expect("started").addr;
                (a, a)
            }
            nodes => (nodes[k % nodes.len()], nodes[(k + 1) % nodes.len()]),
        };
        reports.push(one(config, name, server, honest, k as u64).await);
        drop(local);
    }
    Ok(reports)
}

async fn one(config: &Config, name: &str, server: SocketAddr, honest_at: SocketAddr, seed: u64) -> AttackReport {
    let start = Instant::now();
    let until = start + config.duration;
    let tally = Arc::new(attacks::Tally::default());
    let scale = config.scale;
    let honest = tokio::spawn(honest::run(honest_at, "tsoro:8".into(), until, seed));
    let effect = match name {
        "foreign-origin" => attacks::foreign_origin(server, until, scale, tally.clone()).await,
        "huge-tags" => attacks::huge_tags(server, until, scale, tally.clone()).await,
        "long-game" => attacks::long_games(server, until, scale, tally.clone()).await,
        "one-room" => attacks::one_room(server, until, scale, tally.clone()).await,
        "create-resign" => attacks::create_resign(server, until, scale, tally.clone()).await,
        "idle-sockets" => attacks::idle_sockets(server, until, scale, tally.clone()).await,
        "room-fill" => attacks::room_fill(server, until, scale, tally.clone()).await,
        "audience" => audience::audience(server, until, scale, tally.clone()).await,
        "dns-rebinding" => rebinding::dns_rebinding(server, until, scale, tally.clone()).await,
        "lobby-flood" => lobby_flood::lobby_flood(server, until, scale, tally.clone()).await,
        "rating-farm" => rating_farm::rating_farm(server, until, scale, tally.clone()).await,
        _ => unreachable!("checked against ATTACKS"),
    };
    let honest = honest.await.unwrap_or_default();
    let seconds = start.elapsed().as_secs_f64();
    let t = config.thresholds;
    let mut failures = Vec::new();
    if !effect.held {
        failures.push(format!("bound broken: {}", effect.text));
    }
    if honest.get_errors > 0 {
        failures.push(format!("{} honest GET / failed", honest.get_errors));
    }
    if honest.get_p99_ms > t.get_p99_ms {
        failures.push(format!("GET / p99 {:.1} ms > {} ms", honest.get_p99_ms, t.get_p99_ms));
    }
    if honest.turn_errors > 0 {
        failures.push(format!("{} honest online failures", honest.turn_errors));
    }
    if honest.turn_p99_ms > t.turn_p99_ms {
        failures.push(format!("turn p99 {:.1} ms > {} ms", honest.turn_p99_ms, t.turn_p99_ms));
    }
    let rate = honest.turns as f64 / config.duration.as_secs_f64();
    if rate < t.min_turns_per_sec {
        failures.push(format!("{rate:.1} honest turns/s < {}", t.min_turns_per_sec));
    }
    AttackReport {
        attack: name.to_string(),
        seconds,
        outcomes: tally.take(),
        effect: effect.text,
        bound_held: effect.held,
        honest,
        rss_mib: rss_mib(),
        pass: failures.is_empty(),
        failures,
    }
}

/// The reports as text: a table per attack.
pub fn table(reports: &[AttackReport], t: &Thresholds) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "thresholds: honest GET / p99 < {} ms, turn p99 < {} ms, at least {} turns/s, no honest error",
        t.get_p99_ms, t.turn_p99_ms, t.min_turns_per_sec
    );
    for r in reports {
        let _ = writeln!(s, "\n== {} ({:.1} s): {}", r.attack, r.seconds, if r.pass { "PASS" } else { "FAIL" });
        let _ = writeln!(s, "  attacker         {}", r.effect);
        for (k, n) in &r.outcomes {
            let _ = writeln!(s, "    {n:>8}  {k}");
        }
        let h = &r.honest;
        let _ = writeln!(
            s,
            "  honest GET /     {} requests, p50 {:.2} ms, p99 {:.2} ms, {} errors",
            h.gets, h.get_p50_ms, h.get_p99_ms, h.get_errors
        );
        let _ = writeln!(
            s,
            "  honest turns     {} turns, p50 {:.2} ms, p99 {:.2} ms, {} errors",
            h.turns, h.turn_p50_ms, h.turn_p99_ms, h.turn_errors
        );
        for (k, n) in &h.error_kinds {
            let _ = writeln!(s, "    {n:>8}  {k}");
        }
        if let Some(m) = r.rss_mib {
            let _ = writeln!(s, "  memory           {m:.0} MiB resident (harness and server)");
        }
        for f in &r.failures {
            let _ = writeln!(s, "  failed:          {f}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_urls_are_attacked() {
        assert_eq!(loopback("http://127.0.0.1:8080/", WHO).unwrap(), "127.0.0.1:8080".parse().unwrap());
        assert_eq!(loopback("http://localhost:80", WHO).unwrap(), "127.0.0.1:80".parse().unwrap());
        assert!(loopback("http://10.0.0.1:80", WHO).unwrap_err().contains("loopback"));
        assert!(loopback("https://127.0.0.1:80", WHO).is_err());
        assert!(loopback("http://127.0.0.1", WHO).is_err());
    }

    #[test]
    fn attackers_never_share_the_honest_address() {
        let mut seen = std::collections::HashSet::new();
        for g in 0..12 {
            for i in 0..1000 {
                let a = net::attacker(g, i);
                assert!(a.is_loopback() && a != net::HONEST, "{a}");
                assert!(seen.insert(a), "{a} twice");
            }
        }
    }

    #[test]
    fn quantiles_of_sorted_samples() {
        let v: Vec<u32> = (1..=100).map(|ms| ms * 1000).collect();
        assert_eq!((honest::quantile_ms(&v, 0.5), honest::quantile_ms(&v, 0.99)), (50.0, 99.0));
        assert_eq!(honest::quantile_ms(&[], 0.99), 0.0);
    }
}
