//! `consilium serve`: configuration from flags and the environment, then the server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::LeptosOptions;

use super::error::CliError;
pub use super::serve_args::ServeArgs;
use crate::access::guard::HostPolicy;
use crate::access::{token, Access, LimitConfig, Limits};
use crate::agents::http::HttpConfig;
use crate::agents::openai::OpenAiConfig;
use crate::agents::remote::CallPolicy;
use crate::db::Store;
use crate::engine::{Engine, Remote, Settings};
use crate::router::{router, AppState};

pub(crate) fn remote(args: &ServeArgs) -> Result<Remote, CliError> {
    let nonempty = |s: &Option<String>| {
        s.as_ref()
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    Ok(Remote {
        openai: nonempty(&args.openai_model).map(|model| {
            Arc::new(OpenAiConfig {
                base_url: args.openai_base_url.trim().to_owned(),
                model,
                api_key: args.openai_api_key.clone().filter(|k| !k.is_empty()),
                max_tokens: args.openai_max_tokens.max(16),
                temperature: args.openai_temperature.clamp(0.0, 2.0),
                json_mode: args.openai_json_mode,
                embeddings_model: nonempty(&args.openai_embeddings_model),
                embeddings_base_url: nonempty(&args.openai_embeddings_base_url),
                stream: args.openai_stream,
            })
        }),
        http: nonempty(&args.http_agent_url).map(|url| HttpConfig {
            url,
            token: nonempty(&args.http_agent_token),
        }),
        policy: CallPolicy {
            timeout: Duration::from_secs(args.remote_timeout_s.max(1)),
            retries: args.remote_retries.min(10),
            backoff: Duration::from_millis(args.remote_backoff_ms),
            ..CallPolicy::default()
        },
        client: crate::outbound::client(args.ca_cert.as_deref())?,
        token_budget: args.token_budget.clamp(1, app::api::MAX_TOKEN_BUDGET),
        max_token_budget: args
            .max_token_budget
            .clamp(1, app::api::MAX_TOKEN_BUDGET)
            .max(args.token_budget.clamp(1, app::api::MAX_TOKEN_BUDGET)),
        models: args
            .openai_models
            .iter()
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty())
            .collect(),
        endpoints: Arc::new(crate::agents::endpoint::Endpoints::new(
            args.max_parallel_calls,
        )),
    })
}

fn default_site_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/site"))
}

/// What `serve` listens with: the router over the whole HTTP surface, and the engine behind it
/// (for shutdown). Tests build the same thing in-process and call it with `oneshot`.
pub struct Serving {
    pub router: axum::Router,
    pub engine: Engine,
}

pub async fn serve(args: ServeArgs) -> Result<(), CliError> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,sqlx=warn".into()),
        )
        .init();
    let Serving {
        router: app,
        engine,
    } = build(&args).await?;
    let closing = engine.closing.clone();
    let listener = listen(args.addr).map_err(|error| CliError::Bind {
        addr: args.addr,
        error,
    })?;
    let local = listener.local_addr().map_err(CliError::Serve)?;
    tracing::info!(
        "Consilium listening on http://{local} (database {})",
        crate::db::redact(&args.database_url)
    );
    let limits = crate::http::conn::ConnLimits {
        header_timeout: std::time::Duration::from_secs(args.header_timeout_s),
        write_timeout: std::time::Duration::from_secs(args.write_timeout_s),
        max: args.max_connections as usize,
        per_address: Some(args.max_connections_per_address as usize),
        proxies: args.trust_proxy.clone().unwrap_or_default(),
    };
    let server = crate::http::conn::serve(listener, app, closing.clone(), limits);
    tokio::pin!(server);
    tokio::select! {
        () = &mut server => return Ok(()),
        () = shutdown_signal() => {}
    }
    tracing::info!("shutting down: closing live streams");
    closing.begin();
    // Shutdown is bounded: connections that do not finish within the grace period are dropped,
    // and running debates get `--drain-seconds` for the calls in flight (LM-4, RS-3).
    let connections = async {
        if tokio::time::timeout(SHUTDOWN_GRACE, &mut server)
            .await
            .is_err()
        {
            tracing::warn!("shutdown: connections still open after {SHUTDOWN_GRACE:?}; dropped");
        }
    };
    tokio::join!(
        connections,
        engine.drain(Duration::from_secs(args.drain_seconds))
    );
    Ok(())
}

/// SV-18: the credentials given are redacted exactly wherever an upstream echoes them.
fn register_credentials(args: &ServeArgs, remote: &Remote) {
    let given = [
        remote
            .openai
            .as_ref()
            .and_then(|o| o.api_key.as_ref())
            .map(|k| k.expose()),
        args.start_token.as_ref().map(|t| t.expose()),
        remote.http.as_ref().and_then(|h| h.token.as_deref()),
    ];
    for value in given.into_iter().flatten() {
        crate::agents::secrets::register(value);
    }
}

