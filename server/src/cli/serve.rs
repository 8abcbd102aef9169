//! `consilium serve`: configuration from flags and the environment, then the server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use leptos::prelude::LeptosOptions;

use super::error::CliError;
use crate::access::guard::HostPolicy;
use crate::access::{token, Access, LimitConfig, Limits};
use crate::agents::http::HttpConfig;
use crate::agents::openai::OpenAiConfig;
use crate::agents::remote::CallPolicy;
use crate::db::Store;
use crate::engine::{Engine, Remote, Settings, DEFAULT_MAX_TOKEN_BUDGET, DEFAULT_TOKEN_BUDGET};
use crate::router::{router, AppState};

#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "CONSILIUM_ADDR", default_value = "127.0.0.1:3000")]
    pub addr: SocketAddr,
    /// `sqlite:<path>` (created if missing) or `postgres://<user>@<host>[:<port>]/<database>`
    /// (several server processes may share one PostgreSQL database).
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite:data/consilium.db")]
    pub database_url: String,
    /// What a committed event survives: `normal` (a process crash; SQLite WAL with
    /// synchronous=NORMAL) or `full` (power loss too: an fsync per commit, i.e. per group).
    #[arg(long, env = "CONSILIUM_DURABILITY", value_enum, default_value_t = crate::db::Durability::Normal)]
    pub durability: crate::db::Durability,
    /// Delay before each agent message, in milliseconds, so people can watch the debate unfold.
    #[arg(long, env = "CONSILIUM_PACE_MS", default_value_t = 600)]
    pub pace_ms: u64,
    /// Seconds an agent may take for one reply before it counts as failed (REFUSE).
    #[arg(long, env = "CONSILIUM_AGENT_TIMEOUT_S", default_value_t = 30)]
    pub agent_timeout_s: u64,
    /// PostgreSQL only: how often, in milliseconds, this process looks for debates left running by
    /// another server process that stopped, and marks them interrupted.
    #[arg(long, env = "CONSILIUM_ORPHAN_SWEEP_MS", default_value_t = 5000)]
    pub orphan_sweep_ms: u64,
    /// AG-1 `openai`: the OpenAI-compatible API's base URL, up to `/v1` (Ollama:
    /// http://127.0.0.1:11434/v1, vLLM: http://HOST:8000/v1, llama.cpp: http://HOST:8080/v1).
    #[arg(
        long,
        env = "OPENAI_BASE_URL",
        default_value = "https://api.openai.com/v1"
    )]
    pub openai_base_url: String,
    /// The model to ask; the `openai` backend is available only when this is set.
    #[arg(long, env = "OPENAI_MODEL")]
    pub openai_model: Option<String>,
    /// SV-13: the models a request may name for an agent (`agents[].model`), comma-separated,
    /// each asked with this server's API key. Default: only OPENAI_MODEL.
    #[arg(long, env = "OPENAI_MODELS", value_delimiter = ',')]
    pub openai_models: Vec<String>,
    /// RC-1: the embeddings model for reconciliations with the `openai` backend (unset: the
    /// builtin embedder).
    #[arg(long, env = "OPENAI_EMBEDDINGS_MODEL")]
    pub openai_embeddings_model: Option<String>,
    /// Where the embeddings endpoint is, up to `/v1`, when not at OPENAI_BASE_URL.
    #[arg(long, env = "OPENAI_EMBEDDINGS_BASE_URL")]
    pub openai_embeddings_base_url: Option<String>,
    /// Sent as a bearer token; local servers need none.
    #[arg(long, env = "OPENAI_API_KEY", hide_env_values = true)]
    pub openai_api_key: Option<String>,
    /// The most tokens one model reply may use.
    #[arg(long, env = "CONSILIUM_OPENAI_MAX_TOKENS", default_value_t = 400)]
    pub openai_max_tokens: u32,
    #[arg(long, env = "CONSILIUM_OPENAI_TEMPERATURE", default_value_t = 0.2)]
    pub openai_temperature: f32,
    /// Ask the endpoint for a JSON object (`response_format: json_object`); `false` for an
    /// endpoint that refuses the field.
    #[arg(long, env = "CONSILIUM_OPENAI_JSON_MODE", default_value_t = true, action = clap::ArgAction::Set)]
    pub openai_json_mode: bool,
    /// AG-1 `http`: the URL a remote agent service takes one JSON request per turn at.
    #[arg(long, env = "CONSILIUM_HTTP_AGENT_URL")]
    pub http_agent_url: Option<String>,
    /// Sent to the agent service as a bearer token.
    #[arg(long, env = "CONSILIUM_HTTP_AGENT_TOKEN", hide_env_values = true)]
    pub http_agent_token: Option<String>,
    /// AG-2: seconds one attempt of a remote agent call may take.
    #[arg(long, env = "CONSILIUM_REMOTE_TIMEOUT_S", default_value_t = 60)]
    pub remote_timeout_s: u64,
    /// AG-2: extra attempts after a connection error, a timeout, HTTP 429 or 5xx.
    #[arg(long, env = "CONSILIUM_REMOTE_RETRIES", default_value_t = 2)]
    pub remote_retries: u32,
    /// AG-2: the wait before the first retry, doubled for each next one.
    #[arg(long, env = "CONSILIUM_REMOTE_BACKOFF_MS", default_value_t = 500)]
    pub remote_backoff_ms: u64,
    /// LM-2: the most calls in flight to one model endpoint or agent service at once, across
    /// every debate (1 asks one agent at a time).
    #[arg(long, env = "CONSILIUM_MAX_PARALLEL_CALLS", default_value_t = crate::agents::endpoint::DEFAULT_MAX_PARALLEL)]
    pub max_parallel_calls: usize,
    /// LM-3: ask the `openai` backend to stream replies, so viewers watch them being written
    /// (`false` for an endpoint that mishandles `stream`; one that refuses it is detected).
    #[arg(long, env = "CONSILIUM_OPENAI_STREAM", default_value_t = true, action = clap::ArgAction::Set)]
    pub openai_stream: bool,
    /// A debate's token budget when its request sets none; once used up, the debate stops and
    /// decides from what exists, the most cautious way.
    #[arg(long, env = "CONSILIUM_TOKEN_BUDGET", default_value_t = DEFAULT_TOKEN_BUDGET)]
    pub token_budget: u64,
    /// SV-13: the largest `token_budget` a request may set; a request asking for more is refused
    /// (400) naming this maximum.
    #[arg(long, env = "CONSILIUM_MAX_TOKEN_BUDGET", default_value_t = DEFAULT_MAX_TOKEN_BUDGET)]
    pub max_token_budget: u64,
    /// LM-4/RS-3: at shutdown (SIGTERM, Ctrl-C), how long the agent calls in flight may take to
    /// return; nothing new is asked. What returns is logged; what does not is logged as
    /// cancelled. 0 cancels them at once.
    #[arg(long, env = "CONSILIUM_DRAIN_SECONDS", default_value_t = 20,
        value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub drain_seconds: u64,
    /// A PEM file of extra trusted root certificates (a private CA) for every outbound HTTPS call
    /// (model endpoints, agent services); the bundled Mozilla roots and the system's are always
    /// trusted.
    #[arg(long, env = "CONSILIUM_CA_CERT")]
    pub ca_cert: Option<PathBuf>,
    /// The folder of the builtin agents' sentence model, all-MiniLM-L6-v2's `model.safetensors`
    /// and `vocab.txt` (unpacked by `cargo xtask embedder`).
    /// [default: target/embedder/minilm of this checkout]
    #[arg(long, env = "CONSILIUM_EMBEDDER")]
    pub embedder: Option<PathBuf>,
    /// SV-7: when set, starting a debate needs `Authorization: Bearer <this token>` (or a
    /// signed-in judge). Required when listening beyond loopback with a paid backend.
    #[arg(long, env = "CONSILIUM_START_TOKEN", hide_env_values = true)]
    pub start_token: Option<String>,
    /// Listen beyond loopback, or serve behind a proxy (`--trust-proxy`, a public
    /// `--allowed-hosts` name), with a paid backend and no start token anyway (anyone who can
    /// reach the server may spend on it).
    #[arg(long, env = "CONSILIUM_ALLOW_ANONYMOUS_START")]
    pub allow_anonymous_start: bool,
    /// Host names the server answers to (comma-separated; `*` for any). Default: loopback names
    /// when bound to a loopback address; beyond loopback it must be given (SV-17). Other hosts
    /// get 421.
    #[arg(long, env = "CONSILIUM_ALLOWED_HOSTS", value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,
    /// Behind a reverse proxy: take the client address from the last `X-Forwarded-For` hop and
    /// the scheme from `X-Forwarded-Proto`. Only when the proxy is the only way in.
    #[arg(long, env = "CONSILIUM_TRUST_PROXY")]
    pub trust_proxy: bool,
    /// Mark session cookies `Secure` (the site is served over HTTPS).
    #[arg(long, env = "CONSILIUM_SECURE_COOKIES")]
    pub secure_cookies: bool,
    /// How long a judge's browser session lasts, in hours.
    #[arg(long, env = "CONSILIUM_SESSION_HOURS", default_value_t = 12)]
    pub session_hours: u64,
    /// The most debates running at once on this server.
    #[arg(long, env = "CONSILIUM_MAX_DEBATES", default_value_t = LimitConfig::default().max_debates)]
    pub max_debates: u32,
    /// The most debates one client address may run at once.
    #[arg(long, env = "CONSILIUM_MAX_DEBATES_PER_CLIENT", default_value_t = LimitConfig::default().max_debates_per_client)]
    pub max_debates_per_client: u32,
    /// The most live streams one client address may hold open.
    #[arg(long, env = "CONSILIUM_MAX_STREAMS_PER_CLIENT", default_value_t = LimitConfig::default().max_streams_per_client)]
    pub max_streams_per_client: u32,
    /// Requests per second one client address may make, sustained.
    #[arg(long, env = "CONSILIUM_RATE_LIMIT", default_value_t = LimitConfig::default().rate_per_s)]
    pub rate_limit: u32,
    /// Requests one client address may make in a burst above that rate.
    #[arg(long, env = "CONSILIUM_RATE_BURST", default_value_t = LimitConfig::default().burst)]
    pub rate_burst: u32,
    /// Seconds a request (other than a live stream) may take before it is answered 503.
    #[arg(long, env = "CONSILIUM_REQUEST_TIMEOUT_S", default_value_t = 30)]
    pub request_timeout_s: u64,
    /// Tokens all debates on remote backends may spend per UTC day (0: no limit); then new
    /// remote debates get 429 until midnight UTC.
    #[arg(long, env = "CONSILIUM_DAILY_TOKEN_BUDGET", default_value_t = LimitConfig::default().daily_tokens)]
    pub daily_token_budget: u64,
    /// Where this server keeps its own files (the signing key). [default: the folder of the
    /// SQLite database file; for PostgreSQL, data/ of this checkout] Made absolute at start.
    #[arg(long, env = "CONSILIUM_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// This server's Ed25519 signing key, made on first start (mode 0600; a key file group or
    /// others may read is refused). [default: DATA_DIR/consilium.signing-key; none for an
    /// in-memory database, whose key lives in memory]
    #[arg(long, env = "CONSILIUM_SIGNING_KEY")]
    pub signing_key: Option<PathBuf>,
    /// Directory with the built browser bundle (`pkg/`), styles and public assets.
    /// [default: target/site of this checkout]
    #[arg(long, env = "CONSILIUM_SITE_ROOT")]
    pub site_root: Option<PathBuf>,
    /// Where `consilium eval` saves runs; the `/eval` page shows them.
    #[arg(long, env = "CONSILIUM_EVAL_DIR", default_value = "data/eval")]
    pub eval_dir: PathBuf,
}

