//! Types that cross the wire (HTTP JSON, SSE, server functions) and the request rules shared by the
//! server and the browser form.

use serde::{Deserialize, Serialize};

use crate::protocol::collapse::{self, PositionCard, WcParams};
use crate::protocol::credibility::ContextTags;
use crate::protocol::escalation::{self, EsParams};
use crate::protocol::reconcile::{self, RcConfig, RcParams};
use crate::protocol::round_robin::{self, RrParams};
use crate::protocol::types::AgentSpec;

/// S4-8: longer queries are rejected with a clear error.
pub const MAX_QUERY_CHARS: usize = 4000;

/// `POST /api/debates` body.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateDebate {
    pub query: String,
    /// Defaults to `"s4"`.
    #[serde(default)]
    pub protocol: Option<String>,
    /// Makes the builtin agents reproducible; a random one is chosen and recorded when absent.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Protocol parameters (RR: `consensus_threshold`, `min_turns_per_agent`, `max_rounds`; WC:
    /// weights and thresholds). Unknown or out-of-range keys are refused by name.
    #[serde(default)]
    pub config: Option<serde_json::Value>,
    /// WC only: position cards supplied by the user instead of the builtin authors (WC-1).
    #[serde(default)]
    pub cards: Option<serde_json::Value>,
    /// AG-1: `builtin` (default), `openai` or `http`.
    #[serde(default)]
    pub backend: Option<String>,
    /// The most tokens the debate's agents may use; the server's default when absent.
    #[serde(default)]
    pub token_budget: Option<u64>,
    /// CR-1: the context the question is asked in (`regime`, `sector`, `metric`, `horizon`,
    /// `size`, `stage`; each optional, at most 64 characters). Credibility is computed for it
    /// and every agent's prediction carries it.
    #[serde(default)]
    pub context: Option<ContextTags>,
    /// QL-3: per-agent backends and models (see [`agents::AgentChoice`]).
    #[serde(default)]
    pub agents: Option<Vec<AgentChoice>>,
    /// ES-10, escalation only: pipeline seconds per wall second (1 to 86,400; 3600 shows an
    /// hour of the ladder each second). Default 1.
    #[serde(default)]
    pub time_scale: Option<u64>,
    /// RC-1, reconcile only: the observations to reconcile (at most 500), each `{id, agent,
    /// content, timestamp, topic_hint?, source_authority?, conflicts_with?}`.
    #[serde(default)]
    pub observations: Option<serde_json::Value>,
    /// RC-1, reconcile only: finished debates whose positions and findings become
    /// observations (with or instead of `observations`).
    #[serde(default)]
    pub from_debates: Option<Vec<String>>,
}

/// The largest token budget a request may set.
pub const MAX_TOKEN_BUDGET: u64 = 100_000_000;

/// FK-4: the most forks one batch runs (the API's `POST …/forks` and the fork form's seeds).
pub const MAX_BATCH: usize = 20;

/// AG-1: which kind of agent answers a debate's requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// Offline, deterministic per seed.
    #[default]
    Builtin,
    /// An OpenAI-compatible chat endpoint.
    Openai,
    /// A remote agent service.
    Http,
}

impl Backend {
    pub const ALL: [Backend; 3] = [Backend::Builtin, Backend::Openai, Backend::Http];

    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Builtin => "builtin",
            Backend::Openai => "openai",
            Backend::Http => "http",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    S4,
    RoundRobin,
    Collapse,
    Escalation,
    Reconcile,
}

impl Protocol {
    pub const ALL: [Protocol; 5] = [
        Protocol::S4,
        Protocol::RoundRobin,
        Protocol::Collapse,
        Protocol::Escalation,
        Protocol::Reconcile,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::S4 => "s4",
            Protocol::RoundRobin => "round_robin",
            Protocol::Collapse => "collapse",
            Protocol::Escalation => "escalation",
            Protocol::Reconcile => "reconcile",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Protocol::S4 => "S4 — four-round debate",
            Protocol::RoundRobin => "RR — round-robin investment debate",
            Protocol::Collapse => "WC — weighted collapse of position cards",
            Protocol::Escalation => "ES — analysis pipeline with the escalation ladder",
            Protocol::Reconcile => "RC — reconcile conflicting observations into beliefs",
        }
    }

    /// A short label for lists.
    pub fn short(name: &str) -> &str {
        match name {
            "s4" => "S4",
            "round_robin" => "Round-robin",
            "collapse" => "Collapse",
            "escalation" => "Escalation",
            "reconcile" => "Reconciliation",
            other => other,
        }
    }
}

/// What a validated request sets up: the protocol and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Setup {
    /// S4-1: the debating agents (`config.agents`).
    S4 {
        agents: Vec<AgentSpec>,
    },
    RoundRobin(RrParams),
    Collapse {
        params: WcParams,
        /// Empty: the builtin authors write the cards.
        cards: Vec<PositionCard>,
    },
    Escalation(EsParams),
    /// The observations given, checked; `from_debates` adds the debates' positions server-side.
    Reconcile {
        config: RcConfig,
    },
}

