//! What several of this crate's tests share: Debian's nginx in front of `serve` (the
//! deploy/nginx.conf the suite ships), free ports, the throwaway PostgreSQL's URL.
#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
