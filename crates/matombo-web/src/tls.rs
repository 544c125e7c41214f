//! TLS of the server's own (`serve --tls-cert FILE --tls-key FILE`): rustls, no OpenSSL.
//! HTTPS and `wss://` on the one port. The pair is read and checked at the start (a
//! missing, unreadable or mismatched pair stops it), and read again on `SIGHUP`, so that a
//! renewed certificate is served to new connections without a restart (a bad new pair is
//! refused with a log line, and the old one kept).

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

/// A certificate pair that cannot be served.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TlsError(pub String);

/// The certificate files and the configuration read from them.
#[derive(Clone)]
pub struct Tls {
    cert: PathBuf,
    key: PathBuf,
    current: Arc<RwLock<Arc<ServerConfig>>>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").field("cert", &self.cert).field("key", &self.key).finish()
    }
}

impl Tls {
    /// Reads and checks the pair.
    pub fn load(cert: &Path, key: &Path) -> Result<Tls, TlsError> {
        let config = read_pair(cert, key)?;
        Ok(Tls { cert: cert.into(), key: key.into(), current: Arc::new(RwLock::new(Arc::new(config))) })
    }

    /// Reads the files again; on failure the pair in use stays.
    pub fn reload(&self) -> Result<(), TlsError> {
        let config = read_pair(&self.cert, &self.key)?;
        *self.current.write().expect("tls lock") = Arc::new(config);
        Ok(())
    }

    /// The acceptor of a new connection (with the pair in force now).
    pub fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(self.current.read().expect("tls lock").clone())
    }

    /// Reloads the pair at every `SIGHUP`, for as long as the process runs.
    pub fn reload_on_sighup(&self) {
        #[cfg(unix)]
        {
            let tls = self.clone();
            let Ok(mut hup) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) else {
                tracing::warn!("cannot watch SIGHUP: the certificate is read at the start only");
                return;
            };
            tokio::spawn(async move {
                while hup.recv().await.is_some() {
                    match tls.reload() {
                        Ok(()) => tracing::info!(cert = %tls.cert.display(), "SIGHUP: certificate read again"),
                        Err(e) => {
                            tracing::error!(error = %e, "SIGHUP: the new certificate is refused; the old one stays")
                        }
                    }
                }
            });
        }
    }
}

fn read_pair(cert: &Path, key: &Path) -> Result<ServerConfig, TlsError> {
    let read = |p: &Path, what: &str| {
        std::fs::read(p).map_err(|e| TlsError(format!("cannot read the {what} {}: {e}", p.display())))
    };
    let cert_pem = read(cert, "certificate")?;
    let key_pem = read(key, "private key")?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| TlsError(format!("{}: not a PEM certificate chain ({e})", cert.display())))?;
    if chain.is_empty() {
        return Err(TlsError(format!(
            "{}: no certificate in it (expected PEM, -----BEGIN CERTIFICATE-----)",
            cert.display()
        )));
    }
    let key_der = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|e| TlsError(format!("{}: no PEM private key in it ({e})", key.display())))?;
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, key_der)
        .map_err(|e| TlsError(format!("{} and {} do not make a pair: {e}", cert.display(), key.display())))?;
    // HTTP/1.1 only: the server speaks nothing else (WebSocket upgrades included).
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}
