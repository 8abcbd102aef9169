//! WC-5 and WC-6 as pure functions: the panel's weighted consensus, its verdict, and the hybrid
//! of the top two positions (re-exported by `rules`).

use super::card::{PositionCard, Severity};
use super::params::WcParams;
use super::rules::lt;
use super::types::PanelEvaluation;
use super::types::Ranked;

/// WC-5: `C(p) = Σ wᵢ·scoreᵢ(p)·confᵢ / Σ wᵢ·confᵢ` over the seats that scored `p`; highest first.
pub fn consensus(evaluations: &[(f64, &PanelEvaluation)], positions: &[String]) -> Vec<Ranked> {
    let mut out: Vec<Ranked> = positions
        .iter()
        .map(|pos| {
            let (mut num, mut den) = (0.0, 0.0);
            for (w, e) in evaluations {
                if let Some(s) = e.scores.iter().find(|s| &s.position == pos) {
                    num += w * s.score * e.confidence;
                    den += w * e.confidence;
                }
            }
            let c = if den > 0.0 { num / den } else { 0.0 };
            Ranked {
                position: pos.clone(),
                score: c,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.position.cmp(&b.position))
    });
    out
}

/// What WC-6 decides from the panel's consensus scores.
#[derive(Clone, Debug, PartialEq)]
pub enum PanelVerdict {
    Consensus(String),
    Escalate,
    Fallback(String),
    Hybrid(String, String),
}

/// WC-6, in the spec's resolved order. `safest` is the candidate with the lowest R.
pub fn panel_verdict(c: &[Ranked], safest: &str, p: &WcParams) -> (PanelVerdict, String) {
    let Some(top) = c.first() else {
        return (
            PanelVerdict::Escalate,
            "the panel scored no position: escalate to a human".into(),
        );
    };
    let t = top.score;
    if !lt(t, p.consensus_threshold) {
        return (
            PanelVerdict::Consensus(top.position.clone()),
            format!(
                "C({})={t:.3} ≥ {}: CONSENSUS_REACHED",
                top.position, p.consensus_threshold
            ),
        );
    }
    if lt(t, p.escalate_threshold) {
        return (
            PanelVerdict::Escalate,
            format!(
                "C({})={t:.3} < {}: no agreement, escalate to a human with the panel's analysis",
                top.position, p.escalate_threshold
            ),
        );
    }
    if lt(t, p.fallback_threshold) {
        return (
            PanelVerdict::Fallback(safest.to_owned()),
            format!("C({})={t:.3} < {}: weak agreement, SAFE_FALLBACK to the lowest-risk position {safest}", top.position, p.fallback_threshold),
        );
    }
    if let Some(second) = c.get(1) {
        let gap = t - second.score;
        if lt(gap, p.hybrid_gap) {
            return (
                PanelVerdict::Hybrid(top.position.clone(), second.position.clone()),
                format!(
                    "C({})={t:.3} and C({})={:.3} differ by {gap:.3} < {}: HYBRID_SYNTHESIZED",
                    top.position, second.position, second.score, p.hybrid_gap
                ),
            );
        }
        return (
            PanelVerdict::Fallback(safest.to_owned()),
            format!(
                "C({})={t:.3} leads by {gap:.3} ≥ {} but < {}: SAFE_FALLBACK to {safest}",
                top.position, p.hybrid_gap, p.consensus_threshold
            ),
        );
    }
    (
        PanelVerdict::Fallback(safest.to_owned()),
        format!(
            "C({})={t:.3} < {} with no second position: SAFE_FALLBACK to {safest}",
            top.position, p.consensus_threshold
        ),
    )
}

/// WC-6: the hybrid of the top two: A's approach first, B's where it adds; the cautious number
/// of each kind (lowest confidence and reversibility, highest cost).
pub fn hybrid(a: &PositionCard, b: &PositionCard) -> PositionCard {
    let mut card = a.clone();
    card.agent = "hybrid".into();
    for c in &b.claims {
        if !card.claims.contains(c) {
            card.claims.push(c.clone());
        }
    }
    for s in &b.plan {
        if !card.plan.iter().any(|x| x.action == s.action) {
            card.plan.push(s.clone());
        }
    }
    for e in &b.evidence {
        if !card.evidence.iter().any(|x| x.pointer == e.pointer) {
            card.evidence.push(e.clone());
        }
    }
    for r in &b.risks {
        match card
            .risks
            .iter_mut()
            .find(|x| x.description == r.description)
        {
            Some(x) if r.residual_risk < x.residual_risk => *x = r.clone(),
            Some(_) => {}
            None => card.risks.push(r.clone()),
        }
    }
    for v in &b.invariant_violations {
        if !card
            .invariant_violations
            .iter()
            .any(|x| x.invariant_id == v.invariant_id)
        {
            card.invariant_violations.push(v.clone());
        }
    }
    card.confidence = a.confidence.min(b.confidence);
    card.cost = a.cost.max(b.cost);
    card.reversibility = a.reversibility.min(b.reversibility);
    card
}

/// WC-6: "must not add a new critical risk": a critical risk neither parent has.
pub fn adds_critical_risk(h: &PositionCard, a: &PositionCard, b: &PositionCard) -> bool {
    h.risks
        .iter()
        .filter(|r| r.severity == Severity::Critical)
        .any(|r| {
            ![a, b].iter().any(|p| {
                p.risks
                    .iter()
                    .any(|x| x.severity == Severity::Critical && x.description == r.description)
            })
        })
}