/// Everything `serve` does before it listens: checks the configuration, loads the embedder,
/// opens the store (migrations), recovers debates a dead process left running, builds the router.
#[allow(clippy::cognitive_complexity)] // the configuration checked in order, each step one `?`
pub async fn build(args: &ServeArgs) -> Result<Serving, CliError> {
    let remote = remote(args)?;
    register_credentials(args, &remote);
    let start_token = args
        .start_token
        .as_ref()
        .map(|t| t.expose().trim())
        .filter(|t| !t.is_empty());
    super::exposure::refuse_open_spending(args, &remote, start_token.is_some())?;
    super::exposure::refuse_rebinding(args)?;
    // The builtin agents recognise danger by meaning: without their embedder, refuse to start.
    crate::embed::init(args.embedder.as_deref())?;
    crate::agents::builtin::warm_up();
    // The first start encodes the exemplars: give the activations' heap back too.
    crate::live::trim::trim();
    let store = Store::connect_with(&args.database_url, args.durability).await?;
    let engine = Engine::new(
        store,
        Settings {
            pace: Duration::from_millis(args.pace_ms),
            agent_timeout: Duration::from_secs(args.agent_timeout_s.max(1)),
            remote,
            daily_tokens: args.daily_token_budget,
            eval_dir: args.eval_dir.clone(),
            max_resumes: if args.no_resume { 0 } else { args.max_resumes },
        },
    );
    let signer = crate::signing::Signer::for_server(
        args.signing_key.as_deref(),
        args.data_dir.as_deref(),
        &args.database_url,
    )?;
    let engine = engine.with_signer(Arc::new(signer));
    let limits = Limits::new(LimitConfig {
        max_debates: args.max_debates.max(1),
        max_debates_per_client: args.max_debates_per_client.max(1),
        max_streams_per_client: args.max_streams_per_client.max(1),
        rate_per_s: args.rate_limit.max(1),
        burst: args.rate_burst.max(1),
        request_timeout: Duration::from_secs(args.request_timeout_s.max(1)),
        daily_tokens: args.daily_token_budget,
        daily_debates_per_client: args.max_daily_debates_per_client,
    });
    crate::live::trim::watch(limits.clone());
    let access = Arc::new(Access {
        store: engine.store.clone(),
        start_token: start_token.map(token::hash),
        session_ttl: Duration::from_secs(args.session_hours.clamp(1, 24 * 30) * 3600),
        secure_cookies: args.secure_cookies,
        trust_proxy: args.trust_proxy.clone().unwrap_or_default(),
        limits,
    });
    let hosts = Arc::new(HostPolicy::new(args.addr.ip(), &args.allowed_hosts));
    if let Some(o) = &engine.settings.remote.openai {
        tracing::info!(
            "openai backend: model {} at {}",
            o.model,
            crate::db::redact(&o.base_url)
        );
    }
    if let Some(h) = &engine.settings.remote.http {
        tracing::info!(
            "http backend: agent service at {}",
            crate::db::redact(&h.url)
        );
    }
    engine.recover_at_start().await?;
    if engine.store.is_shared() {
        engine.sweep_orphans(Duration::from_millis(args.orphan_sweep_ms.max(100)));
    }
    let site_dir = args.site_root.clone().unwrap_or_else(default_site_root);
    let site_root = site_dir.to_string_lossy().into_owned();
    // A built bundle's file names carry its hash, recorded in pkg/hash.txt
    // (xtask/src/hash.rs); Leptos's hydration script then asks for those names.
    let hash_file = site_dir.join("pkg").join("hash.txt");
    let hashed = hash_file.exists();
    if !hashed && !site_dir.join("pkg").join("consilium.js").exists() {
        tracing::warn!(
            "no browser bundle at {site_root}/pkg: pages will render but not update live; build it with `make build`"
        );
    }
    // Leptos reads the hash file from the executable's folder joined with this path: an absolute
    // path stands alone, so any binary (release, debug, tests) finds the site's.
    let hash_file = std::path::absolute(&hash_file).unwrap_or(hash_file);
    let leptos = LeptosOptions::builder()
        .output_name("consilium")
        .site_root(site_root)
        .site_pkg_dir("pkg")
        .site_addr(args.addr)
        .hash_files(hashed)
        .hash_file(std::sync::Arc::<str>::from(hash_file.to_string_lossy()))
        .build();
    let router = router(AppState {
        engine: engine.clone(),
        leptos,
        access,
        hosts,
    });
    Ok(Serving { router, engine })
}

/// How long shutdown waits for open requests after the signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// SIGINT (Ctrl-C) or SIGTERM (service managers, containers).
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Listens on `addr` with the longest accept queue the system allows (`net.core.somaxconn`;
/// tokio's default of 1,024 made a burst of a thousand viewers wait on SYN retransmits).
fn listen(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As `TcpListener::bind` does: a restarted server may take its port at once.
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    let backlog = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(4096)
        .max(1024);
    socket.listen(backlog)
}
