//! The append-only debate log (SV-1): every step of a debate is one `Event` with a per-debate
//! sequence number. The server appends and streams them; the reducer folds them into view state.

use serde::{Deserialize, Serialize};

use crate::collapse::WcParams;
use crate::collapse::{
    CardSubmitted, CardVerified, Converged, Critiqued, GatesChecked, HumanDecision,
    HybridSynthesized, PanelEvaluated, PanelScored, ReflexionStarted,
};
use crate::credibility::{ContextTags, CredibilitySnapshot};
use crate::escalation::{
    AnalysisRun, EsParams, Escalated, ImpactRun, JudgeAssigned, JudgeRuling, Resolved,
};
use crate::escalation::{Challenge as EsChallenge, Message};
use crate::outcome::Outcome;
use crate::reconcile::{Belief, Embedded, RcConfig, Topic};
use crate::round_robin::{ConsensusCheck, RrParams, RrPosition, TriggerCheck};
use crate::s4::Vote;
pub use crate::short_str::{HexHash, Stamp};
use crate::types::{AgentSpec, Decision, Position};

#[cfg(feature = "openapi")]
mod openapi;

/// One logged step. On the wire: `{"seq": 3, "ts": "...", "type": "position", ...payload}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// 1-based, gap-free within a debate. `Last-Event-ID: n` resumes after `n`.
    pub seq: u64,
    /// RFC 3339 UTC timestamp stamped by the server when the event was appended.
    pub ts: Stamp,
    #[serde(flatten)]
    pub body: EventBody,
    /// SV-2: the previous event's `hash` (64 zeros for the first event).
    #[serde(default)]
    pub prev_hash: HexHash,
    /// SV-2: `sha256(prev_hash ‖ canonical JSON of this event without the hash fields)`.
    #[serde(default)]
    pub hash: HexHash,
}

