//! WC-2…WC-7 configuration. Every weight and threshold is data: logged in `debate_started`, shown
//! in the UI, and changed by the judge's what-if panel.

use serde::{Deserialize, Serialize};

use crate::types::Role;

/// WC-2 score weights (the spec's resolution of the seed's signs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    pub w_e: f64,
    pub w_r: f64,
    pub w_v: f64,
    pub w_k: f64,
    pub w_gamma: f64,
    pub w_i: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            w_e: 10.0,
            w_r: 8.0,
            w_v: 3.0,
            w_k: 2.0,
            w_gamma: 1.0,
            w_i: 10.0,
        }
    }
}

/// WC-5: a panel seat and its weight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PanelSeat {
    pub role: Role,
    pub weight: f64,
}

/// WC-5: the seven evaluators and their weights (total 12.7).
pub fn default_panel() -> Vec<PanelSeat> {
    [
        (Role::Minimalist, 1.5),
        (Role::Skeptic, 2.0),
        (Role::DomainExpert, 1.8),
        (Role::Verifier, 2.5),
        (Role::CollectiveIntelligence, 1.3),
        (Role::RiskCompliance, 2.2),
        (Role::UserValue, 1.4),
    ]
    .into_iter()
    .map(|(role, weight)| PanelSeat { role, weight })
    .collect()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WcParams {
    pub weights: Weights,
    /// WC-4: accept directly when the top S exceeds this (and the verifier approves).
    pub accept_threshold: f64,
    /// WC-4: top two within this → consensus panel.
    pub gap_threshold: f64,
    /// WC-4: reflexion loops before the panel.
    pub max_reflexions: u32,
    pub panel: Vec<PanelSeat>,
    /// WC-6: C(top) ≥ this → CONSENSUS_REACHED.
    pub consensus_threshold: f64,
    /// WC-6: C(top) below this → SAFE_FALLBACK.
    pub fallback_threshold: f64,
    /// WC-6: C(top) below this → escalate to a human.
    pub escalate_threshold: f64,
    /// WC-6: C gap of the top two below this → HYBRID_SYNTHESIZED.
    pub hybrid_gap: f64,
    /// WC-3: a critical risk with residual above this is a gate.
    pub critical_residual: f64,
    /// WC-3: reversibility below this needs a human.
    pub irreversible_below: f64,
    /// WC-7: mean evidence quality below this triggers reflexion.
    pub evidence_min: f64,
    /// WC-7: a skeptic score (0–10) below this triggers reflexion.
    pub skeptic_min: f64,
    /// WC-7: cost above twice this triggers reflexion; `None` uses the median card cost.
    pub cost_estimate: Option<u32>,
    /// WC-7: expert disagreement when the coefficient of variation of the experts' scores exceeds
    /// this (0.30 = "variance > 30 %").
    pub expert_disagreement: f64,
}

impl Default for WcParams {
    fn default() -> Self {
        WcParams {
            weights: Weights::default(),
            accept_threshold: 6.0,
            gap_threshold: 2.0,
            max_reflexions: 3,
            panel: default_panel(),
            consensus_threshold: 0.70,
            fallback_threshold: 0.60,
            escalate_threshold: 0.50,
            hybrid_gap: 0.10,
            critical_residual: 0.3,
            irreversible_below: 0.3,
            evidence_min: 0.6,
            skeptic_min: 3.0,
            cost_estimate: None,
            expert_disagreement: 0.30,
        }
    }
}
