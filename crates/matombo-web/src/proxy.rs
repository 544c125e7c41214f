//! The client behind a reverse proxy: with `serve --trusted-proxy CIDR`, a request whose
//! TCP peer lies in one of the trusted networks is taken to come from the address its
//! `Forwarded` (RFC 7239) or `X-Forwarded-For` header names — the right-most address that
//! is not itself trusted — and `X-Forwarded-Proto` (or `Forwarded`'s `proto`) says whether
//! the visitor used HTTPS. From any other peer these headers are ignored, so a client
//! cannot choose its own address. A trusted proxy's malformed header falls back to the
//! proxy's own address (logged once), never to an error.
//!
//! The accept loop ([`crate::limits::serve_until`]) resolves the client once per request
//! and puts it in the request as `ConnectInfo<SocketAddr>` (what every per-address limit,
//! quota and log line reads) and as [`Client`]; the TCP peer stays in [`PeerAddr`].

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::http::HeaderMap;
use ipnet::IpNet;

/// The networks whose forwarding headers are believed.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies(Vec<IpNet>);

/// A `--trusted-proxy` that is not a network.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a network in CIDR notation (e.g. 127.0.0.1/32, 10.0.0.0/8, ::1/128)")]
pub struct BadCidr(pub String);

impl TrustedProxies {
    /// Parses each network; a bare address counts as one host (`/32`, `/128`).
    pub fn parse<S: AsRef<str>>(nets: &[S]) -> Result<TrustedProxies, BadCidr> {
        nets.iter().map(|s| parse_net(s.as_ref())).collect::<Result<_, _>>().map(TrustedProxies)
    }

    /// Whether `ip` is inside a trusted network (IPv4-mapped IPv6 addresses as IPv4).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.0.iter().any(|n| n.contains(&ip))
    }

    /// No network trusted: forwarding headers are always ignored.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn parse_net(s: &str) -> Result<IpNet, BadCidr> {
    let t = s.trim();
    let net = if t.contains('/') {
        IpNet::from_str(t).map_err(|_| BadCidr(s.into()))?
    } else {
        IpNet::from(IpAddr::from_str(t).map_err(|_| BadCidr(s.into()))?)
    };
    // `10.1.2.3/8` means the network 10.0.0.0/8.
    Ok(net.trunc())
}

fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The visitor of a request, as the accept loop resolved it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Client {
    /// The visitor's address (the TCP peer's, unless a trusted proxy named another).
    pub ip: IpAddr,
    /// Whether the visitor's connection is HTTPS: this server's own TLS, or what a trusted
    /// proxy said (`None` when a trusted proxy did not say).
    pub https: Option<bool>,
}

/// The TCP peer of a request (the proxy, behind one).
#[derive(Clone, Copy, Debug)]
pub struct PeerAddr(pub SocketAddr);

static MALFORMED_LOGGED: AtomicBool = AtomicBool::new(false);

/// The visitor of a request from `peer` with `headers`; `tls`: whether the connection to
/// this server is TLS.
pub fn resolve(peer: IpAddr, headers: &HeaderMap, trusted: &TrustedProxies, tls: bool) -> Client {
    let direct = Client { ip: peer, https: Some(tls) };
    if !trusted.contains(peer) {
        return direct;
    }
    match forwarded_client(headers, trusted) {
        Ok(Some(c)) => Client { ip: c.ip, https: c.https.or(if tls { Some(true) } else { None }) },
        Ok(None) => direct,
        Err(why) => {
            metrics::counter!("matombo_forwarded_malformed_total").increment(1);
            if !MALFORMED_LOGGED.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    proxy = %peer,
                    why,
                    "malformed forwarding header from a trusted proxy: the proxy's own address is used \
                     (logged once; counted in matombo_forwarded_malformed_total)"
                );
            }
            direct
        }
    }
}

/// From a trusted peer's headers: `Forwarded` if present, else `X-Forwarded-For`; `None`
/// when neither is there.
fn forwarded_client(headers: &HeaderMap, trusted: &TrustedProxies) -> Result<Option<Client>, &'static str> {
    let joined = |name: &str| -> Result<Option<String>, &'static str> {
        let mut all = headers.get_all(name).iter().peekable();
        if all.peek().is_none() {
            return Ok(None);
        }
        let parts: Result<Vec<&str>, _> = all.map(|v| v.to_str()).collect();
        Ok(Some(parts.map_err(|_| "not ASCII")?.join(",")))
    };
    if let Some(f) = joined("forwarded")? {
        let hops = parse_forwarded(&f)?;
        return pick(hops.into_iter().map(|(ip, proto)| (ip, proto.map(|p| p == "https"))), trusted).map(Some);
    }
    let Some(xff) = joined("x-forwarded-for")? else { return Ok(None) };
    let mut hops = Vec::new();
    for item in xff.split(',') {
        hops.push((Some(parse_node(item.trim()).ok_or("X-Forwarded-For: not an address")?), None));
    }
    let proto = match joined("x-forwarded-proto")? {
        // Set by the proxy next to this server: its right-most value.
        Some(p) => match p.rsplit(',').next().map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            Some("https") => Some(true),
            Some("http") => Some(false),
            _ => return Err("X-Forwarded-Proto: neither http nor https"),
        },
        None => None,
    };
    let mut c = pick(hops.into_iter(), trusted)?;
    c.https = proto;
    Ok(Some(c))
}

