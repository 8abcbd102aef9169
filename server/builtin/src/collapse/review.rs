//! WC-3 rule 1 (the verifier's review) and the skeptic's critique (WC-4, WC-7).

use protocol::collapse::{Critique, PositionCard, Verification};

use super::super::reading::text::clip;
use super::{severity_name, Metrics, Rng};

/// Approves when the evidence is adequate (at least one item, every pointer set, mean quality
/// about 0.5 or better) and no violation claims to need no approval.
pub(super) fn verify(card: &PositionCard, rng: &mut Rng) -> Verification {
    let m = Metrics::of(card);
    let bar = 0.5 + rng.spread(0.03);
    let mut problems = Vec::new();
    let mut fine = Vec::new();
    if m.n_evidence == 0 {
        problems.push("no evidence at all".to_owned());
    } else {
        if m.valid_evidence < m.n_evidence {
            problems.push(format!(
                "{} of {} evidence items have no pointer",
                m.n_evidence - m.valid_evidence,
                m.n_evidence
            ));
        }
        if m.e < bar {
            problems.push(format!(
                "mean evidence quality {:.2} is below {:.2}",
                m.e, bar
            ));
        } else {
            fine.push(format!(
                "{} evidence item(s), mean quality {:.2}",
                m.n_evidence, m.e
            ));
        }
    }
    for v in &card.invariant_violations {
        if v.requires_approval {
            fine.push(format!(
                "{} is flagged for human approval",
                clip(&v.invariant_id, 40)
            ));
        } else {
            problems.push(format!(
                "violates {} without asking for approval",
                clip(&v.invariant_id, 40)
            ));
        }
    }
    let approve = problems.is_empty();
    let notes = if approve {
        format!("Approved: {}.", fine.join("; "))
    } else if fine.is_empty() {
        format!("Rejected: {}.", problems.join("; "))
    } else {
        format!(
            "Rejected: {}. (Otherwise fine: {}.)",
            problems.join("; "),
            fine.join("; ")
        )
    };
    Verification { approve, notes }
}

/// A 0–10 score that follows the card's S, and the card's weakest points, worst first.
pub(super) fn critique(card: &PositionCard, rng: &mut Rng) -> Critique {
    let m = Metrics::of(card);
    let score = (0.9 * m.s + 1.0 + rng.spread(0.3)).clamp(0.0, 10.0);
    let score = (score * 10.0).round() / 10.0;
    let mut concerns: Vec<(f64, String)> = Vec::new();
    if let Some(w) = m.worst.and_then(|i| card.risks.get(i)) {
        if m.r > 0.05 {
            let mitigation = if super::has_mitigation(&w.mitigation) {
                format!("after \"{}\"", clip(&w.mitigation, 60))
            } else {
                "with no mitigation".to_owned()
            };
            concerns.push((
                m.r * 10.0,
                format!(
                    "The {} risk \"{}\" keeps a residual of {:.2} {mitigation}.",
                    severity_name(w.severity),
                    clip(&w.description, 80),
                    super::unit(w.residual_risk)
                ),
            ));
        }
    }
    if m.n_evidence < 2 || m.e < 0.65 {
        concerns.push((
            (0.8 - m.e) * 10.0 + if m.n_evidence < 2 { 2.0 } else { 0.0 },
            format!(
                "The evidence is thin: {} item(s), mean quality {:.2}.",
                m.n_evidence, m.e
            ),
        ));
    }
    if m.k > 50 {
        concerns.push((
            f64::from(m.k) / 25.0,
            format!("The cost of {} is high; what is the smallest version?", m.k),
        ));
    }
    if m.v < 0.6 {
        concerns.push((
            (0.6 - m.v) * 10.0,
            format!("Reversibility is only {:.2}; how would we undo it?", m.v),
        ));
    }
    if m.violations > 0 {
        concerns.push((
            10.0 * m.violations as f64,
            format!(
                "It breaks {} invariant(s): {}.",
                m.violations,
                card.invariant_violations
                    .iter()
                    .map(|v| clip(&v.invariant_id, 40))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    if m.mitigated < 1.0 && m.n_risks > 0 {
        concerns.push((
            (1.0 - m.mitigated) * 4.0,
            format!(
                "{:.0}% of its risks have no mitigation.",
                (1.0 - m.mitigated) * 100.0
            ),
        ));
    }
    if m.plan < 2 {
        concerns.push((3.0, format!("The plan has only {} step(s).", m.plan)));
    }
    concerns.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut concerns: Vec<String> = concerns.into_iter().map(|(_, c)| c).take(4).collect();
    if concerns.is_empty() {
        concerns.push(format!(
            "No major weakness; the weakest number is a confidence of {:.2}.",
            m.gamma
        ));
    }
    Critique { score, concerns }
}
