//! The append-only debate log (SV-1): every step of a debate is one `Event` with a per-debate
//! sequence number. The server appends and streams them; the reducer folds them into view state.

use serde::{Deserialize, Serialize};

use crate::collapse::{WcEvent, WcParams};
use crate::credibility::ContextTags;
use crate::escalation::{EsEvent, EsParams};
use crate::outcome::Outcome;
use crate::reconcile::{RcConfig, RcEvent};
use crate::round_robin::{RrEvent, RrParams};
use crate::s4::S4Event;
pub use crate::shared::{AgentCall, BackendInfo, CommonEvent, RoundInfo};
pub use crate::short_str::{HexHash, Stamp};
use crate::types::AgentSpec;

mod decode;
mod entries;
mod read;

pub use entries::{entries, entry, Logs};

#[cfg(feature = "openapi")]
mod openapi;

/// One logged step. On the wire: `{"seq": 3, "ts": "...", "type": "position", ...payload}`; read
/// in one pass by `read.rs`.
#[derive(Clone, Debug, PartialEq, Serialize)]
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

/// What a step of the log is: what any debate logs, the debate's start and decision, or one
/// protocol's own event. Each protocol owns its events (`S4Event` in `s4/`, …); this envelope only
/// wraps them, one variant per protocol, and the wire does not show the wrapping: every event is
/// `{"type": …, …}` with its members beside the tag, as before protocols owned their events.
///
/// Every event is moved several times between a machine and the log, so the large, rare payloads
/// (a debate's parameters, WC's cards, ES's messages and rulings, RC's beliefs) are boxed: a move
/// copies at most 176 bytes.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum EventBody {
    Common(CommonEvent),
    Debate(DebateEvent),
    S4(S4Event),
    RoundRobin(RrEvent),
    Collapse(WcEvent),
    Escalation(EsEvent),
    Reconcile(RcEvent),
}

/// The debate's start and its decision, whose payloads are each protocol's own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DebateEvent {
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
    /// The result (S4-6/S4-7, RR-4, WC-6). Always the last event of a finished debate.
    Decision(Outcome),
}

impl DebateEvent {
    pub const TYPES: &'static [&'static str] = &["debate_started", "decision"];

    pub fn kind(&self) -> &'static str {
        match self {
            DebateEvent::DebateStarted { .. } => "debate_started",
            DebateEvent::Decision(_) => "decision",
        }
    }
}

impl EventBody {
    /// The `type` tag as it appears on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            EventBody::Common(e) => e.kind(),
            EventBody::Debate(e) => e.kind(),
            EventBody::S4(e) => e.kind(),
            EventBody::RoundRobin(e) => e.kind(),
            EventBody::Collapse(e) => e.kind(),
            EventBody::Escalation(e) => e.kind(),
            EventBody::Reconcile(e) => e.kind(),
        }
    }

    /// The round an event belongs to; `None` for debate-level events.
    pub fn round(&self) -> Option<u16> {
        match self {
            EventBody::Common(e) => e.round(),
            EventBody::Debate(_) => None,
            EventBody::S4(e) => e.round(),
            EventBody::RoundRobin(e) => e.round(),
            EventBody::Collapse(e) => e.round(),
            EventBody::Escalation(e) => e.round(),
            EventBody::Reconcile(e) => e.round(),
        }
    }

    /// After a terminal event nothing more is appended to the debate.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            EventBody::Debate(DebateEvent::Decision(_))
                | EventBody::Common(CommonEvent::Interrupted { .. })
        )
    }

    /// ES-7: a judge's re-debate, which sends a decided pipeline back to its agents: the log
    /// runs on past its decision, and the debate is `running` again until its next one.
    pub fn reopens(&self) -> bool {
        matches!(self, EventBody::Escalation(e) if e.reopens())
    }
}

/// Each wrapped event into the log's body.
macro_rules! into_body {
    ($($event:ident => $variant:ident),*) => {$(
        impl From<$event> for EventBody {
            fn from(e: $event) -> Self {
                EventBody::$variant(e)
            }
        }
    )*};
}

into_body!(
    CommonEvent => Common,
    DebateEvent => Debate,
    S4Event => S4,
    RrEvent => RoundRobin,
    WcEvent => Collapse,
    EsEvent => Escalation,
    RcEvent => Reconcile
);

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
