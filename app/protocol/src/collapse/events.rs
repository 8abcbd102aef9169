//! What only a collapse debate logs (WC-1…WC-7, ES-12). The log's envelope wraps it; on the wire
//! each is one event, `{"type": "card_submitted", …}`.

use serde::{Deserialize, Serialize};

use super::{
    CardSubmitted, CardVerified, Converged, Critiqued, GatesChecked, HumanDecision,
    HybridSynthesized, PanelEvaluated, PanelScored, ReflexionStarted,
};
use super::{WcOutcome, WcParams};
use crate::shared::Entry;

/// One event of this protocol's log as it reads it: its own events, its parameters and its outcome.
pub type WcEntry<'a> = Entry<'a, WcEvent, WcParams, WcOutcome>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WcEvent {
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
    /// ES-12: a judge's decision for a WC debate escalated to a human; its `decision` follows.
    HumanDecision(HumanDecision),
}

impl WcEvent {
    /// Every `type` this protocol's events have on the wire.
    pub const TYPES: &'static [&'static str] = &[
        "card_submitted",
        "card_verified",
        "gates_checked",
        "converged",
        "critiqued",
        "reflexion_started",
        "panel_evaluated",
        "panel_scored",
        "hybrid_synthesized",
        "human_decision",
    ];

    /// The `type` tag as it appears on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            WcEvent::CardSubmitted(_) => "card_submitted",
            WcEvent::CardVerified(_) => "card_verified",
            WcEvent::GatesChecked(_) => "gates_checked",
            WcEvent::Converged(_) => "converged",
            WcEvent::Critiqued(_) => "critiqued",
            WcEvent::ReflexionStarted(_) => "reflexion_started",
            WcEvent::PanelEvaluated(_) => "panel_evaluated",
            WcEvent::PanelScored(_) => "panel_scored",
            WcEvent::HybridSynthesized(_) => "hybrid_synthesized",
            WcEvent::HumanDecision(_) => "human_decision",
        }
    }

    /// The round the event belongs to; `None` for debate-level events.
    pub fn round(&self) -> Option<u16> {
        match self {
            WcEvent::CardSubmitted(c) => Some(c.round),
            WcEvent::CardVerified(c) => Some(c.round),
            WcEvent::GatesChecked(c) => Some(c.round),
            WcEvent::Converged(c) => Some(c.round),
            WcEvent::Critiqued(c) => Some(c.round),
            WcEvent::ReflexionStarted(c) => Some(c.round),
            WcEvent::PanelEvaluated(c) => Some(c.round),
            WcEvent::PanelScored(c) => Some(c.round),
            WcEvent::HybridSynthesized(c) => Some(c.round),
            WcEvent::HumanDecision(_) => None,
        }
    }
}
