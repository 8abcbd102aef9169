//! What any debate logs, whatever its protocol: rounds, agents asked and failing, calls and their
//! cost, budgets, injections, forks, resumptions and interruptions (SV-1). The log's envelope
//! wraps it beside each protocol's own events.

use serde::{Deserialize, Serialize};

use super::changes::ForkChanges;
use crate::credibility::CredibilitySnapshot;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CommonEvent {
    /// CR-4: every agent's credibility when the debate started, and the panel's effective
    /// votes (CR-3). Logged so the credibility-weighted what-if recomputes the same later.
    Credibility(CredibilitySnapshot),
    RoundStarted {
        round: u16,
        name: String,
        /// How many agent messages this round will hold.
        expected: u32,
    },
    /// An agent has been asked and is working on its reply.
    Thinking { agent: String, round: u16 },
    /// An agent failed or answered something unusable; what the protocol did instead (S4-8).
    AgentFailed {
        agent: String,
        round: u16,
        error: String,
        substitute: String,
    },
    /// S4-8: a prompt-injection pattern in the query (`source` "query", round 0) or in an
    /// agent's reply (`source` the agent). Recorded and shown; the debate goes on.
    InjectionDetected {
        source: String,
        round: u16,
        pattern: String,
        excerpt: String,
    },
    /// AG-2: what one call to a remote agent (openai, http) cost. Logged before its reply.
    AgentCall(AgentCall),
    /// The debate's token budget ran out before the next call; the decision that follows is
    /// made from the positions that exist, the most cautious way.
    BudgetExhausted { round: u16, used: u64, budget: u64 },
    /// SV-13: the server's daily token limit for remote models (`limit`) was reached — `spent`
    /// today across every debate — before this debate's next call: nothing more is asked, and
    /// the `budget_exhausted` that follows ends it the cautious way at what it had used.
    DailyLimitReached { spent: u64, limit: u64 },
    /// ES-11: the budget is spent and judges are configured: the debate waits for a judge to
    /// grant more tokens or close it, instead of stopping at once.
    BudgetPaused { used: u64, budget: u64 },
    /// ES-11: a judge granted `tokens` more; `budget` is the new total. The debate resumes.
    BudgetGranted {
        judge: String,
        tokens: u64,
        budget: u64,
    },
    /// ES-11: a judge closed a paused debate; it ends with the cautious decision (a
    /// `budget_exhausted` follows).
    BudgetClosed { judge: String },
    /// FK-1: this debate is a fork of debate `debate` after its event `after_seq`, whose hash is
    /// `head_hash`; the parent's events 1..=`after_seq` follow, copied, then the fork goes on
    /// with `changes`. Always the first event of a fork.
    ForkedFrom {
        debate: String,
        after_seq: u64,
        head_hash: String,
        #[serde(default, skip_serializing_if = "ForkChanges::is_empty")]
        changes: ForkChanges,
    },
    /// RS-1: the server running the debate stopped after event `after_seq`; process `process`
    /// rebuilt the machine from the log and the debate goes on. Calls asked and not answered
    /// before it are asked again (their `agent_call` says `reasked`).
    Resumed {
        after_seq: u64,
        process: String,
        reason: String,
    },
    /// The debate stopped before it finished; the log ends here (SV-5): its server stopped, or
    /// a judge stopped it (`by` names the judge, SV-7).
    Interrupted {
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
}

impl CommonEvent {
    /// Every `type` these events have on the wire.
    pub const TYPES: &'static [&'static str] = &[
        "credibility",
        "round_started",
        "thinking",
        "agent_failed",
        "injection_detected",
        "agent_call",
        "budget_exhausted",
        "daily_limit_reached",
        "budget_paused",
        "budget_granted",
        "budget_closed",
        "forked_from",
        "resumed",
        "interrupted",
    ];

    /// The `type` tag as it appears on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            CommonEvent::Credibility(_) => "credibility",
            CommonEvent::RoundStarted { .. } => "round_started",
            CommonEvent::Thinking { .. } => "thinking",
            CommonEvent::AgentFailed { .. } => "agent_failed",
            CommonEvent::InjectionDetected { .. } => "injection_detected",
            CommonEvent::AgentCall(_) => "agent_call",
            CommonEvent::BudgetExhausted { .. } => "budget_exhausted",
            CommonEvent::DailyLimitReached { .. } => "daily_limit_reached",
            CommonEvent::BudgetPaused { .. } => "budget_paused",
            CommonEvent::BudgetGranted { .. } => "budget_granted",
            CommonEvent::BudgetClosed { .. } => "budget_closed",
            CommonEvent::ForkedFrom { .. } => "forked_from",
            CommonEvent::Resumed { .. } => "resumed",
            CommonEvent::Interrupted { .. } => "interrupted",
        }
    }

    /// The round the event belongs to; `None` for debate-level events.
    pub fn round(&self) -> Option<u16> {
        match self {
            CommonEvent::Credibility(_) => None,
            CommonEvent::RoundStarted { round, .. } => Some(*round),
            CommonEvent::Thinking { round, .. } => Some(*round),
            CommonEvent::AgentFailed { round, .. } => Some(*round),
            CommonEvent::InjectionDetected { round, .. } => (*round > 0).then_some(*round),
            CommonEvent::AgentCall(c) => Some(c.round),
            CommonEvent::BudgetExhausted { round, .. } => Some(*round),
            CommonEvent::DailyLimitReached { .. } => None,
            CommonEvent::BudgetPaused { .. } => None,
            CommonEvent::BudgetGranted { .. } => None,
            CommonEvent::BudgetClosed { .. } => None,
            CommonEvent::ForkedFrom { .. } => None,
            CommonEvent::Resumed { .. } => None,
            CommonEvent::Interrupted { .. } => None,
        }
    }
}

/// The remote agents of a debate, as recorded in `debate_started`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackendInfo {
    /// `openai` or `http`.
    pub kind: String,
    /// The model asked (`openai`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Tokens the debate may use before it stops (`budget_exhausted`).
    pub token_budget: u64,
    /// The remote agent service's host and port (`http`), part of its agents' identities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundInfo {
    pub round: u16,
    pub name: String,
    pub expected: u32,
}

/// AG-2: one remote agent call: retries, wall time and the tokens the endpoint reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentCall {
    pub agent: String,
    pub round: u16,
    /// `openai` or `http`.
    pub backend: String,
    /// 1 when the first try answered.
    pub attempts: u32,
    /// Wall time of the whole call, retries and backoff included.
    pub latency_ms: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Whether a usable reply came back (a parse failure or error is logged as `agent_failed`).
    pub ok: bool,
    /// The endpoint reported no usage; the tokens are estimated (4 characters a token).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
    /// LM-2: milliseconds spent waiting as the endpoint asked (`429`/`503` with `Retry-After`)
    /// before the attempt that answered.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retry_after_ms: u64,
    /// LM-3: the reply was streamed to the viewers as it was written.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub streamed: bool,
    /// LM-4: the call was in flight when a judge stopped the debate, or when its server shut
    /// down and the drain ended, and was cancelled.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    /// RS-5: the call was asked again after the debate resumed from its log: it had been asked
    /// before the server stopped, and its reply was never logged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reasked: bool,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &u64) -> bool {
    *n == 0
}
