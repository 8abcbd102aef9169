//! WC-2…WC-8 as pure functions over cards, verifications and panel scores. The machine, the
//! replay that verifies a log and the judge's what-if panel all call these.

use super::card::{PositionCard, Severity};
pub use super::panel::{adds_critical_risk, consensus, hybrid, panel_verdict, PanelVerdict};
use super::params::{WcParams, Weights};
use super::types::{Gate, GateCheck, GateVerdict, Ranked, ScoreBreakdown, Step};

/// Decimal thresholds (6.0, 2.0, 0.70, 0.10 …) meet binary floats: comparisons allow this much
/// so that "exactly at the threshold" behaves as the spec words it (0.7 − 0.6 is 0.0999…98).
pub const EPS: f64 = 1e-9;

/// `a < b`, with a value within [`EPS`] of `b` counting as equal to it.
pub fn lt(a: f64, b: f64) -> bool {
    a < b - EPS
}

/// `a > b`, with a value within [`EPS`] of `b` counting as equal to it.
pub fn gt(a: f64, b: f64) -> bool {
    a > b + EPS
}

/// WC-2 severity weights.
pub fn severity_weight(s: Severity) -> f64 {
    match s {
        Severity::Critical => 1.0,
        Severity::High => 0.7,
        Severity::Medium => 0.4,
        Severity::Low => 0.1,
    }
}

/// Mean evidence quality, 0 with none.
pub fn evidence_quality(card: &PositionCard) -> f64 {
    if card.evidence.is_empty() {
        0.0
    } else {
        card.evidence.iter().map(|e| e.quality).sum::<f64>() / card.evidence.len() as f64
    }
}

/// R: the worst risk, severity weight × residual, 0 with none.
pub fn risk(card: &PositionCard) -> f64 {
    card.risks
        .iter()
        .map(|r| severity_weight(r.severity) * r.residual_risk)
        .fold(0.0, f64::max)
}

/// WC-2 (the spec's resolution of the seed's signs):
/// `S = w_e·E − w_r·R + w_v·v − w_k·(k/100) + w_γ·γ − w_i·I`.
pub fn score(card: &PositionCard, w: &Weights) -> ScoreBreakdown {
    let e = evidence_quality(card);
    let r = risk(card);
    let v = card.reversibility;
    let k = f64::from(card.cost) / 100.0;
    let gamma = card.confidence;
    let i = card.invariant_violations.len() as u32;
    let terms = [
        w.w_e * e,
        -(w.w_r * r),
        w.w_v * v,
        -(w.w_k * k),
        w.w_gamma * gamma,
        -(w.w_i * f64::from(i)),
    ];
    ScoreBreakdown {
        e,
        r,
        v,
        k,
        gamma,
        i,
        terms,
        total: terms.iter().sum(),
    }
}

