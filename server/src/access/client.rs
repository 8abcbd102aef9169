//! The client address limits are counted by: the TCP peer, or — behind a reverse proxy that the
//! operator said to trust (`--trust-proxy`) — the last `X-Forwarded-For` hop, the one the proxy
//! itself added (earlier hops are whatever the client claimed).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::{Extensions, HeaderMap};

pub fn address(extensions: &Extensions, headers: &HeaderMap, trust_proxy: bool) -> IpAddr {
    if trust_proxy {
        let forwarded = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|hop| hop.trim().parse::<IpAddr>().ok())
            .next_back();
        if let Some(ip) = forwarded {
            return ip;
        }
    }
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip())
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
            access.trust_proxy,
        )))
    }
}

/// The `tower_governor` key: the same address as every other limit.
#[derive(Clone, Copy, Debug)]
pub struct ClientKey {
    pub trust_proxy: bool,
}

impl tower_governor::key_extractor::KeyExtractor for ClientKey {
    type Key = IpAddr;

    fn extract<T>(
        &self,
        req: &axum::http::Request<T>,
    ) -> Result<Self::Key, tower_governor::GovernorError> {
        Ok(address(req.extensions(), req.headers(), self.trust_proxy))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn the_proxy_hop_counts_only_when_trusted() {
        let mut ext = Extensions::new();
        ext.insert(ConnectInfo(SocketAddr::from(([10, 0, 0, 1], 5000))));
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            HeaderValue::from_static("1.1.1.1, 203.0.113.9"),
        );
        assert_eq!(address(&ext, &h, false).to_string(), "10.0.0.1");
        assert_eq!(address(&ext, &h, true).to_string(), "203.0.113.9");
        assert_eq!(
            address(&ext, &HeaderMap::new(), true).to_string(),
            "10.0.0.1"
        );
    }
}