/// A request that passed validation.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidDebate {
    pub query: String,
    pub protocol: Protocol,
    pub seed: Option<u64>,
    pub setup: Setup,
    pub backend: Backend,
    /// `None`: the server's default.
    pub token_budget: Option<u64>,
    /// Trimmed; `None` when no tag was given.
    pub context: Option<ContextTags>,
    /// QL-3: the agents given their own backend or model (empty: all use `backend`).
    pub agents: Vec<ValidChoice>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("query must not be empty")]
    EmptyQuery,
    #[error("query is {0} characters long; the limit is {MAX_QUERY_CHARS}")]
    QueryTooLong(usize),
    #[error(
        "unknown protocol '{0}': expected one of: s4, round_robin, collapse, escalation, reconcile"
    )]
    UnknownProtocol(String),
    /// A bad `config` key or value, e.g. "config.max_rounds: must be a whole number from 1 to 1000, got 0".
    #[error("{0}")]
    BadConfig(String),
    /// A bad position card, naming the field: "cards[1].risks[0].residual_risk: …".
    #[error("{0}")]
    BadCards(String),
    #[error("unknown backend '{0}': expected one of: builtin, openai, http")]
    UnknownBackend(String),
    #[error("token_budget must be from 1 to {MAX_TOKEN_BUDGET}, got {0}")]
    BadBudget(u64),
    /// A bad context tag, named: "context.sector: 80 characters; the limit is 64".
    #[error("{0}")]
    BadContext(String),
    /// A bad observation, naming the field: "observations[2].timestamp: …".
    #[error("{0}")]
    BadObservations(String),
    /// A bad per-agent choice, named: "agents[1].model: only the openai backend takes a model".
    #[error("{0}")]
    BadAgents(String),
    #[error(
        "query contains the control character U+{code:04X} at character {at}; only tabs and line breaks are allowed"
    )]
    ControlCharacter { code: u32, at: usize },
}

/// Debate ids are generated as short lowercase hex; anything else cannot name a debate, so it is
/// answered (404) without asking the database.
pub fn is_debate_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

impl CreateDebate {
    /// The home form's fields: `config` and `cards` arrive as JSON text (empty means absent).
    pub fn from_form(
        query: String,
        protocol: String,
        seed: Option<u64>,
        config: Option<String>,
        cards: Option<String>,
    ) -> Result<CreateDebate, RequestError> {
        let json = |field: &str, text: Option<String>| -> Result<_, RequestError> {
            match text.as_deref().map(str::trim) {
                None | Some("") => Ok(None),
                Some(t) => serde_json::from_str(t).map(Some).map_err(|e| {
                    let msg = format!("{field}: not valid JSON: {e}");
                    if field == "cards" {
                        RequestError::BadCards(msg)
                    } else {
                        RequestError::BadConfig(msg)
                    }
                }),
            }
        };
        Ok(CreateDebate {
            query,
            protocol: Some(protocol),
            seed,
            config: json("config", config)?,
            cards: json("cards", cards)?,
            backend: None,
            token_budget: None,
            context: None,
            agents: None,
            time_scale: None,
            observations: None,
            from_debates: None,
        })
    }

    /// S4-8 / SV-6: empty or over-long queries and unknown protocols are rejected, naming the field.
    pub fn validate(&self) -> Result<ValidDebate, RequestError> {
        // Invisible characters (zero-width, bidi controls) are removed: they can only hide what
        // a reader sees from what the agents read.
        let visible = crate::protocol::normalise::strip_invisible(&self.query);
        let query = visible.trim();
        if query.is_empty() {
            return Err(RequestError::EmptyQuery);
        }
        let chars = query.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(RequestError::QueryTooLong(chars));
        }
        // NUL and other control characters are never part of a question (and NUL cannot be stored
        // in PostgreSQL text): refuse them instead of failing later.
        if let Some((at, c)) = query
            .chars()
            .enumerate()
            .find(|(_, c)| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        {
            return Err(RequestError::ControlCharacter {
                code: u32::from(c),
                at: at + 1,
            });
        }
        let protocol = match self.protocol.as_deref().map(str::trim) {
            None | Some("") => Protocol::S4,
            Some(p) => Protocol::ALL
                .into_iter()
                .find(|known| known.as_str().eq_ignore_ascii_case(p))
                .ok_or_else(|| RequestError::UnknownProtocol(p.to_owned()))?,
        };
        let setup = self.setup(protocol)?;
        let backend = match self.backend.as_deref().map(str::trim) {
            None | Some("") => Backend::Builtin,
            Some(b) => Backend::ALL
                .into_iter()
                .find(|known| known.as_str().eq_ignore_ascii_case(b))
                .ok_or_else(|| RequestError::UnknownBackend(b.to_owned()))?,
        };
        if let Some(b) = self.token_budget {
            if b == 0 || b > MAX_TOKEN_BUDGET {
                return Err(RequestError::BadBudget(b));
            }
        }
        let context = match &self.context {
            Some(c) => Some(c.normalised().map_err(RequestError::BadContext)?),
            None => None,
        }
        .filter(|c| !c.is_empty());
        let agents = agents::validate(self.agents.as_deref().unwrap_or_default(), backend)?;
        Ok(ValidDebate {
            query: query.to_owned(),
            protocol,
            seed: self.seed,
            setup,
            backend,
            token_budget: self.token_budget,
            context,
            agents,
        })
    }

