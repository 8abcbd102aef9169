//! The one HTTP client for every outbound call (model endpoints, agent services, `verify <url>`):
//! TLS by rustls with the bundled Mozilla roots (webpki-roots) plus the system's roots, an optional
//! private CA (`--ca-cert`), and redirects followed only within the same origin, so an endpoint
//! cannot bounce a call (and its bearer token) to another host.

use std::path::{Path, PathBuf};

use reqwest::redirect;

#[derive(Debug, thiserror::Error)]
pub enum OutboundError {
    #[error("cannot read the CA certificate file {path} (--ca-cert / CONSILIUM_CA_CERT): {error}")]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path} (--ca-cert / CONSILIUM_CA_CERT) holds no PEM certificate: {error}")]
    Pem { path: PathBuf, error: String },
    #[error("cannot set up the HTTP client: {0}")]
    Build(String),
}

/// Builds the client; `ca_cert` is a PEM file of one or more extra trusted roots.
pub fn client(ca_cert: Option<&Path>) -> Result<reqwest::Client, OutboundError> {
    let mut builder = reqwest::Client::builder()
        .use_rustls_tls()
        .redirect(same_origin_redirects())
        .user_agent(concat!("consilium/", env!("CARGO_PKG_VERSION")));
    if let Some(path) = ca_cert {
        for cert in ca_certificates(path)? {
            builder = builder.add_root_certificate(cert);
        }
    }
    builder
        .build()
        .map_err(|e| OutboundError::Build(e.to_string()))
}

/// The client with the bundled and system roots only (tests, defaults).
pub fn default_client() -> reqwest::Client {
    // Building without a CA file only fails when the TLS backend itself cannot start, which is a
    // broken build, not a runtime condition.
    client(None).unwrap_or_else(|e| panic!("{e}"))
}

fn ca_certificates(path: &Path) -> Result<Vec<reqwest::Certificate>, OutboundError> {
    let pem = std::fs::read(path).map_err(|error| OutboundError::Read {
        path: path.to_owned(),
        error,
    })?;
    let pem_error = |error: String| OutboundError::Pem {
        path: path.to_owned(),
        error,
    };
    if !pem
        .windows(b"-----BEGIN CERTIFICATE-----".len())
        .any(|w| w == b"-----BEGIN CERTIFICATE-----")
    {
        return Err(pem_error("no -----BEGIN CERTIFICATE----- block".into()));
    }
    reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| pem_error(e.to_string()))
}

/// Up to 5 redirects, each to the origin (scheme, host, port) the call started at.
fn same_origin_redirects() -> redirect::Policy {
    redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(|u| u.origin());
        if attempt.previous().len() > 5 {
            attempt.error("more than 5 redirects")
        } else if first.as_ref() != Some(&attempt.url().origin()) {
            // The 3xx reply itself is the answer: the caller reports it as an HTTP failure.
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}
