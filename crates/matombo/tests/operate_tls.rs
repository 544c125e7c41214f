//! `matombo serve` with TLS of its own, as the real process: HTTPS and WSS, a bad pair
//! refused at the start, and the certificate renewed at SIGHUP.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures_util::SinkExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

mod common;
use common::net::{join, play_one, recv, request, tcp_from};
use common::{matombo, temp_dir, Server};

fn make_cert(dir: &Path, name: &str) -> (PathBuf, PathBuf, Vec<u8>) {
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
    let cert = params.self_signed(&key).unwrap();
    let (c, k) = (dir.join(format!("{name}.crt")), dir.join(format!("{name}.key")));
    std::fs::write(&c, cert.pem()).unwrap();
    std::fs::write(&k, key.serialize_pem()).unwrap();
    (c, k, cert.der().to_vec())
}

/// A TLS connection that trusts `roots` (DER); answers the stream and the certificate the
/// server showed.
async fn tls_connect(host: &str, roots: &[&[u8]]) -> (tokio_rustls::client::TlsStream<tokio::net::TcpStream>, Vec<u8>) {
    use tokio_rustls::rustls;
    let mut store = rustls::RootCertStore::empty();
    for r in roots {
        store.add(rustls::pki_types::CertificateDer::from(r.to_vec())).unwrap();
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(store)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let io = tcp_from([127, 0, 0, 1], host).await;
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let tls = connector.connect(name, io).await.expect("TLS handshake");
    let shown = tls.get_ref().1.peer_certificates().unwrap()[0].to_vec();
    (tls, shown)
}

#[tokio::test]
async fn tls_serves_https_and_wss_and_reloads_on_sighup() {
    let dir = temp_dir("operate-tls");
    let (c1, k1, der1) = make_cert(&dir, "one");
    let (c2, k2, der2) = make_cert(&dir, "two");
    // A mismatched pair stops the start with a clear message.
    let out = matombo()
        .args(["serve", "--port", "0", "--tls-cert"])
        .arg(&c1)
        .arg("--tls-key")
        .arg(&k2)
        .arg("--db")
        .arg(dir.join("db"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("do not make a pair"), "{err}");
    // So does a missing file.
    let out = matombo()
        .args(["serve", "--port", "0", "--tls-cert", "/nonexistent.crt", "--tls-key"])
        .arg(&k1)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the certificate"));

    // Served from a copy of the files that the test renews.
    let (cert, key) = (dir.join("site.crt"), dir.join("site.key"));
    std::fs::copy(&c1, &cert).unwrap();
    std::fs::copy(&k1, &key).unwrap();
    let args = ["--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap(), "--hsts"];
    let server = Server::start(dir.join("online.sqlite3"), &args);
    assert!(server.url.starts_with("https://127.0.0.1:"), "{}", server.url);
    let host = server.host.clone();
    let (tls, shown) = tls_connect(&host, &[&der1, &der2]).await;
    assert_eq!(shown, der1);
    let (st, head, body) = request(tls, "localhost", "GET", "/", &[], None).await;
    assert_eq!(st, 200);
    assert!(body.contains("<html"), "the catalogue page");
    assert!(head.to_ascii_lowercase().contains("strict-transport-security: max-age="), "--hsts over HTTPS: {head}");
    // Plain HTTP on the TLS port is no request.
    let io = tcp_from([127, 0, 0, 1], &host).await;
    let (st, _, _) = request(io, &host, "GET", "/", &[], None).await;
    assert_ne!(st, 200);
    // Over HTTPS the origin check wants the https:// page of this site.
    let room = Some(json!({"ruleset": "tsoro:6"}));
    let (tls, _) = tls_connect(&host, &[&der1]).await;
    let (st, _, _) =
        request(tls, "localhost", "POST", "/api/online/rooms", &[("Origin", "http://localhost")], room.clone()).await;
    assert_eq!(st, 403, "an http:// page may not post to the https:// site");
    let (tls, _) = tls_connect(&host, &[&der1]).await;
    let (st, _, _) =
        request(tls, "localhost", "POST", "/api/online/rooms", &[("Origin", "https://localhost")], room).await;
    assert_eq!(st, 201);
    // A game over wss://.
    let (tls, _) = tls_connect(&host, &[&der1]).await;
    let (st, _, created) = request(
        tls,
        "localhost",
        "POST",
        "/api/online/rooms",
        &[],
        Some(json!({"ruleset": "tsoro:6", "side": "south"})),
    )
    .await;
    assert_eq!(st, 201, "{created}");
    let created: Value = serde_json::from_str(&created).unwrap();
    let (id, invite) = (created["id"].as_str().unwrap(), created["invite"].as_str().unwrap());
    let (tls, _) = tls_connect(&host, &[&der1]).await;
    let (st, _, claimed) = request(
        tls,
        "localhost",
        "POST",
        &format!("/api/online/rooms/{id}/claim"),
        &[],
        Some(json!({"invite": invite})),
    )
    .await;
    assert_eq!(st, 200, "{claimed}");
    let claimed: Value = serde_json::from_str(&claimed).unwrap();
    let url = format!("wss://localhost/api/online/rooms/{id}/ws");
    let (mut south, s0) = join(tls_connect(&host, &[&der1]).await.0, &url, created["token"].as_str()).await;
    let (mut north, _) = join(tls_connect(&host, &[&der1]).await.0, &url, claimed["token"].as_str()).await;
    let v = play_one(&mut south, s0["position"].as_str().unwrap(), 0).await;
    play_one(&mut north, v["position"].as_str().unwrap(), 1).await;
    // Renewed: the new pair is read at SIGHUP and shown to new connections, while the
    // open WebSockets go on.
    std::fs::copy(&c2, &cert).unwrap();
    std::fs::copy(&k2, &key).unwrap();
    server.signal(libc::SIGHUP);
    let t0 = Instant::now();
    loop {
        let (_, shown) = tls_connect(&host, &[&der1, &der2]).await;
        if shown == der2 {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(5), "the new certificate is served after SIGHUP");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    south.send(Message::text(json!({"type": "sync"}).to_string())).await.unwrap();
    let state = loop {
        let v = recv(&mut south).await;
        if v["type"] == "state" {
            break v;
        }
    };
    assert_eq!(state["ply"], 2, "the open socket goes on");
    // A bad pair at SIGHUP keeps the old one.
    std::fs::write(&key, b"garbage").unwrap();
    server.signal(libc::SIGHUP);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, shown) = tls_connect(&host, &[&der1, &der2]).await;
    assert_eq!(shown, der2);
    assert!(server.child.id() > 0);
    drop((south, north));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
