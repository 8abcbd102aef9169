//! QL-3: a debate may give each agent its own backend and model — research finds mixed models
//! debate better than copies of one. `"agents": [{"role": "safety", "backend": "openai",
//! "model": "llama3.1:8b"}, …]`; agents not listed use the debate's `backend`.

use serde::{Deserialize, Serialize};

use super::{Backend, RequestError};

/// One agent's choice, as the request gives it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AgentChoice {
    /// The agent: its id in the protocol (`safety`, `valuation`, …).
    pub role: String,
    /// `builtin`, `openai` or `http`; the debate's `backend` when absent.
    #[serde(default)]
    pub backend: Option<String>,
    /// `openai` only: the model to ask instead of the server's `OPENAI_MODEL`.
    #[serde(default)]
    pub model: Option<String>,
}

/// A checked choice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidChoice {
    pub agent: String,
    pub backend: Backend,
    pub model: Option<String>,
}

/// The most per-agent choices a request may make.
pub const MAX_CHOICES: usize = 12;

fn bad(i: usize, field: &str, why: String) -> RequestError {
    RequestError::BadAgents(format!("agents[{i}].{field}: {why}"))
}

/// Checks every choice's shape, naming the field. Whether the protocol has each agent is
/// checked when the debate is set up.
pub fn validate(
    choices: &[AgentChoice],
    default: Backend,
) -> Result<Vec<ValidChoice>, RequestError> {
    if choices.len() > MAX_CHOICES {
        return Err(RequestError::BadAgents(format!(
            "agents: at most {MAX_CHOICES} choices, got {}",
            choices.len()
        )));
    }
    let mut valid: Vec<ValidChoice> = Vec::new();
    for (i, c) in choices.iter().enumerate() {
        let agent = c.role.trim().to_ascii_lowercase();
        if agent.is_empty() || agent.len() > 64 {
            return Err(bad(
                i,
                "role",
                "must name one of the protocol's agents".into(),
            ));
        }
        if valid.iter().any(|v| v.agent == agent) {
            return Err(bad(i, "role", format!("'{agent}' is chosen twice")));
        }
        let backend = match c.backend.as_deref().map(str::trim) {
            None | Some("") => default,
            Some(b) => Backend::ALL
                .into_iter()
                .find(|known| known.as_str().eq_ignore_ascii_case(b))
                .ok_or_else(|| {
                    bad(
                        i,
                        "backend",
                        format!("unknown backend '{b}': expected builtin, openai or http"),
                    )
                })?,
        };
        let model = match c.model.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(m) => {
                if backend != Backend::Openai {
                    return Err(bad(
                        i,
                        "model",
                        format!(
                            "only the openai backend takes a model, not {}",
                            backend.as_str()
                        ),
                    ));
                }
                if m.len() > 200 {
                    return Err(bad(
                        i,
                        "model",
                        format!("{} bytes; the limit is 200", m.len()),
                    ));
                }
                if let Some(ch) = m
                    .chars()
                    .find(|ch| !(ch.is_ascii_alphanumeric() || "._:/@+-".contains(*ch)))
                {
                    return Err(bad(
                        i,
                        "model",
                        format!("'{ch}' is not allowed in a model name (letters, digits and ._:/@+- are)"),
                    ));
                }
                Some(m.to_owned())
            }
        };
        valid.push(ValidChoice {
            agent,
            backend,
            model,
        });
    }
    Ok(valid)
}
