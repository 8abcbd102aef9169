//! How this server runs debates: pacing, timeouts, and the remote agent kinds it is configured for.

use std::sync::Arc;
use std::time::Duration;

use crate::agents::http::HttpConfig;
use crate::agents::openai::OpenAiConfig;
use crate::agents::remote::CallPolicy;
use crate::drive::Timing;

#[derive(Clone, Debug)]
pub struct Settings {
    /// Delay before each agent message, so humans can watch (0 in tests).
    pub pace: Duration,
    /// AG-2: a builtin agent call that takes longer fails and counts as REFUSE. Remote calls are
    /// bounded by their [`CallPolicy`] instead.
    pub agent_timeout: Duration,
    pub remote: Remote,
    /// Tokens every remote debate together may spend per UTC day; 0: no daily limit.
    pub daily_tokens: u64,
    /// QL-2: where `consilium eval` saves runs, which the `/eval` page lists.
    pub eval_dir: std::path::PathBuf,
    /// RS-4: how many times a debate may be resumed from its log; 0 never resumes (a debate
    /// whose server stopped ends `interrupted`).
    pub max_resumes: u32,
}

impl Settings {
    /// How the drive loop waits for agents of `backend` (`builtin`, `openai`, `http`).
    pub fn timing(&self, backend: &str) -> Timing {
        let limit = if backend == "builtin" {
            self.agent_timeout
        } else {
            self.remote.policy.worst_case()
        };
        Timing {
            pace: self.pace,
            limit,
        }
    }
}

/// RS-4: resumes a debate may have before it ends `interrupted`.
pub const DEFAULT_MAX_RESUMES: u32 = 3;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            pace: Duration::ZERO,
            agent_timeout: Duration::from_secs(30),
            remote: Remote::default(),
            daily_tokens: 0,
            eval_dir: "data/eval".into(),
            max_resumes: DEFAULT_MAX_RESUMES,
        }
    }
}

/// The remote agent kinds this server can use, and how it calls them (AG-1, AG-2).
#[derive(Clone, Debug)]
pub struct Remote {
    /// `None`: `"backend": "openai"` is refused with what to configure.
    pub openai: Option<Arc<OpenAiConfig>>,
    pub http: Option<HttpConfig>,
    pub policy: CallPolicy,
    pub client: reqwest::Client,
    /// Tokens a debate may use when its request sets no `token_budget`.
    pub token_budget: u64,
    /// SV-13: the largest `token_budget` a request may set.
    pub max_token_budget: u64,
    /// SV-13: the models a request may name for an agent besides the configured one
    /// (`OPENAI_MODELS`; empty: only that one).
    pub models: Vec<String>,
    /// LM-2: every endpoint called, with its places for calls in flight
    /// (`--max-parallel-calls` each).
    pub endpoints: Arc<crate::agents::endpoint::Endpoints>,
}

/// The server's default per-debate token budget.
pub const DEFAULT_TOKEN_BUDGET: u64 = 200_000;

/// The largest per-debate token budget a request may set, unless the operator says otherwise:
/// five default debates' worth.
pub const DEFAULT_MAX_TOKEN_BUDGET: u64 = 1_000_000;

impl Default for Remote {
    fn default() -> Self {
        Remote {
            openai: None,
            http: None,
            policy: CallPolicy::default(),
            client: crate::outbound::default_client(),
            token_budget: DEFAULT_TOKEN_BUDGET,
            max_token_budget: DEFAULT_MAX_TOKEN_BUDGET,
            models: Vec::new(),
            endpoints: Arc::default(),
        }
    }
}
