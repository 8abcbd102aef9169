//! The one place that maps a validated request to its protocol machine and its agents. A new
//! protocol adds one arm to [`machine_for`]; a new agent kind one arm to [`agents_for`].

use app::api::{Backend, Setup, ValidDebate};
use app::protocol::collapse::WcDebate;
use app::protocol::round_robin::{self, RrDebate};
use app::protocol::s4::S4Debate;
use app::protocol::{AgentSpec, BackendInfo, Debate, ProtocolError, Role};

use super::error::StartError;
use super::settings::Settings;
use crate::agents::builtin::BuiltinAgents;
use crate::agents::http::HttpAgents;
use crate::agents::openai::OpenAiAgents;
use crate::agents::Agent;
use crate::drive::now_rfc3339;

/// The protocol machine a validated request asks for.
pub fn machine_for(req: &ValidDebate, seed: u64) -> Result<Debate, ProtocolError> {
    Ok(match &req.setup {
        Setup::S4 => Debate::S4(S4Debate::new(&req.query, AgentSpec::default_s4(), seed)?),
        Setup::RoundRobin(params) => Debate::RoundRobin(RrDebate::new(
            &req.query,
            round_robin::default_agents(),
            params.clone(),
            seed,
        )?),
        Setup::Collapse { params, cards } => {
            let now = now_rfc3339();
            let cards: Vec<_> = cards
                .iter()
                .cloned()
                .map(|mut c| {
                    if c.timestamp.is_empty() {
                        c.timestamp.clone_from(&now);
                    }
                    c
                })
                .collect();
            let authors = if cards.is_empty() {
                app::protocol::collapse::default_authors()
            } else {
                cards
                    .iter()
                    .map(|c| AgentSpec::new(c.agent.clone(), Role::Author))
                    .collect()
            };
            Debate::Collapse(Box::new(WcDebate::new(
                &req.query,
                authors,
                cards,
                params.clone(),
                seed,
            )?))
        }
    })
}

/// The agents a request asks for (AG-1), or what the server lacks to provide them.
pub fn agents_for(
    settings: &Settings,
    req: &ValidDebate,
    seed: u64,
) -> Result<Box<dyn Agent>, StartError> {
    let remote = &settings.remote;
    Ok(match req.backend {
        Backend::Builtin => Box::new(BuiltinAgents::new(seed)),
        Backend::Openai => {
            let config = remote.openai.clone().ok_or_else(|| {
                StartError::Backend(
                    "backend 'openai' is not configured on this server: start it with \
                         OPENAI_MODEL (and OPENAI_BASE_URL, OPENAI_API_KEY as needed) or \
                         --openai-model"
                        .into(),
                )
            })?;
            Box::new(OpenAiAgents {
                config,
                policy: remote.policy.clone(),
                client: remote.client.clone(),
                seed,
            })
        }
        Backend::Http => {
            let config = remote.http.clone().ok_or_else(|| {
                StartError::Backend(
                    "backend 'http' is not configured on this server: start it with \
                         CONSILIUM_HTTP_AGENT_URL or --http-agent-url"
                        .into(),
                )
            })?;
            Box::new(HttpAgents {
                config,
                policy: remote.policy.clone(),
                client: remote.client.clone(),
                protocol: req.protocol.as_str(),
                seed,
            })
        }
    })
}

/// What `debate_started` records of a remote backend; nothing for the builtin agents.
pub fn backend_info(settings: &Settings, req: &ValidDebate, budget: u64) -> Option<BackendInfo> {
    let (model, service) = match req.backend {
        Backend::Builtin => return None,
        Backend::Openai => (
            settings.remote.openai.as_ref().map(|c| c.model.clone()),
            None,
        ),
        Backend::Http => (
            None,
            settings
                .remote
                .http
                .as_ref()
                .and_then(|c| service_of(&c.url)),
        ),
    };
    Some(BackendInfo {
        kind: req.backend.as_str().to_owned(),
        model,
        token_budget: budget,
        service,
    })
}

/// CR-1: a remote agent service is known by its URL's host and port (never its credentials).
fn service_of(url: &str) -> Option<String> {
    let u = reqwest::Url::parse(url).ok()?;
    let host = u.host_str()?;
    Some(match u.port_or_known_default() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_owned(),
    })
}