/// The right-most hop not itself trusted; every hop trusted: the left-most. An unknown
/// or hidden hop (`for=unknown`, `for=_secret`) before an untrusted one is malformed: the
/// client cannot be told.
fn pick(
    hops: impl DoubleEndedIterator<Item = (Option<IpAddr>, Option<bool>)>,
    trusted: &TrustedProxies,
) -> Result<Client, &'static str> {
    let mut last = None;
    for (ip, https) in hops.rev() {
        let ip = canonical(ip.ok_or("Forwarded: an unknown or hidden hop")?);
        if !trusted.contains(ip) {
            return Ok(Client { ip, https });
        }
        last = Some(Client { ip, https });
    }
    last.ok_or("empty forwarding header")
}

/// One hop of a `Forwarded` header: its `for` address and its `proto`.
type Hop = (Option<IpAddr>, Option<String>);

/// The hops of a `Forwarded` header, left to right: each one's `for` address (None for
/// `unknown` or an obfuscated name) and `proto`.
fn parse_forwarded(s: &str) -> Result<Vec<Hop>, &'static str> {
    let mut hops = Vec::new();
    let (mut for_, mut proto, mut seen_for) = (None, None, false);
    let mut rest = s;
    loop {
        rest = rest.trim_start_matches([' ', '\t']);
        let eq = rest.find('=').ok_or("Forwarded: a pair without '='")?;
        let key = rest[..eq].trim().to_ascii_lowercase();
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)) {
            return Err("Forwarded: a bad parameter name");
        }
        rest = &rest[eq + 1..];
        let value: String;
        if let Some(q) = rest.strip_prefix('"') {
            let mut v = String::new();
            let mut chars = q.char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => v.push(chars.next().ok_or("Forwarded: unterminated string")?.1),
                    '"' => {
                        end = Some(i);
                        break;
                    }
                    c => v.push(c),
                }
            }
            let end = end.ok_or("Forwarded: unterminated string")?;
            value = v;
            rest = &q[end + 1..];
        } else {
            let end = rest.find([';', ',']).unwrap_or(rest.len());
            value = rest[..end].trim().to_string();
            if value.is_empty() || value.contains([' ', '"']) {
                return Err("Forwarded: a bad value");
            }
            rest = &rest[end..];
        }
        match key.as_str() {
            "for" => {
                if seen_for {
                    return Err("Forwarded: two `for` in one hop");
                }
                seen_for = true;
                for_ = match value.as_str() {
                    v if v.eq_ignore_ascii_case("unknown") || v.starts_with('_') => None,
                    v => Some(parse_node(v).ok_or("Forwarded: `for` is not an address")?),
                };
            }
            "proto" => proto = Some(value.to_ascii_lowercase()),
            _ => {}
        }
        rest = rest.trim_start_matches([' ', '\t']);
        match rest.chars().next() {
            Some(';') => rest = &rest[1..],
            Some(',') | None => {
                if !seen_for {
                    return Err("Forwarded: a hop without `for`");
                }
                hops.push((for_.take(), proto.take()));
                seen_for = false;
                if rest.is_empty() {
                    return Ok(hops);
                }
                rest = &rest[1..];
            }
            Some(_) => return Err("Forwarded: garbage after a value"),
        }
    }
}