fn remote(args: &ServeArgs) -> Result<Remote, CliError> {
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
                api_key: nonempty(&args.openai_api_key),
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

impl ServeArgs {
    /// The arguments `consilium serve FLAGS…` would get (and its environment), for in-process
    /// tests of the HTTP contract.
    pub fn from_flags<I, T>(flags: I) -> Result<ServeArgs, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::{FromArgMatches, Parser};
        #[derive(Parser)]
        struct Flags {
            #[command(flatten)]
            serve: ServeArgs,
        }
        let matches = <Flags as clap::CommandFactory>::command()
            .no_binary_name(true)
            .try_get_matches_from(flags)?;
        Flags::from_arg_matches(&matches).map(|f| f.serve)
    }
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
    let server = crate::http::conn::serve(listener, app, closing.clone());
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

/// Everything `serve` does before it listens: checks the configuration, loads the embedder,
/// opens the store (migrations), recovers debates a dead process left running, builds the router.
#[allow(clippy::cognitive_complexity)] // the configuration checked in order, each step one `?`
pub async fn build(args: &ServeArgs) -> Result<Serving, CliError> {
    let remote = remote(args)?;
    let start_token = args
        .start_token
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    super::exposure::refuse_open_spending(args, &remote, start_token.is_some())?;
    super::exposure::refuse_rebinding(args)?;
    // The builtin agents recognise danger by meaning: without their embedder, refuse to start.
    crate::embed::init(args.embedder.as_deref())?;
    crate::agents::builtin::warm_up();
    let store = Store::connect_with(&args.database_url, args.durability).await?;
    let engine = Engine::new(
        store,
        Settings {
            pace: Duration::from_millis(args.pace_ms),
            agent_timeout: Duration::from_secs(args.agent_timeout_s.max(1)),
            remote,
            daily_tokens: args.daily_token_budget,
            eval_dir: args.eval_dir.clone(),
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
    });
    crate::live::trim::watch(limits.clone());
    let access = Arc::new(Access {
        store: engine.store.clone(),
        start_token: start_token.map(token::hash),
        session_ttl: Duration::from_secs(args.session_hours.clamp(1, 24 * 30) * 3600),
        secure_cookies: args.secure_cookies,
        trust_proxy: args.trust_proxy,
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
    let interrupted = engine.recover().await?;
    if interrupted > 0 {
        tracing::warn!(
            "{interrupted} debate(s) were running when their server stopped; marked interrupted"
        );
    }
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
