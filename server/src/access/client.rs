//! The client address limits are counted by: the TCP peer, or — when the peer is a reverse proxy
//! the operator said to trust (`--trust-proxy CIDR,…`, SV-12) — the first `X-Forwarded-For` hop
//! from the right that is not itself a trusted proxy: the address the outermost trusted proxy
//! saw. Hops to the left of it are whatever the client claimed. A hop that is not a plain IP
//! address (`1.2.3.4:5678`, `unknown`, `_hidden`) ends the walk: the request counts as the last
//! trusted proxy's, never as an address the client chose.
//!
//! Per-address limits count an IPv6 address by its /64 ([`limit_key`]), since one subscriber
//! holds a whole /64.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::str::FromStr;

use axum::extract::ConnectInfo;
use axum::http::{Extensions, HeaderMap};
use ipnet::IpNet;

/// The reverse proxies whose forwarding headers are believed (`--trust-proxy`); empty: none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// The proxies on this machine (127.0.0.0/8 and ::1): what a bare `--trust-proxy` means.
    pub fn loopback() -> TrustedProxies {
        TrustedProxies(vec![
            IpNet::from_str("127.0.0.0/8").unwrap_or_default(),
            IpNet::from(IpAddr::V6(Ipv6Addr::LOCALHOST)),
        ])
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = unmapped(ip);
        self.0.iter().any(|net| net.contains(&ip))
    }
}

impl FromStr for TrustedProxies {
    type Err = String;

    /// A comma-separated list of CIDR blocks or single addresses; `loopback` (or `true`, as the
    /// flag was once a switch) for the proxies on this machine.
    fn from_str(s: &str) -> Result<TrustedProxies, String> {
        let mut nets = Vec::new();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            if item.eq_ignore_ascii_case("loopback") || item.eq_ignore_ascii_case("true") {
                nets.extend(TrustedProxies::loopback().0);
            } else if let Ok(net) = IpNet::from_str(item) {
                nets.push(net.trunc());
            } else if let Ok(ip) = IpAddr::from_str(item) {
                nets.push(IpNet::from(ip));
            } else {
                return Err(format!(
                    "'{item}' is not an IP address or a CIDR block (e.g. 10.0.0.0/8, \
                     2001:db8::/32, or loopback)"
                ));
            }
        }
        if nets.is_empty() {
            return Err("name the proxies' addresses (e.g. 10.0.0.0/8), or loopback".into());
        }
        Ok(TrustedProxies(nets))
    }
}

/// An IPv4 address written as IPv6 (`::ffff:a.b.c.d`, as a dual-stack socket reports it) is that
/// IPv4 address.
fn unmapped(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// The key a per-address limit counts: an IPv4 address, or an IPv6 address's /64.
pub fn limit_key(ip: IpAddr) -> IpAddr {
    match unmapped(ip) {
        IpAddr::V6(v6) => {
            let s = v6.segments();
            IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
        v4 => v4,
    }
}

/// The client's address (SV-12): see the module's comment.
pub fn address(extensions: &Extensions, headers: &HeaderMap, proxies: &TrustedProxies) -> IpAddr {
    let peer = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| unmapped(c.0.ip()));
    if !proxies.contains(peer) {
        return peer;
    }
    let mut client = peer;
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect();
    for hop in hops.iter().rev() {
        let Ok(ip) = hop.trim().parse::<IpAddr>() else {
            break;
        };
        client = unmapped(ip);
        if !proxies.contains(client) {
            break;
        }
    }
    client
}

/// The client address, as an extractor.
pub struct ClientAddr(pub IpAddr);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ClientAddr
where
    super::SharedAccess: axum::extract::FromRef<S>,
{
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Self::Rejection> {
        let access = <super::SharedAccess as axum::extract::FromRef<S>>::from_ref(state);
        Ok(ClientAddr(address(
            &parts.extensions,
            &parts.headers,
            &access.trust_proxy,
        )))
    }
}

/// The TCP peer (a trusted proxy's address, behind one), as an extractor; `None` off a socket.
pub struct Peer(pub Option<IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(Peer(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| unmapped(c.0.ip())),
        ))
    }
}

/// The `tower_governor` key: the same address as every other limit, an IPv6 one by its /64.
#[derive(Clone, Debug)]
pub struct ClientKey {
    pub trust_proxy: TrustedProxies,
}

impl tower_governor::key_extractor::KeyExtractor for ClientKey {
    type Key = IpAddr;