/// An address, with or without a port: `192.0.2.1`, `192.0.2.1:80`, `2001:db8::1`,
/// `[2001:db8::1]`, `[2001:db8::1]:80`.
fn parse_node(s: &str) -> Option<IpAddr> {
    if let Ok(ip) = s.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(sa) = s.parse::<SocketAddr>() {
        return Some(sa.ip());
    }
    s.strip_prefix('[')?.strip_suffix(']')?.parse::<std::net::Ipv6Addr>().ok().map(IpAddr::V6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn trusted() -> TrustedProxies {
        TrustedProxies::parse(&["127.0.0.1/32", "10.0.0.0/8"]).unwrap()
    }

    #[test]
    fn bad_networks_are_refused() {
        for bad in ["", "foo", "10.0.0.0/33", "::1/129", "10.0.0/8", "127.0.0.1/", "1.2.3.4/x"] {
            assert!(TrustedProxies::parse(&[bad]).is_err(), "{bad:?} accepted");
        }
        let t = TrustedProxies::parse(&["10.1.2.3/8", "::1", "192.0.2.7"]).unwrap();
        assert!(t.contains(ip("10.200.0.1")));
        assert!(t.contains(ip("::1")));
        assert!(t.contains(ip("::ffff:192.0.2.7")), "IPv4-mapped IPv6 is the IPv4 address");
        assert!(!t.contains(ip("192.0.2.8")));
    }

    #[test]
    fn untrusted_peers_cannot_choose_their_address() {
        let h = headers(&[("x-forwarded-for", "203.0.113.9"), ("forwarded", "for=203.0.113.9;proto=https")]);
        let c = resolve(ip("198.51.100.1"), &h, &trusted(), false);
        assert_eq!(c, Client { ip: ip("198.51.100.1"), https: Some(false) });
        // No trusted network at all: ignored too.
        let c = resolve(ip("127.0.0.1"), &h, &TrustedProxies::default(), false);
        assert_eq!(c.ip, ip("127.0.0.1"));
    }

    #[test]
    fn right_most_untrusted_address_of_x_forwarded_for() {
        // The client wrote the first (forged) entry; nginx appended the real one.
        let h = headers(&[("x-forwarded-for", "1.1.1.1, 203.0.113.9"), ("x-forwarded-proto", "https")]);
        let c = resolve(ip("127.0.0.1"), &h, &trusted(), false);
        assert_eq!(c, Client { ip: ip("203.0.113.9"), https: Some(true) });
        // Two trusted proxies in a row are skipped; split over two header lines.
        let h = headers(&[("x-forwarded-for", "203.0.113.9, 10.0.0.5"), ("x-forwarded-for", "10.0.0.6")]);
        let c = resolve(ip("127.0.0.1"), &h, &trusted(), false);
        assert_eq!(c, Client { ip: ip("203.0.113.9"), https: None });
        // Everything trusted: the left-most.
        let h = headers(&[("x-forwarded-for", "10.0.0.7, 10.0.0.5")]);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &trusted(), false).ip, ip("10.0.0.7"));
        // Ports and brackets.
        let h = headers(&[("x-forwarded-for", "[2001:db8::7]:4711")]);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &trusted(), false).ip, ip("2001:db8::7"));
        let h = headers(&[("x-forwarded-for", "192.0.2.4:80")]);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &trusted(), false).ip, ip("192.0.2.4"));
    }

    #[test]
    fn forwarded_header_of_rfc_7239() {
        let h = headers(&[
            ("forwarded", r#"for=1.1.1.1;proto=http, for="[2001:db8:cafe::17]:4711";proto=https;by=10.0.0.1"#),
            ("x-forwarded-for", "9.9.9.9"),
        ]);
        let c = resolve(ip("127.0.0.1"), &h, &trusted(), false);
        assert_eq!(c, Client { ip: ip("2001:db8:cafe::17"), https: Some(true) }, "Forwarded wins over X-Forwarded-For");
        let h = headers(&[("forwarded", "For=\"192.0.2.60:47011\";Proto=HTTP, for=10.0.0.3")]);
        assert_eq!(resolve(ip("10.9.9.9"), &h, &trusted(), false), Client { ip: ip("192.0.2.60"), https: Some(false) });
    }

    #[test]
    fn malformed_headers_fall_back_to_the_peer() {
        for (name, value) in [
            ("x-forwarded-for", "not-an-ip"),
            ("x-forwarded-for", "203.0.113.9,,"),
            ("x-forwarded-for", ""),
            ("forwarded", "for"),
            ("forwarded", "for=\"203.0.113.9"),
            ("forwarded", "proto=https"),
            ("forwarded", "for=203.0.113.9;for=1.2.3.4"),
            ("forwarded", "for=1.2.3.4 junk"),
            ("forwarded", "for=unknown"),
            ("forwarded", "for=203.0.113.9, for=_hidden"),
        ] {
            let h = headers(&[(name, value)]);
            let c = resolve(ip("127.0.0.1"), &h, &trusted(), false);
            assert_eq!(c.ip, ip("127.0.0.1"), "{name}: {value:?}");
        }
        let h = headers(&[("x-forwarded-for", "203.0.113.9"), ("x-forwarded-proto", "gopher")]);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &trusted(), false).ip, ip("127.0.0.1"));
        // An unknown hop further left than the client does not matter.
        let h = headers(&[("forwarded", "for=unknown, for=203.0.113.9")]);
        assert_eq!(resolve(ip("127.0.0.1"), &h, &trusted(), false).ip, ip("203.0.113.9"));
    }
}
