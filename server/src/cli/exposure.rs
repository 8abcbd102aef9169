//! What serving beyond this machine demands before `serve` listens: a start token when a paid
//! backend is configured (SV-13), wherever strangers can reach the server — beyond loopback or
//! behind a reverse proxy — and the host names it serves (SV-17).

use super::error::CliError;
use super::serve_args::ServeArgs;
use crate::engine::Remote;

/// Listening beyond loopback with a paid backend and nobody required to show a token would let
/// any stranger spend the operator's money: refuse, and say how to fix it.
pub fn refuse_open_spending(
    args: &ServeArgs,
    remote: &Remote,
    has_token: bool,
) -> Result<(), CliError> {
    let paid: Vec<&str> = [
        remote.openai.as_ref().map(|_| "openai"),
        remote.http.as_ref().map(|_| "http"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if paid.is_empty() || has_token || args.allow_anonymous_start {
        return Ok(());
    }
    // SV-13: behind a reverse proxy a loopback address says nothing about who can reach the
    // server; trusting the proxy's headers or answering to a public name says it is proxied.
    let public_hosts: Vec<&str> = args
        .allowed_hosts
        .iter()
        .map(|h| h.trim())
        .filter(|h| !h.is_empty() && !crate::access::guard::is_loopback_host(h))
        .collect();
    let proxied = args.trust_proxy.is_some() || !public_hosts.is_empty();
    if args.addr.ip().is_loopback() && !proxied {
        return Ok(());
    }
    let where_ = if args.addr.ip().is_loopback() {
        let mut signs = Vec::new();
        if args.trust_proxy.is_some() {
            signs.push("--trust-proxy".to_owned());
        }
        if !public_hosts.is_empty() {
            signs.push(format!("--allowed-hosts {}", public_hosts.join(",")));
        }
        format!(
            "serve behind a reverse proxy ({}) on {}",
            signs.join(", "),
            args.addr
        )
    } else {
        format!("listen on {}", args.addr)
    };
    Err(CliError::Unsafe(format!(
        "refusing to {where_} with the {} backend and no start token: anyone who can reach \
         it could start debates on your account. Set CONSILIUM_START_TOKEN (or --start-token), \
         serve only this machine (127.0.0.1, no proxy), or pass --allow-anonymous-start if that \
         is what you want",
        paid.join(" and ")
    )))
}

/// SV-17: beyond loopback without `--allowed-hosts` the server would answer to any `Host`, so a
/// web page could rebind its own name to this address (DNS rebinding) and pass the Origin check,
/// which compares with that name: refuse, and say how to name the hosts.
pub fn refuse_rebinding(args: &ServeArgs) -> Result<(), CliError> {
    if args.addr.ip().is_loopback() || args.allowed_hosts.iter().any(|h| !h.trim().is_empty()) {
        return Ok(());
    }
    Err(CliError::Unsafe(format!(
        "refusing to listen on {} without --allowed-hosts: beyond loopback the server would \
         answer to any Host name, so a web page could rebind its own name to this address (DNS \
         rebinding) and use the server from its visitors' browsers. Name the hosts it serves \
         (--allowed-hosts debates.example.org, or CONSILIUM_ALLOWED_HOSTS), or accept any on \
         purpose with --allowed-hosts '*'",
        args.addr
    )))
}
