//! The `Host` allow-list against DNS rebinding: a page on any domain that its owner points
//! at the server's address would otherwise pass the origin check (its `Origin` matches its
//! own `Host`). `serve` answers only requests whose `Host` is one of its names: the
//! loopback names, the address it binds (any address literal when it binds every
//! interface: a rebinding needs a domain name, an address literal cannot be one), and the
//! names given with `--public-host`. Behind a reverse proxy the proxy passes the visitor's
//! `Host` through (deploy/nginx.conf), so the public name must be given there too.

use std::net::IpAddr;

/// The names a server answers to; [`AllowedHosts::any`] (the default of a server built in
/// a test) answers every `Host`.
#[derive(Clone, Debug, Default)]
pub struct AllowedHosts {
    /// None: every host.
    names: Option<Vec<String>>,
    /// The address bound; unspecified: every address literal.
    bound: Option<IpAddr>,
}

impl AllowedHosts {
    /// Every `Host` accepted (no allow-list).
    pub fn any() -> AllowedHosts {
        AllowedHosts::default()
    }

    /// The names of a server bound to `bound`: the loopback names, `bound`, and `public`
    /// (host names as `example.org`, without scheme or port; case does not matter).
    pub fn of(bound: IpAddr, public: &[String]) -> Result<AllowedHosts, String> {
        let mut names = Vec::new();
        for p in public {
            let n = p.trim().trim_end_matches('.').to_ascii_lowercase();
            let ok = !n.is_empty()
                && n.len() <= 253
                && n.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | ':' | '[' | ']'));
            if !ok {
                return Err(format!("--public-host {p:?}: give a host name such as example.org (no scheme, no port)"));
            }
            let n = n.trim_start_matches('[').trim_end_matches(']').to_string();
            if n.contains(':') && n.parse::<IpAddr>().is_err() {
                return Err(format!("--public-host {p:?}: a name without its port"));
            }
            names.push(n);
        }
        Ok(AllowedHosts { names: Some(names), bound: Some(bound) })
    }

    /// Whether a request with this `Host` header (None: none sent) is answered.
    pub fn allows(&self, host: Option<&str>) -> bool {
        let Some(names) = &self.names else { return true };
        let Some(name) = host.and_then(host_name) else { return false };
        if name == "localhost" || name.ends_with(".localhost") || names.contains(&name) {
            return true;
        }
        match name.parse::<IpAddr>() {
            Ok(ip) => {
                ip.is_loopback()
                    || self.bound.is_some_and(|b| b.is_unspecified() || b == ip)
                    || names.iter().any(|n| n.parse::<IpAddr>().ok() == Some(ip))
            }
            Err(_) => false,
        }
    }
}

/// The name of a `Host` header without its port, lowercase, without a final dot; an IPv6
/// literal without its brackets. None when it cannot be read.
fn host_name(host: &str) -> Option<String> {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        let (inner, after) = rest.split_once(']')?;
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(|p| p.chars().all(|c| c.is_ascii_digit()))) {
            return None;
        }
        inner
    } else {
        match host.rsplit_once(':') {
            Some((n, port)) if port.chars().all(|c| c.is_ascii_digit()) => n,
            Some(_) => return None,
            None => host,
        }
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(bound: &str, public: &[&str]) -> AllowedHosts {
        let public: Vec<String> = public.iter().map(|s| s.to_string()).collect();
        AllowedHosts::of(bound.parse().unwrap(), &public).unwrap()
    }

    #[test]
    fn loopback_names_and_the_bound_address_are_accepted() {
        let h = on("127.0.0.1", &[]);
        for ok in [
            "localhost",
            "LOCALHOST:8080",
            "localhost.",
            "app.localhost:1",
            "127.0.0.1:8080",
            "127.0.0.7",
            "[::1]:80",
            "[::1]",
        ] {
            assert!(h.allows(Some(ok)), "{ok}");
        }
        for bad in ["rebind.example", "rebind.example:8080", "10.0.0.1", "localhost.example", "", "a:b", "[::1]x"] {
            assert!(!h.allows(Some(bad)), "{bad}");
        }
        assert!(!h.allows(None));
        assert!(AllowedHosts::any().allows(Some("rebind.example")) && AllowedHosts::any().allows(None));
    }

    #[test]
    fn public_names_and_every_address_literal_on_a_wildcard_bind() {
        let h = on("0.0.0.0", &["Mancala.Example.", "[2001:db8::1]"]);
        for ok in ["mancala.example", "MANCALA.example:443", "192.0.2.10:8080", "[2001:db8::1]:443"] {
            assert!(h.allows(Some(ok)), "{ok}");
        }
        assert!(!h.allows(Some("www.mancala.example")));
        let h = on("192.0.2.10", &[]);
        assert!(h.allows(Some("192.0.2.10")) && !h.allows(Some("192.0.2.11")));
        assert!(AllowedHosts::of("127.0.0.1".parse().unwrap(), &["http://x.example/".into()]).is_err());
    }
}
