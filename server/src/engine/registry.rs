//! The one place that maps a validated request to its protocol machine and its agents. A new
//! protocol adds one arm to [`machine_for`]; a new agent kind one arm to [`agents_for`].

use app::api::{Backend, Setup, ValidDebate};
use app::protocol::collapse::WcDebate;
use app::protocol::escalation::{self, EsDebate};
use app::protocol::event::DebateEvent;
use app::protocol::round_robin::{self, RrDebate};
use app::protocol::s4::S4Debate;
use app::protocol::shared::CommonEvent;
use app::protocol::{AgentSpec, BackendInfo, Debate, ProtocolError, Role};

use super::error::StartError;
use super::settings::Settings;
use crate::agents::builtin::BuiltinAgents;
use crate::agents::http::HttpAgents;
use crate::agents::openai::{OpenAiAgents, OpenAiConfig};
use crate::agents::{Agent, Answer};
use crate::drive::now_rfc3339;
use app::protocol::AgentRequest;
use futures::future::BoxFuture;

/// The protocol machine a validated request asks for.
pub fn machine_for(req: &ValidDebate, seed: u64) -> Result<Debate, ProtocolError> {
    Ok(match &req.setup {
        Setup::S4 { agents } => Debate::S4(S4Debate::new(&req.query, agents.clone(), seed)?),
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
        Setup::Escalation(params) => Debate::Escalation(Box::new(EsDebate::new(
            &req.query,
            escalation::default_agents(),
            *params,
            seed,
        )?)),
        Setup::Reconcile { config } => Debate::Reconcile(Box::new(
            app::protocol::reconcile::RcDebate::new(&req.query, config.clone(), seed)?,
        )),
    })
}

/// The agents a request asks for (AG-1), or what the server lacks to provide them. With
/// per-agent choices (QL-3) each of `agents` gets its own kind and model.
pub fn agents_for(
    settings: &Settings,
    req: &ValidDebate,
    seed: u64,
    agents: &[AgentSpec],
) -> Result<Box<dyn Agent>, StartError> {
    let protocol = req.protocol.as_str();
    if req.agents.is_empty() {
        return one_kind(settings, protocol, req.backend, None, seed);
    }
    check_choices(req, agents)?;
    let mut by_agent = Vec::new();
    for a in agents {
        let (backend, model) = choice_of(req, &a.id);
        let agent = one_kind(settings, protocol, backend, model, seed).map_err(|e| {
            // A refused model is named by its place in the request.
            match (e, req.agents.iter().position(|c| c.agent == a.id)) {
                (StartError::Backend(why), Some(i)) if model.is_some() => {
                    StartError::Backend(format!("agents[{i}].model: {why}"))
                }
                (e, _) => e,
            }
        })?;
        by_agent.push((a.id.clone(), agent));
    }
    Ok(Box::new(MixedAgents { by_agent }))
}