impl Event {
    /// An unsealed event; [`crate::chain::seal`] adds the hashes.
    pub fn new(seq: u64, ts: Stamp, body: EventBody) -> Event {
        Event {
            seq,
            ts,
            body,
            prev_hash: HexHash::new(),
            hash: HexHash::new(),
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

/// Every event is moved several times between a machine and the log, so the large,
/// rare payloads (a debate's parameters, WC's cards, ES's messages and rulings, RC's beliefs) are
/// boxed: a move copies 176 bytes, not 504.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventBody {
    DebateStarted {
        protocol: String,
        query: String,
        seed: u64,
        agents: Vec<AgentSpec>,
        rounds: Vec<RoundInfo>,
        /// RR and WC parameters, so the decision can be recomputed from the log. Absent for S4,
        /// which keeps S4 logs written before it byte-identical.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        config: Option<Box<Config>>,
        /// AG-1/AG-2: who answers (a remote backend) and the token budget the runner enforces,
        /// so a judge can check a `budget_exhausted` claim. Absent for the builtin agents.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        backend: Option<Box<BackendInfo>>,
        /// CR-1: the context the request carried (regime, sector, …), which the credibility
        /// snapshot was computed for. Absent when the request gave none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context: Option<Box<ContextTags>>,
    },
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
    /// Round 1: an agent's independent analysis (S4-2).
    Position {
        agent: String,
        round: u16,
        #[serde(flatten)]
        position: Position,
    },
    /// Round 2: one of the N·(N−1) cross-challenges (S4-3).
    Challenge {
        round: u16,
        from: String,
        to: String,
        text: String,
        /// The decision the challenger argues the challenged agent should reach.
        argues_for: Decision,
    },
    /// Round 3: an agent's answer to the challenges aimed at it (S4-4).
    Revision {
        agent: String,
        round: u16,
        before: Position,
        after: Position,
        changed: bool,
    },
    /// Round 4: the locked vote (S4-5).
    Vote {
        round: u16,
        #[serde(flatten)]
        vote: Vote,
    },
    /// An agent failed or answered something unusable; what the protocol did instead (S4-8).
    AgentFailed {
        agent: String,
        round: u16,
        error: String,
        substitute: String,
    },
    /// RR-5: whether the query calls for a debate, and why.
    TriggerChecked(TriggerCheck),
    /// RR-1: one agent's turn.
    Turn {
        agent: String,
        round: u16,
        /// The agent's 1-based turn number.
        turn: u32,
        #[serde(flatten)]
        position: RrPosition,
    },
    /// RR-2: the consensus check after a round.
    ConsensusChecked(ConsensusCheck),
    /// WC-1/WC-2: a position card and its score.
    CardSubmitted(Box<CardSubmitted>),
    /// WC-3 rule 1.
    CardVerified(CardVerified),
    /// WC-3: the gates for one position.
    GatesChecked(GatesChecked),
    /// WC-4: the ranking and the next step.
    Converged(Converged),
    /// WC-4/WC-7: the skeptic's critique before a reflexion.
    Critiqued(Critiqued),
    /// WC-4/WC-7: a reflexion loop starts.
    ReflexionStarted(ReflexionStarted),
    /// WC-5: one panel member's scores.
    PanelEvaluated(PanelEvaluated),
    /// WC-5/WC-6: the weighted consensus scores.
    PanelScored(PanelScored),
    /// WC-6: the hybrid of the top two.
    HybridSynthesized(Box<HybridSynthesized>),
    /// ES-1: a typed message between the pipeline's agents.
    Message {
        round: u16,
        #[serde(flatten)]
        message: Box<Message>,
    },
    /// ES-2: a disagreement on an assumption becomes a challenge at level 1.
    ChallengeRaised {
        at: u64,
        #[serde(flatten)]
        challenge: Box<EsChallenge>,
    },
    /// ES-3…ES-6: a challenge climbed to `level`.
    Escalated(Escalated),
    /// ES-5: the desk gave a challenge to a judge.
    JudgeAssigned(JudgeAssigned),
    /// ES-5/ES-7: a judge's ruling or gate review, naming the judge.
    JudgeRuling(JudgeRuling),
    /// ES-9: a challenge resolved for good.
    ChallengeResolved(Box<Resolved>),
    /// ES-6: the most cautious position applied provisionally; open for review at the gate.
    ProvisionalDecision(Box<Resolved>),
    /// ES-8: the analyses computed from the pipeline's assumptions.
    Analysis(AnalysisRun),
    /// ES-8: a gate override's downstream impact and re-run plan, before the re-runs.
    Impact(Box<ImpactRun>),
    /// ES-12: a judge's decision for a WC debate escalated to a human; its `decision` follows.
    HumanDecision(HumanDecision),
    /// RC-1: the embeddings the topics are formed from (one integer vector per observation).
    Embedded(Embedded),
    /// RC-1: a topic formed, with its members and why each joined.
    Topic(Topic),
    /// RC-3/RC-5: a topic's consolidated belief (or its question for a human), with the
    /// observations, weights and reasoning behind it.
    Belief(Box<Belief>),
    /// S4-8: a prompt-injection pattern in the query (`source` "query", round 0) or in an
    /// agent's reply (`source` the agent). Recorded and shown; the debate goes on.
    InjectionDetected {
        source: String,
        round: u16,
        pattern: String,
        excerpt: String,
    },
    /// S4-8: an agent claimed more than 95 % confidence on a complex query; the logged position
    /// carries `clamped_to`.
    ConfidenceClamped {
        agent: String,
        round: u16,
        claimed: u8,
        clamped_to: u8,
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
        #[serde(default, skip_serializing_if = "crate::run::ForkChanges::is_empty")]
        changes: crate::run::ForkChanges,
    },
    /// RS-1: the server running the debate stopped after event `after_seq`; process `process`
    /// rebuilt the machine from the log and the debate goes on. Calls asked and not answered
    /// before it are asked again (their `agent_call` says `reasked`).
    Resumed {
        after_seq: u64,
        process: String,
        reason: String,
    },
    /// The result (S4-6/S4-7, RR-4, WC-6). Always the last event of a finished debate.
    Decision(Outcome),
    /// The debate stopped before it finished; the log ends here (SV-5): its server stopped, or
    /// a judge stopped it (`by` names the judge, SV-7).
    Interrupted {
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
}

impl EventBody {
    /// The `type` tag as it appears on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            EventBody::DebateStarted { .. } => "debate_started",
            EventBody::Credibility(_) => "credibility",
            EventBody::RoundStarted { .. } => "round_started",
            EventBody::Thinking { .. } => "thinking",
            EventBody::Position { .. } => "position",
            EventBody::Challenge { .. } => "challenge",
            EventBody::Revision { .. } => "revision",
            EventBody::Vote { .. } => "vote",
            EventBody::AgentFailed { .. } => "agent_failed",
            EventBody::TriggerChecked(_) => "trigger_checked",
            EventBody::Turn { .. } => "turn",
            EventBody::ConsensusChecked(_) => "consensus_checked",
            EventBody::CardSubmitted(_) => "card_submitted",
            EventBody::CardVerified(_) => "card_verified",
            EventBody::GatesChecked(_) => "gates_checked",
            EventBody::Converged(_) => "converged",
            EventBody::Critiqued(_) => "critiqued",
            EventBody::ReflexionStarted(_) => "reflexion_started",
            EventBody::PanelEvaluated(_) => "panel_evaluated",
            EventBody::PanelScored(_) => "panel_scored",
            EventBody::HybridSynthesized(_) => "hybrid_synthesized",
            EventBody::Message { .. } => "message",
            EventBody::ChallengeRaised { .. } => "challenge_raised",
            EventBody::Escalated(_) => "escalated",
            EventBody::JudgeAssigned(_) => "judge_assigned",
            EventBody::JudgeRuling(_) => "judge_ruling",
            EventBody::ChallengeResolved(_) => "challenge_resolved",
            EventBody::ProvisionalDecision(_) => "provisional_decision",
            EventBody::Analysis(_) => "analysis",
            EventBody::Impact(_) => "impact",
            EventBody::HumanDecision(_) => "human_decision",
            EventBody::Embedded(_) => "embedded",
            EventBody::Topic(_) => "topic",
            EventBody::Belief(_) => "belief",
            EventBody::InjectionDetected { .. } => "injection_detected",
            EventBody::ConfidenceClamped { .. } => "confidence_clamped",
            EventBody::AgentCall(_) => "agent_call",
            EventBody::BudgetExhausted { .. } => "budget_exhausted",
            EventBody::DailyLimitReached { .. } => "daily_limit_reached",
            EventBody::BudgetPaused { .. } => "budget_paused",
            EventBody::BudgetGranted { .. } => "budget_granted",
            EventBody::BudgetClosed { .. } => "budget_closed",
            EventBody::Resumed { .. } => "resumed",
            EventBody::ForkedFrom { .. } => "forked_from",
            EventBody::Decision(_) => "decision",
            EventBody::Interrupted { .. } => "interrupted",
        }
    }

    /// The round an event belongs to; `None` for debate-level events.
    pub fn round(&self) -> Option<u16> {
        match self {
            EventBody::RoundStarted { round, .. }
            | EventBody::Thinking { round, .. }
            | EventBody::Position { round, .. }
            | EventBody::Challenge { round, .. }
            | EventBody::Revision { round, .. }
            | EventBody::Vote { round, .. }
            | EventBody::AgentFailed { round, .. }
            | EventBody::Turn { round, .. }
            | EventBody::ConfidenceClamped { round, .. }
            | EventBody::BudgetExhausted { round, .. }
            | EventBody::Message { round, .. } => Some(*round),
            EventBody::InjectionDetected { round, .. } => (*round > 0).then_some(*round),
            EventBody::AgentCall(c) => Some(c.round),
            EventBody::ConsensusChecked(c) => Some(c.round),
            EventBody::CardSubmitted(c) => Some(c.round),
            EventBody::CardVerified(c) => Some(c.round),
            EventBody::GatesChecked(c) => Some(c.round),
            EventBody::Converged(c) => Some(c.round),
            EventBody::Critiqued(c) => Some(c.round),
            EventBody::ReflexionStarted(c) => Some(c.round),
            EventBody::PanelEvaluated(c) => Some(c.round),
            EventBody::PanelScored(c) => Some(c.round),
            EventBody::HybridSynthesized(c) => Some(c.round),
            EventBody::ChallengeRaised { .. }
            | EventBody::Escalated(_)
            | EventBody::JudgeAssigned(_)
            | EventBody::JudgeRuling(_)
            | EventBody::ChallengeResolved(_)
            | EventBody::ProvisionalDecision(_) => Some(2),
            EventBody::Embedded(_) | EventBody::Topic(_) => Some(1),
            EventBody::Belief(_) => Some(2),
            EventBody::DebateStarted { .. }
            | EventBody::Analysis(_)
            | EventBody::Impact(_)
            | EventBody::HumanDecision(_)
            | EventBody::BudgetPaused { .. }
            | EventBody::DailyLimitReached { .. }
            | EventBody::BudgetGranted { .. }
            | EventBody::BudgetClosed { .. }
            | EventBody::Credibility(_)
            | EventBody::TriggerChecked(_)
            | EventBody::Resumed { .. }
            | EventBody::ForkedFrom { .. }
            | EventBody::Decision(_)
            | EventBody::Interrupted { .. } => None,
        }
    }

    /// After a terminal event nothing more is appended to the debate.
    pub fn is_terminal(&self) -> bool {
        matches!(self, EventBody::Decision(_) | EventBody::Interrupted { .. })
    }

    /// ES-7: a judge's re-debate, which sends a decided pipeline back to its agents: the log
    /// runs on past its decision, and the debate is `running` again until its next one.
    pub fn reopens(&self) -> bool {
        matches!(
            self,
            EventBody::JudgeRuling(j)
                if matches!(j.action, crate::escalation::JudgeAction::Redebate { .. })
        )
    }
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

/// Protocol parameters logged with `debate_started`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Config {
    RoundRobin(RrParams),
    Collapse(WcParams),
    Escalation(EsParams),
    /// RC: the parameters and every observation (RC-1).
    Reconcile(RcConfig),
}

#[cfg(test)]
mod tests {
    use crate::{Event, EventBody};

    /// A variant that makes every event larger makes every debate slower (each event
    /// is moved from its machine's queue to the log several times); box a large payload instead.
    /// The envelope holds its timestamp and hashes inline (`ShortStr`): 104 bytes more to move
    /// than three `String`s, and three allocations and frees fewer per event (measured faster).
    #[test]
    fn events_stay_small_to_move() {
        assert!(
            std::mem::size_of::<EventBody>() <= 176,
            "EventBody is {} bytes",
            std::mem::size_of::<EventBody>()
        );
        assert!(
            std::mem::size_of::<Event>() <= 360,
            "Event is {} bytes",
            std::mem::size_of::<Event>()
        );
    }
}
