//! WC's part of the live view (SV-1): each position as it stands (score history, verification,
//! gates), the convergence and reflexion record, the panel, and a card for each message.

use serde::{Deserialize, Serialize};

use super::params::WcParams;
use super::types::{
    CardSubmitted, CardVerified, Converged, Critiqued, GatesChecked, HybridSynthesized,
    PanelEvaluated, PanelScored, ReflexionStarted,
};
use crate::collapse::WcEvent;
use crate::columns::{Card, Tone};

/// One position as it stands: its latest card, score, verification and gates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PositionState {
    pub latest: CardSubmitted,
    /// S after each revision, oldest first.
    pub history: Vec<f64>,
    pub verified: Option<CardVerified>,
    pub gates: Option<GatesChecked>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WcState {
    pub params: Option<WcParams>,
    pub positions: Vec<PositionState>,
    pub convergences: Vec<Converged>,
    pub critiques: Vec<Critiqued>,
    pub reflexions: Vec<ReflexionStarted>,
    /// The first panel's evaluations, then (if any) the hybrid's re-score.
    pub panel: Vec<PanelEvaluated>,
    pub hybrid_panel: Vec<PanelEvaluated>,
    pub panel_scores: Vec<PanelScored>,
    pub hybrid: Option<HybridSynthesized>,
}

impl WcState {
    pub fn position(&mut self, id: &str) -> Option<&mut PositionState> {
        self.positions.iter_mut().find(|p| p.latest.position == id)
    }
}

impl WcState {
    /// Folds in a WC event; returns the card it puts in its agent's column, if any.
    pub fn apply(&mut self, seq: u64, body: &WcEvent) -> Option<Card> {
        match body {
            WcEvent::CardSubmitted(c) => {
                self.submitted(c);
                let title = if c.revision == 0 {
                    format!("Position card: S = {:.2}", c.score.total)
                } else {
                    format!("Revision {}: S = {:.2}", c.revision, c.score.total)
                };
                let plan = c
                    .card
                    .plan
                    .first()
                    .map(|p| p.action.clone())
                    .unwrap_or_default();
                Some(Card::labelled(
                    seq,
                    c.round,
                    &c.position,
                    Tone::Neutral,
                    title,
                    None,
                    plan,
                ))
            }
            WcEvent::CardVerified(v) => {
                if let Some(p) = self.position(&v.position) {
                    p.verified = Some(v.clone());
                }
                let (tone, label) = if v.approve {
                    (Tone::Agreement, "approved")
                } else {
                    (Tone::Challenge, "rejected")
                };
                Some(Card::labelled(
                    seq,
                    v.round,
                    &v.agent,
                    tone,
                    format!("Verifies {}", v.position),
                    Some(label.to_owned()),
                    v.notes.clone(),
                ))
            }
            WcEvent::GatesChecked(g) => {
                if let Some(p) = self.position(&g.position) {
                    p.gates = Some(g.clone());
                }
                None
            }
            WcEvent::Converged(c) => {
                self.convergences.push(c.clone());
                None
            }
            WcEvent::Critiqued(c) => {
                self.critiques.push(c.clone());
                Some(Card::labelled(
                    seq,
                    c.round,
                    &c.agent,
                    Tone::Challenge,
                    format!("Critiques {}: {:.1}/10", c.position, c.score),
                    None,
                    c.concerns.join(" · "),
                ))
            }
            WcEvent::ReflexionStarted(r) => {
                self.reflexions.push(r.clone());
                None
            }
            WcEvent::PanelEvaluated(p) => {
                if self.hybrid.is_some() {
                    self.hybrid_panel.push(p.clone());
                } else {
                    self.panel.push(p.clone());
                }
                Some(Card::labelled(
                    seq,
                    p.round,
                    &p.agent,
                    Tone::Neutral,
                    format!("Recommends {}", p.evaluation.recommendation),
                    None,
                    p.evaluation.concerns.join(" · "),
                ))
            }
            WcEvent::PanelScored(p) => {
                self.panel_scores.push(p.clone());
                None
            }
            WcEvent::HybridSynthesized(h) => {
                self.hybrid = Some((**h).clone());
                None
            }
            _ => None,
        }
    }

    /// A new card for a position: its first, or a revision that resets its checks.
    fn submitted(&mut self, c: &CardSubmitted) {
        match self.position(&c.position) {
            Some(p) => {
                p.history.push(c.score.total);
                p.latest = c.clone();
                p.verified = None;
                p.gates = None;
            }
            None => self.positions.push(PositionState {
                latest: c.clone(),
                history: vec![c.score.total],
                verified: None,
                gates: None,
            }),
        }
    }
}
