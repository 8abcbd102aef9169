//! The append-only debate log (SV-1): every step of a debate is one `Event` with a per-debate
//! sequence number. The server appends and streams them; the reducer folds them into view state.

use serde::{Deserialize, Serialize};

use super::s4::{S4Outcome, Vote};
use super::types::{AgentSpec, Decision, Position};

/// One logged step. On the wire: `{"seq": 3, "ts": "...", "type": "position", ...payload}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// 1-based, gap-free within a debate. `Last-Event-ID: n` resumes after `n`.
    pub seq: u64,
    /// RFC 3339 UTC timestamp stamped by the server when the event was appended.
    pub ts: String,
    #[serde(flatten)]
    pub body: EventBody,
    /// SV-2: the previous event's `hash` (64 zeros for the first event).
    #[serde(default)]
    pub prev_hash: String,
    /// SV-2: `sha256(prev_hash ‖ canonical JSON of this event without the hash fields)`.
    #[serde(default)]
    pub hash: String,
}

impl Event {
    /// An unsealed event; [`super::chain::seal`] adds the hashes.
    pub fn new(seq: u64, ts: String, body: EventBody) -> Event {
        Event {
            seq,
            ts,
            body,
            prev_hash: String::new(),
            hash: String::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventBody {
    DebateStarted {
        protocol: String,
        query: String,
        seed: u64,
        agents: Vec<AgentSpec>,
        rounds: Vec<RoundInfo>,
    },
    RoundStarted {
        round: u8,
        name: String,
        /// How many agent messages this round will hold.
        expected: u32,
    },
    /// An agent has been asked and is working on its reply.
    Thinking { agent: String, round: u8 },
    /// Round 1: an agent's independent analysis (S4-2).
    Position {
        agent: String,
        round: u8,
        #[serde(flatten)]
        position: Position,
    },
    /// Round 2: one of the N·(N−1) cross-challenges (S4-3).
    Challenge {
        round: u8,
        from: String,
        to: String,
        text: String,
        /// The decision the challenger argues the challenged agent should reach.
        argues_for: Decision,
    },
    /// Round 3: an agent's answer to the challenges aimed at it (S4-4).
    Revision {
        agent: String,
        round: u8,
        before: Position,
        after: Position,
        changed: bool,
    },
    /// Round 4: the locked vote (S4-5).
    Vote {
        round: u8,
        #[serde(flatten)]
        vote: Vote,
    },
    /// An agent failed or answered something unusable; what the protocol did instead (S4-8).
    AgentFailed {
        agent: String,
        round: u8,
        error: String,
        substitute: String,
    },
    /// The aggregated result (S4-6, S4-7). Always the last event of a finished debate.
    Decision(S4Outcome),
    /// The server stopped before the debate finished; the log ends here (SV-5).
    Interrupted { reason: String },
}

impl EventBody {
    /// The `type` tag as it appears on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            EventBody::DebateStarted { .. } => "debate_started",
            EventBody::RoundStarted { .. } => "round_started",
            EventBody::Thinking { .. } => "thinking",
            EventBody::Position { .. } => "position",
            EventBody::Challenge { .. } => "challenge",
            EventBody::Revision { .. } => "revision",
            EventBody::Vote { .. } => "vote",
            EventBody::AgentFailed { .. } => "agent_failed",
            EventBody::Decision(_) => "decision",
            EventBody::Interrupted { .. } => "interrupted",
        }
    }

    /// The round an event belongs to; `None` for debate-level events.
    pub fn round(&self) -> Option<u8> {
        match self {
            EventBody::RoundStarted { round, .. }
            | EventBody::Thinking { round, .. }
            | EventBody::Position { round, .. }
            | EventBody::Challenge { round, .. }
            | EventBody::Revision { round, .. }
            | EventBody::Vote { round, .. }
            | EventBody::AgentFailed { round, .. } => Some(*round),
            _ => None,
        }
    }

    /// After a terminal event nothing more is appended to the debate.
    pub fn is_terminal(&self) -> bool {
        matches!(self, EventBody::Decision(_) | EventBody::Interrupted { .. })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundInfo {
    pub round: u8,
    pub name: String,
    pub expected: u32,
}