/// The agents a logged debate was answered by, rebuilt from its `debate_started` (ES-7: a
/// pipeline sent back to its agents at the gate asks the same kinds and models again), or what
/// this server lacks to provide them now. A fork's agents (FK-1) answer with the seed, backends
/// and models its `forked_from` events give, where they give them.
pub fn agents_of_log(
    settings: &Settings,
    log: &[app::protocol::Event],
) -> Result<Box<dyn Agent>, StartError> {
    use app::protocol::EventBody;
    let forked = app::protocol::run::effective_changes(log);
    let started = log
        .iter()
        .find(|e| !matches!(e.body, EventBody::Common(CommonEvent::ForkedFrom { .. })))
        .map(|e| &e.body);
    let Some(EventBody::Debate(DebateEvent::DebateStarted {
        protocol,
        seed,
        agents,
        backend,
        ..
    })) = started
    else {
        return Err(StartError::Backend(
            "the log does not start with debate_started".into(),
        ));
    };
    let protocol = app::api::Protocol::ALL
        .into_iter()
        .map(app::api::Protocol::as_str)
        .find(|p| p == protocol)
        .ok_or_else(|| {
            StartError::Backend(format!("the log names an unknown protocol '{protocol}'"))
        })?;
    let seed = forked.seed.unwrap_or(*seed);
    let debate_kind = backend.as_ref().map_or("builtin", |b| b.kind.as_str());
    let debate_model = backend.as_ref().and_then(|b| b.model.as_deref());
    if agents.iter().all(|a| a.backend.is_none()) && forked.agents.is_empty() {
        return one_kind(
            settings,
            protocol,
            kind_of(debate_kind)?,
            debate_model,
            seed,
        );
    }
    let mut by_agent = Vec::new();
    for a in agents {
        let own_kind = a.backend.as_deref().unwrap_or(debate_kind);
        let own_model = if a.backend.is_some() {
            a.model.as_deref()
        } else {
            debate_model
        };
        let (kind, model) = match forked.agents.iter().position(|c| c.role == a.id) {
            Some(i) => changed(&forked.agents[i], i, kind_of(own_kind)?)?,
            None => (kind_of(own_kind)?, own_model.map(str::to_owned)),
        };
        let agent =
            one_kind(settings, protocol, kind, model.as_deref(), seed).map_err(|e| {
                match (e, forked.agents.iter().position(|c| c.role == a.id)) {
                    (StartError::Backend(why), Some(i)) => {
                        StartError::Fork(format!("changes.agents[{i}]: {why}"))
                    }
                    (e, _) => e,
                }
            })?;
        by_agent.push((a.id.clone(), agent));
    }
    Ok(Box::new(MixedAgents { by_agent }))
}

/// A backend's kind by the name a log gives it.
fn kind_of(name: &str) -> Result<Backend, StartError> {
    Backend::ALL
        .into_iter()
        .find(|b| b.as_str() == name)
        .ok_or_else(|| StartError::Backend(format!("the log names an unknown backend '{name}'")))
}

/// FK-1: the backend and model a fork's change `c` (its `changes.agents[i]`) gives an agent
/// answered by `own` until then, checked as a new debate's per-agent choice is (QL-3).
fn changed(
    c: &app::protocol::run::ForkAgent,
    i: usize,
    own: Backend,
) -> Result<(Backend, Option<String>), StartError> {
    let choice = app::api::AgentChoice {
        role: c.role.clone(),
        backend: c.backend.clone(),
        model: c.model.clone(),
    };
    let valid = app::api::agents::validate(std::slice::from_ref(&choice), own).map_err(|e| {
        let why = e.to_string();
        let why = why.strip_prefix("agents[0].").unwrap_or(&why).to_owned();
        StartError::Fork(format!("changes.agents[{i}].{why}"))
    })?;
    let v = &valid[0];
    Ok((v.backend, v.model.clone()))
}

/// QL-3: every chosen agent must be one of the debate's.
fn check_choices(req: &ValidDebate, agents: &[AgentSpec]) -> Result<(), StartError> {
    for (i, c) in req.agents.iter().enumerate() {
        if !agents.iter().any(|a| a.id == c.agent) {
            let ids: Vec<&str> = agents.iter().map(|a| a.id.as_str()).collect();
            return Err(StartError::Backend(format!(
                "agents[{i}].role: the {} debate has no agent '{}' (its agents: {})",
                req.protocol.as_str(),
                c.agent,
                ids.join(", ")
            )));
        }
    }
    Ok(())
}

/// The backend and model agent `id` uses: its own choice, or the debate's.
fn choice_of<'a>(req: &'a ValidDebate, id: &str) -> (Backend, Option<&'a str>) {
    req.agents
        .iter()
        .find(|c| c.agent == id)
        .map_or((req.backend, None), |c| (c.backend, c.model.as_deref()))
}

/// QL-3: each request goes to its agent's own kind.
struct MixedAgents {
    by_agent: Vec<(String, Box<dyn Agent>)>,
}

impl Agent for MixedAgents {
    fn respond<'a>(&'a self, req: &'a AgentRequest) -> BoxFuture<'a, Answer> {
        match self.by_agent.iter().find(|(id, _)| *id == req.agent) {
            Some((_, agent)) => agent.respond(req),
            None => Box::pin(std::future::ready(unconfigured(req))),
        }
    }

