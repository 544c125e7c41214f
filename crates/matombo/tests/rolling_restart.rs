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

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::{database, free_port, nginx_binary, start_nginx};

/// A node on a fixed port (nginx's upstream names it), ready when this returns.
fn start_node(db: &str, port: u16) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_matombo"))
        .args(["serve", "--port", &port.to_string(), "--trusted-proxy", "127.0.0.1/32"])
        .args(["--loadtest-limits", "40", "--db", db])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start matombo serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains(&format!(":{port}")), "the node listens on its port: {line:?}");
    let t0 = Instant::now();
    while ready(port) != 200 {
        assert!(t0.elapsed() < Duration::from_secs(10), "node on {port} ready");
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

/// `/readyz`'s status on the node (0 when it does not answer).
fn ready(port: u16) -> u16 {
    use std::io::Write;
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return 0 };
    let _ = s.write_all(b"GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0)
}

/// SIGTERM, then the exit status within the drain's 10 s (and some).
fn stop(mut node: Child) -> std::process::ExitStatus {
    unsafe { libc::kill(node.id() as i32, libc::SIGTERM) };
    let t0 = Instant::now();
    loop {
        if let Some(status) = node.try_wait().unwrap() {
            return status;
        }
        if t0.elapsed() > Duration::from_secs(15) {
            let _ = node.kill();
            panic!("the node did not exit within 15 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_rolling_restart_of_two_nodes_behind_nginx_loses_no_acknowledged_turn() {
    let Some(db) = database() else {
        assert!(std::env::var_os("CI").is_none(), "MATOMBO_TEST_PG is missing (scripts/test.sh starts PostgreSQL)");
        return;
    };
    let Some(nginx) = nginx_binary() else {
        assert!(std::env::var_os("CI").is_none(), "nginx is missing (scripts/test.sh installs Debian's package)");
        eprintln!("nginx not installed: test skipped (scripts/test.sh installs it)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("matombo-rolling-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (pa, pb) = (free_port(), free_port());
    let a = start_node(&db, pa);
    let b = start_node(&db, pb);
    let upstream = format!("127.0.0.1:{pa} max_fails=1 fail_timeout=2s;\n    server 127.0.0.1:{pb}");
    let (_nginx, proxy) = start_nginx(&nginx, &dir, &upstream);

    let load = Command::new(env!("CARGO_BIN_EXE_matombo"))
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
