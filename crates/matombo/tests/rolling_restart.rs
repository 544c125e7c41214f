//! A rolling restart (docs/operating.md, "Several nodes behind one nginx"): two `serve`
//! nodes on one PostgreSQL behind a real nginx with deploy/nginx.conf (both nodes in its
//! `upstream`), `matombo loadtest --reconnect` playing through the proxy, and each node in
//! turn stopped with SIGTERM (it drains: sockets closed with 1012) and started again on its
//! port. The load test's clients reconnect through nginx as the pages do; no acknowledged
//! turn is lost (a room's state behind a turn a client saw played is an error), nothing else
//! fails, and each node exits 0.
//!
//! Needs the throwaway PostgreSQL (`MATOMBO_TEST_PG`, scripts/pg-cluster.sh) and Debian's
//! nginx, which scripts/test.sh provides; without them the test says so and passes, except
//! under CI (`CI` set), where it fails.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::{database, free_port, matombo, nginx_binary, skip_unless_ci, start_nginx, temp_dir, Server};

/// A node on a fixed port (nginx's upstream names it), ready when this returns.
fn start_node(db: &str, port: u16) -> Server {
    let node = Server::on_port(port, db, &["--trusted-proxy", "127.0.0.1/32", "--loadtest-limits", "40"]);
    node.wait_ready();
    node
}

/// SIGTERM, then the exit status within the drain's 10 s (and some).
fn stop(mut node: Server) -> std::process::ExitStatus {
    node.signal(libc::SIGTERM);
    node.wait_exit(Duration::from_secs(15))
}

#[test]
fn a_rolling_restart_of_two_nodes_behind_nginx_loses_no_acknowledged_turn() {
    let Some(db) = database() else { return skip_unless_ci("MATOMBO_TEST_PG (PostgreSQL)") };
    let Some(nginx) = nginx_binary() else { return skip_unless_ci("nginx") };
    let dir = temp_dir("rolling");
    let (pa, pb) = (free_port(), free_port());
    let a = start_node(&db, pa);
    let b = start_node(&db, pb);
    let upstream = format!("127.0.0.1:{pa} max_fails=1 fail_timeout=2s;\n    server 127.0.0.1:{pb}");
    let (_nginx, proxy) = start_nginx(&nginx, &dir, &upstream);

    let load = matombo()
        .args(["loadtest", "--url", &format!("http://{proxy}"), "--rooms", "16", "--ramp", "2"])
        .args(["--duration", "14", "--think-ms", "300", "--reconnect", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start matombo loadtest");

    // Node a, then node b, each stopped under load and started again.
    std::thread::sleep(Duration::from_secs(5));
    let t0 = Instant::now();
    assert!(stop(a).success(), "node a exits 0 after its drain");
    let drained_a = t0.elapsed();
    let a = start_node(&db, pa);
    std::thread::sleep(Duration::from_secs(3));
    let t0 = Instant::now();
    assert!(stop(b).success(), "node b exits 0 after its drain");
    let drained_b = t0.elapsed();
    let b = start_node(&db, pb);

    let out = load.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("the load test's JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    eprintln!(
        "rolling restart: drains {drained_a:?} and {drained_b:?}; {} turns, p99 {} ms, {} reconnections, errors {}",
        report["turns"], report["p99_ms"], report["reconnects"], report["error_kinds"]
    );
    assert_eq!(report["errors"], 0, "no error, no acknowledged turn lost: {}", report["error_kinds"]);
    assert!(report["reconnects"].as_u64().unwrap() > 0, "the clients of each stopped node reconnected");
    assert!(report["turns"].as_u64().unwrap() > 100, "the games went on: {report}");
    assert!(out.status.success(), "the load test passes");
    for node in [a, b] {
        assert!(stop(node).success());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