    fn respond_streaming<'a>(
        &'a self,
        req: &'a AgentRequest,
        sink: crate::agents::stream::Sink<'a>,
    ) -> BoxFuture<'a, Answer> {
        match self.by_agent.iter().find(|(id, _)| *id == req.agent) {
            Some((_, agent)) => agent.respond_streaming(req, sink),
            None => Box::pin(std::future::ready(unconfigured(req))),
        }
    }

    /// The most any of its kinds allows: each remote call still waits for a place at its own
    /// endpoint.
    fn parallel(&self) -> usize {
        self.by_agent
            .iter()
            .map(|(_, a)| a.parallel())
            .max()
            .unwrap_or(1)
    }

    /// The first remote kind among the agents (so remote limits and timeouts apply), else
    /// `builtin`.
    fn backend(&self) -> &'static str {
        self.by_agent
            .iter()
            .map(|(_, a)| a.backend())
            .find(|k| *k != "builtin")
            .unwrap_or("builtin")
    }
}

fn unconfigured(req: &AgentRequest) -> Answer {
    Answer {
        reply: Err(crate::agents::AgentError::Failed(format!(
            "no agent is configured for '{}'",
            req.agent
        ))),
        usage: None,
    }
}

fn one_kind(
    settings: &Settings,
    protocol: &'static str,
    backend: Backend,
    model: Option<&str>,
    seed: u64,
) -> Result<Box<dyn Agent>, StartError> {
    let remote = &settings.remote;
    Ok(match backend {
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
            let config = match model {
                // SV-13: another model only from the operator's list: each is asked with the
                // operator's key.
                Some(m) if m != config.model && !remote.models.iter().any(|a| a == m) => {
                    let mut allowed = vec![config.model.as_str()];
                    allowed.extend(remote.models.iter().map(String::as_str));
                    return Err(StartError::Backend(format!(
                        "model '{m}' is not offered by this server; the models it allows: {} \
                         (the operator lists them in OPENAI_MODELS)",
                        allowed.join(", ")
                    )));
                }
                Some(m) if m != config.model => std::sync::Arc::new(OpenAiConfig {
                    model: m.to_owned(),
                    ..(*config).clone()
                }),
                _ => config,
            };
            Box::new(OpenAiAgents {
                endpoint: remote.endpoints.get(&config.endpoint()),
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
                endpoint: remote.endpoints.get(&config.url),
                config,
                policy: remote.policy.clone(),
                client: remote.client.clone(),
                protocol,
                seed,
            })
        }
    })
}

/// What `debate_started` records of the agents' backends: the debate's (nothing for the builtin
/// agents alone) and, with per-agent choices (QL-3), every agent's own.
pub fn backend_info(
    settings: &Settings,
    req: &ValidDebate,
    budget: u64,
    agents: &[AgentSpec],
) -> (Option<BackendInfo>, Vec<(String, BackendInfo)>) {
    if req.agents.is_empty() {
        return (info_of(settings, req.backend, None, budget), Vec::new());
    }
    let per_agent: Vec<(String, BackendInfo)> = agents
        .iter()
        .map(|a| {
            let (backend, model) = choice_of(req, &a.id);
            let info = info_of(settings, backend, model, budget).unwrap_or(BackendInfo {
                kind: "builtin".into(),
                model: None,
                token_budget: budget,
                service: None,
            });
            (a.id.clone(), info)
        })
        .collect();
    let debate = per_agent
        .iter()
        .any(|(_, b)| b.kind != "builtin")
        .then(|| BackendInfo {
            kind: "mixed".into(),
            model: None,
            token_budget: budget,
            service: None,
        });
    (debate, per_agent)
}

fn info_of(
    settings: &Settings,
    backend: Backend,
    model: Option<&str>,
    budget: u64,
) -> Option<BackendInfo> {
    let (model, service) = match backend {
        Backend::Builtin => return None,
        Backend::Openai => (
            model
                .map(str::to_owned)
                .or_else(|| settings.remote.openai.as_ref().map(|c| c.model.clone())),
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
        kind: backend.as_str().to_owned(),
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
