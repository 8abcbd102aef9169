//! FK-1: what a fork changes, as its `forked_from` event records it.

use serde::{Deserialize, Serialize};

/// FK-1: what a fork changes. Every field is optional; an empty set re-runs the parent's
/// debate from the event on as it was.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ForkChanges {
    /// Agents answered by another backend or model from the fork on (the server checks each
    /// against what it offers, as for a new debate's per-agent choices, QL-3).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<ForkAgent>,
    /// Agents removed from the debate from the fork on, where the protocol can go on without
    /// them (S4, before the votes are locked, while two agents remain): asked nothing more, no
    /// vote.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove: Vec<String>,
    /// The seed the agents answer with from the fork on (the builtin agents' replies follow it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The token budget of the fork's remote agents, the tokens the copied calls used included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u64>,
    /// Milliseconds before each agent message, for the people watching (the server's otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace_ms: Option<u64>,
    /// A note every agent is given with the query from the fork on ("New evidence: …").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// FK-1: one agent answered by another backend or model from the fork on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ForkAgent {
    /// The agent: its id in the debate (`safety`, `valuation`, …).
    pub role: String,
    /// `builtin`, `openai` or `http`; the agent's own until now when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    /// `openai` only: the model to ask (one the server offers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// The most agents one fork may change.
pub const MAX_AGENT_CHANGES: usize = 12;

/// The longest note a fork may give its agents, in characters.
pub const MAX_NOTE_CHARS: usize = 4_000;

/// The longest pace a fork may ask for.
pub const MAX_PACE_MS: u64 = 60_000;

impl ForkChanges {
    pub fn is_empty(&self) -> bool {
        *self == ForkChanges::default()
    }

    /// What the fork changes, in a few words each: "seed 3", "safety: openai/llama3", "a note",
    /// "budget 20000", "pace 500 ms".
    pub fn describe(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if let Some(s) = self.seed {
            parts.push(format!("seed {s}"));
        }
        for a in &self.agents {
            let to: Vec<&str> = [a.backend.as_deref(), a.model.as_deref()]
                .into_iter()
                .flatten()
                .collect();
            parts.push(format!("{}: {}", a.role, to.join("/")));
        }
        for r in &self.remove {
            parts.push(format!("without {r}"));
        }
        if self.note.is_some() {
            parts.push("a note".into());
        }
        if let Some(b) = self.token_budget {
            parts.push(format!("budget {b}"));
        }
        if let Some(p) = self.pace_ms {
            parts.push(format!("pace {p} ms"));
        }
        parts
    }
}