/// WC-3: the four gates in order, each evaluated and shown; the verdict is the first that does
/// not pass. `approved` is the verifier's verdict (`None`: no verifier receipt).
pub fn gates(
    card: &PositionCard,
    approved: Option<bool>,
    p: &WcParams,
) -> (Vec<GateCheck>, GateVerdict) {
    let mut checks = Vec::with_capacity(4);
    checks.push(match approved {
        Some(true) => check(
            Gate::VerifierVeto,
            GateVerdict::Pass,
            "verifier approves".into(),
        ),
        Some(false) => check(
            Gate::VerifierVeto,
            GateVerdict::Reject,
            "verifier rejects: reflexion".into(),
        ),
        None => check(
            Gate::VerifierVeto,
            GateVerdict::Reject,
            "no verifier receipt".into(),
        ),
    });
    let v = &card.invariant_violations;
    checks.push(if v.is_empty() {
        check(
            Gate::Invariants,
            GateVerdict::Pass,
            "no invariant violated".into(),
        )
    } else if v.iter().all(|x| x.requires_approval) {
        let ids: Vec<&str> = v.iter().map(|x| x.invariant_id.as_str()).collect();
        check(
            Gate::Invariants,
            GateVerdict::Human,
            format!("{} need human approval", ids.join(", ")),
        )
    } else {
        let ids: Vec<&str> = v
            .iter()
            .filter(|x| !x.requires_approval)
            .map(|x| x.invariant_id.as_str())
            .collect();
        check(
            Gate::Invariants,
            GateVerdict::Reject,
            format!("{} violated without an approval path", ids.join(", ")),
        )
    });
    // "Reject unless mitigated and approved": the approval is a human's, so a mitigated critical
    // risk goes to a human and an unmitigated one is rejected.
    let critical = card
        .risks
        .iter()
        .filter(|r| r.severity == Severity::Critical && gt(r.residual_risk, p.critical_residual))
        .max_by(|a, b| a.residual_risk.total_cmp(&b.residual_risk));
    checks.push(match critical {
        None => check(
            Gate::CriticalRisk,
            GateVerdict::Pass,
            format!("no critical risk with residual > {}", p.critical_residual),
        ),
        Some(r) if r.mitigation.trim().is_empty() => check(
            Gate::CriticalRisk,
            GateVerdict::Reject,
            format!(
                "critical risk \"{}\" (residual {}) has no mitigation",
                r.description, r.residual_risk
            ),
        ),
        Some(r) => check(
            Gate::CriticalRisk,
            GateVerdict::Human,
            format!(
                "critical risk \"{}\" (residual {}) is mitigated; a human must approve",
                r.description, r.residual_risk
            ),
        ),
    });
    checks.push(if lt(card.reversibility, p.irreversible_below) {
        check(
            Gate::Irreversibility,
            GateVerdict::Human,
            format!(
                "reversibility {} < {}: human approval, never the panel",
                card.reversibility, p.irreversible_below
            ),
        )
    } else {
        check(
            Gate::Irreversibility,
            GateVerdict::Pass,
            format!(
                "reversibility {} ≥ {}",
                card.reversibility, p.irreversible_below
            ),
        )
    });
    let verdict = checks
        .iter()
        .map(|c| c.verdict)
        .find(|v| *v != GateVerdict::Pass)
        .unwrap_or(GateVerdict::Pass);
    (checks, verdict)
}

fn check(gate: Gate, verdict: GateVerdict, detail: String) -> GateCheck {
    GateCheck {
        gate,
        verdict,
        detail,
    }
}

/// One position as convergence sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    pub position: String,
    pub score: f64,
    pub gate: GateVerdict,
}

/// WC-4: rank the positions that passed the gates by S and choose the next step.
pub fn converge(
    standings: &[Standing],
    reflexions_done: u32,
    p: &WcParams,
) -> (Vec<Ranked>, Step, String) {
    let mut ranking: Vec<Ranked> = standings
        .iter()
        .filter(|s| s.gate == GateVerdict::Pass)
        .map(|s| Ranked {
            position: s.position.clone(),
            score: s.score,
        })
        .collect();
    ranking.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.position.cmp(&b.position))
    });
    let can_reflect = reflexions_done < p.max_reflexions;
    let Some(top) = ranking.first() else {
        let rejected = standings.iter().any(|s| s.gate == GateVerdict::Reject);
        return if rejected && can_reflect {
            (
                ranking,
                Step::Reflexion,
                "no position passed the gates; reflexion".into(),
            )
        } else {
            (
                ranking,
                Step::Human,
                "no position passed the gates: the remaining ones need a human's approval or were rejected".into(),
            )
        };
    };
    if gt(top.score, p.accept_threshold) {
        let reason = format!(
            "top {} S={:.2} > {} and verified: accept",
            top.position, top.score, p.accept_threshold
        );
        return (ranking, Step::Accept, reason);
    }
    if let Some(second) = ranking.get(1) {
        let gap = top.score - second.score;
        if lt(gap, p.gap_threshold) {
            let reason = format!(
                "top {} S={:.2} ≤ {}; {} is within {:.2} < {}: consensus panel",
                top.position, top.score, p.accept_threshold, second.position, gap, p.gap_threshold
            );
            return (ranking, Step::Panel, reason);
        }
    }
    if can_reflect {
        let reason = format!(
            "top {} S={:.2} ≤ {} and no close second: reflexion {} of {}",
            top.position,
            top.score,
            p.accept_threshold,
            reflexions_done + 1,
            p.max_reflexions
        );
        (ranking, Step::Reflexion, reason)
    } else {
        let reason = format!(
            "{} reflexions exhausted without a clear winner: consensus panel",
            p.max_reflexions
        );
        (ranking, Step::Panel, reason)
    }
}