    fn extract<T>(
        &self,
        req: &axum::http::Request<T>,
    ) -> Result<Self::Key, tower_governor::GovernorError> {
        Ok(limit_key(address(
            req.extensions(),
            req.headers(),
            &self.trust_proxy,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn from(peer: [u8; 4], xff: &[&str], proxies: &str) -> String {
        let mut ext = Extensions::new();
        ext.insert(ConnectInfo(SocketAddr::from((peer, 5000))));
        let mut h = HeaderMap::new();
        for v in xff {
            h.append("x-forwarded-for", HeaderValue::from_str(v).expect("header"));
        }
        let proxies = if proxies.is_empty() {
            TrustedProxies::default()
        } else {
            proxies.parse().expect("proxies")
        };
        address(&ext, &h, &proxies).to_string()
    }

    /// A case: its name, the TCP peer, the `X-Forwarded-For` headers, the trusted proxies, the
    /// address the limits count.
    type Case = (
        &'static str,
        [u8; 4],
        &'static [&'static str],
        &'static str,
        &'static str,
    );

    /// SV-12: the header counts only from a trusted proxy; the hops are walked from the right
    /// past trusted proxies; a malformed hop is never taken.
    #[test]
    fn the_forwarded_address_counts_only_from_trusted_proxies_sv_12() {
        let cases: [Case; 11] = [
            (
                "no proxy trusted",
                [10, 0, 0, 1],
                &["1.1.1.1, 203.0.113.9"],
                "",
                "10.0.0.1",
            ),
            (
                "a peer that is not the proxy",
                [10, 0, 0, 2],
                &["203.0.113.9"],
                "10.0.0.1",
                "10.0.0.2",
            ),
            (
                "the proxy's own hop",
                [10, 0, 0, 1],
                &["1.1.1.1, 203.0.113.9"],
                "10.0.0.0/8",
                "203.0.113.9",
            ),
            (
                "two trusted proxies in a row",
                [10, 0, 0, 1],
                &["6.6.6.6, 203.0.113.9, 10.0.0.7"],
                "10.0.0.0/8",
                "203.0.113.9",
            ),
            (
                "several headers, one list",
                [10, 0, 0, 1],
                &["6.6.6.6", "203.0.113.9"],
                "10.0.0.0/8",
                "203.0.113.9",
            ),
            ("no header", [10, 0, 0, 1], &[], "10.0.0.0/8", "10.0.0.1"),
            (
                "an address with a port",
                [10, 0, 0, 1],
                &["203.0.113.9, 1.2.3.4:5678"],
                "10.0.0.0/8",
                "10.0.0.1",
            ),
            (
                "unknown",
                [10, 0, 0, 1],
                &["203.0.113.9, unknown"],
                "10.0.0.0/8",
                "10.0.0.1",
            ),
            (
                "malformed behind a trusted hop",
                [10, 0, 0, 1],
                &["garbage, 10.0.0.9"],
                "10.0.0.0/8",
                "10.0.0.9",
            ),
            (
                "IPv6 client",
                [127, 0, 0, 1],
                &["2001:db8::1"],
                "loopback",
                "2001:db8::1",
            ),
            (
                "every hop a proxy",
                [10, 0, 0, 1],
                &["10.0.0.2, 10.0.0.3"],
                "10.0.0.0/8",
                "10.0.0.2",
            ),
        ];
        for (name, peer, xff, proxies, want) in cases {
            assert_eq!(from(peer, xff, proxies), want, "{name}");
        }
    }

    #[test]
    fn trusted_proxies_parse_cidrs_addresses_and_loopback_sv_12() {
        let p: TrustedProxies = "10.0.0.0/8, 192.0.2.7, 2001:db8::/32"
            .parse()
            .expect("list");
        for (ip, trusted) in [
            ("10.9.8.7", true),
            ("11.0.0.1", false),
            ("192.0.2.7", true),
            ("192.0.2.8", false),
            ("2001:db8:ffff::1", true),
            ("2001:db9::1", false),
            ("::ffff:10.1.2.3", true),
        ] {
            assert_eq!(p.contains(ip.parse().expect("ip")), trusted, "{ip}");
        }
        let bare: TrustedProxies = "loopback".parse().expect("loopback");
        assert!(bare.contains("127.0.0.1".parse().expect("ip")));
        assert!(bare.contains("::1".parse().expect("ip")));
        assert!(!bare.contains("10.0.0.1".parse().expect("ip")));
        assert_eq!("true".parse::<TrustedProxies>(), Ok(bare));
        for bad in ["", "10.0.0.0/33", "proxy.example.org", "1.2.3.4:80"] {
            let err = bad.parse::<TrustedProxies>().expect_err(bad);
            assert!(!err.is_empty(), "{bad}");
        }
    }

    /// SV-11/SV-12: one address is an IPv4 address or an IPv6 /64.
    #[test]
    fn a_limit_counts_an_ipv6_address_by_its_slash_64() {
        for (ip, key) in [
            ("203.0.113.7", "203.0.113.7"),
            ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::"),
            ("2001:db8:1:2::1", "2001:db8:1:2::"),
            ("::ffff:198.51.100.9", "198.51.100.9"),
        ] {
            let ip: IpAddr = ip.parse().expect("ip");
            assert_eq!(limit_key(ip).to_string(), key, "{ip}");
        }
    }
}
