//! ES-1's typed messages between agents and ES-2's challenge.

use serde::{Deserialize, Serialize};

use super::assumptions::Priority;

/// ES-1: what a message is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// An analytical result.
    Finding,
    /// A finding backed by similar past cases.
    FindingWithPrecedent,
    /// Asks another agent for an analysis.
    Request,
    /// Disputes another agent's finding.
    Challenge,
    /// Validates a finding or an assumption.
    Confirmation,
    /// Needs attention now.
    Alert,
}

/// A past case a finding leans on (`finding_with_precedent`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Precedent {
    pub case: String,
    pub outcome: String,
}

/// ES-1: the content of a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Content {
    pub finding: String,
    /// From 0 to 1.
    pub confidence: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub impact: String,
    /// The assumption the finding states a value for, and the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assumption: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub precedents: Vec<Precedent>,
}

/// ES-1: one message between agents (`to: None` is a broadcast).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub from: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    pub kind: MessageKind,
    /// `high`, `medium` or `low`.
    pub priority: String,
    pub content: Content,
    /// Pipeline seconds since the debate began (ES-10).
    pub at: u64,
    pub requires_response: bool,
}

/// ES-2: one agent disputes another's value of an assumption.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Challenge {
    /// `CH-001`, `CH-002`, … in order of raising.
    pub id: String,
    pub challenger: String,
    pub challenged: String,
    /// The finding disputed, as the challenged agent stated it.
    pub disputed_finding: String,
    pub assumption: String,
    /// The challenged agent's value and the challenger's.
    pub challenged_value: f64,
    pub challenger_value: f64,
    pub basis: String,
    pub required_evidence: Vec<String>,
    /// Seconds the current level has before it escalates (ES-3: 15 min to acknowledge).
    pub escalation_timer: u64,
    pub priority: Priority,
    /// Set once a level-4 fallback applies a value (ES-6).
    #[serde(default)]
    pub provisional_resolution: Option<f64>,
}

impl Challenge {
    /// The id of the `n`-th challenge of a debate (from 1).
    pub fn id_for(n: usize) -> String {
        format!("CH-{n:03}")
    }
}