    fn setup(&self, protocol: Protocol) -> Result<Setup, RequestError> {
        let config = self.config.as_ref().filter(|c| !c.is_null());
        let cards = self.cards.as_ref().filter(|c| !c.is_null());
        if self.time_scale.is_some() && protocol != Protocol::Escalation {
            return Err(RequestError::BadConfig(format!(
                "time_scale: only the escalation protocol has timers, not {}",
                protocol.as_str()
            )));
        }
        if (self.observations.is_some() || self.from_debates.is_some())
            && protocol != Protocol::Reconcile
        {
            return Err(RequestError::BadObservations(format!(
                "observations: only the reconcile protocol takes observations, not {}",
                protocol.as_str()
            )));
        }
        if cards.is_some() && protocol != Protocol::Collapse {
            return Err(RequestError::BadCards(format!(
                "cards: only the collapse protocol takes position cards, not {}",
                protocol.as_str()
            )));
        }
        Ok(match protocol {
            Protocol::S4 => Setup::S4 {
                agents: match config {
                    Some(c) => {
                        crate::protocol::s4::parse_params(c).map_err(RequestError::BadConfig)?
                    }
                    None => AgentSpec::default_s4(),
                },
            },
            Protocol::RoundRobin => Setup::RoundRobin(match config {
                Some(c) => round_robin::parse_params(c).map_err(RequestError::BadConfig)?,
                None => RrParams::default(),
            }),
            Protocol::Collapse => Setup::Collapse {
                params: match config {
                    Some(c) => collapse::parse_params(c).map_err(RequestError::BadConfig)?,
                    None => WcParams::default(),
                },
                cards: match cards {
                    Some(c) => collapse::parse_cards(c).map_err(RequestError::BadCards)?,
                    None => Vec::new(),
                },
            },
            Protocol::Escalation => {
                let mut params = match config {
                    Some(c) => escalation::parse_params(c).map_err(RequestError::BadConfig)?,
                    None => EsParams::default(),
                };
                if let Some(scale) = self.time_scale {
                    params.time_scale =
                        escalation::check_scale(scale).map_err(RequestError::BadConfig)?;
                }
                Setup::Escalation(params)
            }
            Protocol::Reconcile => Setup::Reconcile {
                config: self.reconcile(config)?,
            },
        })
    }

    /// RC-1: the observations and parameters, checked field by field. With `from_debates`
    /// the observations may be absent (the server gathers them).
    fn reconcile(&self, config: Option<&serde_json::Value>) -> Result<RcConfig, RequestError> {
        let params = match config {
            Some(c) => reconcile::parse_params(c).map_err(RequestError::BadConfig)?,
            None => RcParams::default(),
        };
        let from_debates = self.from_debates.clone().unwrap_or_default();
        if from_debates.len() > 20 {
            return Err(RequestError::BadObservations(format!(
                "from_debates: {} debates; the most is 20",
                from_debates.len()
            )));
        }
        if let Some((i, bad)) = from_debates
            .iter()
            .enumerate()
            .find(|(_, d)| !is_debate_id(d))
        {
            return Err(RequestError::BadObservations(format!(
                "from_debates[{i}]: “{}” is not a debate id",
                bad.chars().take(40).collect::<String>()
            )));
        }
        // Each debate is gathered once: the same id twice is a slip, and twenty times would
        // read one log twenty times.
        if let Some((i, twice)) = from_debates
            .iter()
            .enumerate()
            .find(|(i, d)| from_debates[..*i].contains(d))
        {
            return Err(RequestError::BadObservations(format!(
                "from_debates[{i}]: “{twice}” is listed twice"
            )));
        }
        let observations = match self.observations.as_ref().filter(|o| !o.is_null()) {
            Some(o) => reconcile::parse_observations(o).map_err(RequestError::BadObservations)?,
            None if from_debates.is_empty() => {
                return Err(RequestError::BadObservations(
                    "observations: the reconcile protocol needs observations (a list of {id, agent, content, timestamp, …}) or from_debates".into(),
                ))
            }
            None => Vec::new(),
        };
        Ok(RcConfig {
            params,
            observations,
            from_debates,
        })
    }
}

pub mod agents;
mod answers;
pub mod compare;
mod service;
#[cfg(test)]
mod tests;

pub use agents::{AgentChoice, ValidChoice};
pub use answers::{
    divergence, BaselineCounts, Created, DebateDetail, DebateSummary, ErrorBody, ForkSummary,
    Forks, SavedEval,
};
pub use compare::{compare, CompareCell, CompareColumn, CompareRow, Comparison, MAX_COMPARED};
pub use service::*;
