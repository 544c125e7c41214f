//! What several of this crate's tests share: the binary run to its end, `matombo serve`
//! started and killed, a small HTTP client, Debian's nginx in front of `serve` (the
//! deploy/nginx.conf the suite ships), free ports, the throwaway PostgreSQL's URL.
#![allow(dead_code)] // each test file uses a part

pub mod net;

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The binary under test, as a command to complete.
pub fn matombo() -> Command {
    Command::new(env!("CARGO_BIN_EXE_matombo"))
}

/// `matombo ARGS…` run to its end: whether it succeeded, its output and its errors.
pub fn run(args: &[&str]) -> (bool, String, String) {
    let out = matombo().args(args).output().expect("matombo runs");
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// `matombo ARGS…` with `input` on its standard input, run to its end (as [`run`]).
pub fn run_with_input(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = matombo()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("matombo runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().expect("matombo ends");
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// A fresh, empty directory `matombo-NAME-PID` in the system's temporary folder.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("matombo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A running `matombo serve`, killed (SIGKILL) and reaped when dropped.
pub struct Server {
    pub child: Child,
    /// `127.0.0.1:PORT`.
    pub host: String,
    /// The first line it printed: `http://127.0.0.1:PORT/` (or `https://`).
    pub url: String,
}

impl Server {
    /// `matombo serve --port 0 --db DB ARGS…`, once it has printed its address.
    pub fn start(db: impl AsRef<OsStr>, args: &[&str]) -> Server {
        Server::on_port(0, db, args)
    }

    /// As [`Server::start`] on a fixed port (0: any free one).
    pub fn on_port(port: u16, db: impl AsRef<OsStr>, args: &[&str]) -> Server {
        let mut child = matombo()
            .args(["serve", "--port", &port.to_string(), "--db"])
            .arg(db)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start matombo serve");
        // Its first line is the address it listens on, printed once the socket is bound.
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().to_string();
        let host = url.split("://").nth(1).unwrap_or_default().trim_end_matches('/').to_string();
        assert!(host.starts_with("127.0.0.1:"), "first line is the address: {line:?}");
        if port != 0 {
            assert!(host.ends_with(&format!(":{port}")), "the server listens on its port: {line:?}");
        }
        Server { child, host, url }
    }

    /// Waits until `/readyz` answers 200 (the store is open, the node takes games).
    pub fn wait_ready(&self) {
        let t0 = Instant::now();
        while ready(&self.host) != 200 {
            assert!(t0.elapsed() < Duration::from_secs(10), "{} ready", self.host);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGKILL: no drain, no goodbye.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Sends `signal` (`libc::SIGTERM`, `libc::SIGHUP`) to the server.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill sends a signal to the child we started.
        unsafe { libc::kill(self.child.id() as i32, signal) };
    }

    /// The exit status, which must come `within` (else the drop kills it).
    pub fn wait_exit(&mut self, within: Duration) -> ExitStatus {
        let t0 = Instant::now();
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                return st;
            }
            assert!(t0.elapsed() < within, "the server did not exit within {within:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `/readyz`'s status on `host` (0 when it does not answer).
fn ready(host: &str) -> u16 {
    let Ok(mut s) = std::net::TcpStream::connect(host) else { return 0 };
    let _ = s.write_all(b"GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0)
}

/// One HTTP/1.1 request with a JSON body to `host`; the status and the body.
pub fn http(host: &str, method: &str, path: &str, body: Option<Value>) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(host).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

/// As [`http`], the body read as JSON (`null` when it is none).
pub fn http_json(host: &str, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let (status, body) = http(host, method, path, body);
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// `something` is missing: under CI (`CI` set) that fails the test; elsewhere the test
/// says so and passes.
pub fn skip_unless_ci(something: &str) {
    assert!(std::env::var_os("CI").is_none(), "{something} is missing (scripts/test.sh provides it)");
    eprintln!("{something} not available: test skipped (scripts/test.sh provides it)");
}

/// A child process killed (SIGKILL) and reaped when dropped.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Debian's nginx, if installed (scripts/test.sh installs it).
pub fn nginx_binary() -> Option<PathBuf> {
    ["/usr/sbin/nginx", "/usr/bin/nginx"].iter().map(PathBuf::from).find(|p| p.exists())
}

/// A loopback port free right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The throwaway PostgreSQL of scripts/pg-cluster.sh (`MATOMBO_TEST_PG`), if running.
pub fn database() -> Option<String> {
    match std::env::var("MATOMBO_TEST_PG") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            eprintln!("skipped: MATOMBO_TEST_PG is not set (scripts/pg-cluster.sh start sets it)");
            None
        }
    }
}

/// deploy/nginx.conf with its ports changed, inside a main configuration of its own (one
/// process, files in `dir`); nginx started and listening. `upstream` replaces the file's
/// one `server` address, e.g. `127.0.0.1:PORT` (more nodes: `A max_fails=1 fail_timeout=2s; server B`).
pub fn start_nginx(nginx: &Path, dir: &Path, upstream: &str) -> (Killed, String) {
    let site = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../deploy/nginx.conf")).unwrap();
    let port = free_port();
    let listen = format!("listen 127.0.0.1:{port};");
    assert!(site.contains("server 127.0.0.1:8080 ") && site.contains("listen 80;"), "deploy/nginx.conf changed shape");
    let site = site.replace("server 127.0.0.1:8080 ", &format!("server {upstream} ")).replace("listen 80;", &listen);
    std::fs::write(dir.join("site.conf"), site).unwrap();
    let d = dir.display();
    let main = format!(
        "daemon off;\nmaster_process off;\nuser root;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  \
         fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  \
         include {d}/site.conf;\n}}\n"
    );
    std::fs::write(dir.join("nginx.conf"), main).unwrap();
    let child = Command::new(nginx)
        .arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start nginx");
    let child = Killed(child);
    let addr = format!("127.0.0.1:{port}");
    let t0 = Instant::now();
    while std::net::TcpStream::connect(&addr).is_err() {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "nginx listens: {}",
            std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (child, addr)
}