/// WC-7: the reflexion triggers that fire for the leading position, as sentences.
/// `experts` are the experts' 0–1 scores of it; disagreement is their coefficient of variation.
pub fn reflexion_triggers(
    card: &PositionCard,
    approved: Option<bool>,
    skeptic_score: Option<f64>,
    experts: &[f64],
    cost_estimate: f64,
    p: &WcParams,
) -> Vec<String> {
    let mut out = Vec::new();
    if approved != Some(true) {
        out.push("verifier rejects: revise the plan".to_owned());
    }
    if let Some(s) = skeptic_score.filter(|s| lt(*s, p.skeptic_min)) {
        out.push(format!(
            "skeptic score {s:.1} < {}: mitigate the risks",
            p.skeptic_min
        ));
    }
    let e = evidence_quality(card);
    if lt(e, p.evidence_min) {
        out.push(format!(
            "evidence quality {e:.2} < {}: add proof",
            p.evidence_min
        ));
    }
    if gt(f64::from(card.cost), 2.0 * cost_estimate) {
        out.push(format!(
            "cost {} > 2 × estimate {cost_estimate}: simplify",
            card.cost
        ));
    }
    if experts.len() >= 2 {
        let mean = experts.iter().sum::<f64>() / experts.len() as f64;
        let var = experts.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / experts.len() as f64;
        if mean > 0.0 && gt(var.sqrt() / mean, p.expert_disagreement) {
            out.push(format!(
                "experts disagree (variation {:.0}% > {:.0}%): align",
                var.sqrt() / mean * 100.0,
                p.expert_disagreement * 100.0
            ));
        }
    }
    out
}

/// The cost a card is compared with (WC-7): configured, else the median of the cards' costs.
pub fn cost_estimate(cards: &[&PositionCard], p: &WcParams) -> f64 {
    if let Some(c) = p.cost_estimate {
        return f64::from(c);
    }
    let mut costs: Vec<u32> = cards.iter().map(|c| c.cost).collect();
    costs.sort_unstable();
    match costs.len() {
        0 => 0.0,
        n if n % 2 == 1 => f64::from(costs[n / 2]),
        n => (f64::from(costs[n / 2 - 1]) + f64::from(costs[n / 2])) / 2.0,
    }
}

/// WC-8: memory is written only with a verifier receipt, S above the threshold, every violation
/// approved and valid evidence. Returns the decision and a note per condition.
pub fn memory_write(
    card: &PositionCard,
    approved: Option<bool>,
    s: f64,
    p: &WcParams,
) -> (bool, Vec<String>) {
    let receipt = approved == Some(true);
    let above = gt(s, p.accept_threshold);
    let violations = card
        .invariant_violations
        .iter()
        .all(|v| v.requires_approval);
    let evidence = !card.evidence.is_empty()
        && card
            .evidence
            .iter()
            .all(|e| !e.pointer.trim().is_empty() && e.quality > 0.0);
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let notes = vec![
        format!("verifier receipt: {}", yes_no(receipt)),
        format!("S {s:.2} > {}: {}", p.accept_threshold, yes_no(above)),
        format!("all violations approvable: {}", yes_no(violations)),
        format!("evidence valid: {}", yes_no(evidence)),
    ];
    (receipt && above && violations && evidence, notes)
}
