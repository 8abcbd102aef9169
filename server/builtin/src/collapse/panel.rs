//! WC-5: the seven panel seats. Each scores every position 0–1 from the card's numbers through
//! its own lens, plus a small seeded jitter (±0.02, so near-identical cards stay near-tied), and
//! names the numbers it used. Calibrated so realistic cards spread C over roughly 0.4–0.9.

use protocol::collapse::{PanelEvaluation, PositionCard, PositionScore};
use protocol::Role;

use super::situation::Situation;
use super::{Metrics, Rng};

/// Panels are kinder than S to middling cards: a card the score leaves at 4–6 (so the panel
/// sees it) still earns C ≈ 0.6–0.75 when its evidence and risks are fair.
const LIFT: f64 = 0.05;

/// One seat's score and rationale for one card.
#[allow(clippy::too_many_lines)] // one arm per panel seat
fn seat(role: Role, m: &Metrics, s: &Situation) -> (f64, String) {
    let cheap = (1.0 - f64::from(m.k.min(1000)) / 120.0).clamp(0.0, 1.0);
    match role {
        Role::Minimalist => {
            let x = 0.15 + 0.45 * m.v + 0.4 * cheap - 0.04 * (m.plan.saturating_sub(3)) as f64;
            (
                x,
                format!(
                    "cost {} and reversibility {:.2} over {} step(s)",
                    m.k, m.v, m.plan
                ),
            )
        }
        Role::Skeptic => {
            let x = 1.0
                - 1.6 * m.r
                - 0.15 * m.violations as f64
                - 0.2 * (1.0 - m.mitigated)
                - if m.n_evidence < 2 { 0.1 } else { 0.0 };
            (
                x,
                format!(
                    "worst residual risk R {:.2}, {:.0}% of risks mitigated, {} violation(s)",
                    m.r,
                    m.mitigated * 100.0,
                    m.violations
                ),
            )
        }
        Role::DomainExpert => {
            let completeness = (m.plan_complete.min(3) as f64) / 3.0;
            let x = 0.1 + 0.65 * m.e + 0.25 * completeness - if m.plan < 2 { 0.1 } else { 0.0 };
            (
                x,
                format!(
                    "evidence quality {:.2} and {} of {} plan step(s) with a rationale",
                    m.e, m.plan_complete, m.plan
                ),
            )
        }
        Role::Verifier => {
            let x = if m.n_evidence == 0 {
                0.1
            } else {
                let valid = m.valid_evidence as f64 / m.n_evidence as f64;
                1.1 * m.e * valid - 0.05 - 0.3 * m.violations as f64 - 0.1 * m.unapproved as f64
            };
            (
                x,
                format!(
                    "{} of {} evidence item(s) valid, mean quality {:.2}, {} violation(s)",
                    m.valid_evidence, m.n_evidence, m.e, m.violations
                ),
            )
        }
        Role::CollectiveIntelligence => {
            let x = 0.35 + 0.35 * m.e + 0.3 * (1.0 - m.r)
                - 0.4 * (m.gamma - 0.7).abs()
                - 0.2 * m.violations as f64;
            (
                x,
                format!(
                    "S {:.1}; confidence {:.2} against a tempered 0.70, R {:.2}",
                    m.s, m.gamma, m.r
                ),
            )
        }
        Role::RiskCompliance => {
            let sensitive = if s.sensitive.is_empty() { 0.0 } else { 0.05 };
            let x = 0.95
                - 1.3 * m.r
                - if m.open_critical { 0.25 } else { 0.0 }
                - 0.2 * m.violations as f64
                - if m.v < 0.5 { 0.15 } else { 0.0 }
                - sensitive;
            (
                x,
                format!(
                    "R {:.2}{}, {} violation(s), reversibility {:.2}",
                    m.r,
                    if m.open_critical {
                        " with an open critical risk"
                    } else {
                        ""
                    },
                    m.violations,
                    m.v
                ),
            )
        }
        Role::UserValue => {
            let x = 0.25
                + 0.3 * m.gamma
                + 0.2 * (m.claims.min(4) as f64 / 4.0)
                + 0.15 * (m.plan.min(4) as f64 / 4.0)
                + 0.1 * (f64::from(m.k.min(100)) / 100.0);
            (
                x,
                format!(
                    "{} claim(s), {} step(s), confidence {:.2}, scope (cost) {}",
                    m.claims, m.plan, m.gamma, m.k
                ),
            )
        }
        // Any other role on the panel scores like S, squashed to 0–1.
        _ => {
            let x = (m.s + 2.0) / 14.0;
            (x, format!("S {:.1}", m.s))
        }
    }
}

/// How sure a seat is of its own scores, given what the cards show it.
fn seat_confidence(role: Role, ms: &[Metrics]) -> f64 {
    let n = ms.len().max(1) as f64;
    let mean = |f: &dyn Fn(&Metrics) -> f64| ms.iter().map(f).sum::<f64>() / n;
    let c = match role {
        Role::Minimalist => 0.85,
        Role::Skeptic => 0.65 + 0.2 * mean(&|m| if m.n_risks > 0 { 1.0 } else { 0.0 }),
        Role::DomainExpert => 0.6 + 0.3 * mean(&|m| m.e),
        Role::Verifier => 0.5 + 0.1 * mean(&|m| m.n_evidence.min(4) as f64),
        Role::CollectiveIntelligence => 0.6,
        Role::RiskCompliance => 0.75 + 0.15 * mean(&|m| if m.open_critical { 1.0 } else { 0.0 }),
        Role::UserValue => 0.7,
        _ => 0.5,
    };
    super::r2(c.clamp(0.05, 1.0))
}

fn lens(role: Role) -> &'static str {
    match role {
        Role::Minimalist => "cheapest, most reversible",
        Role::Skeptic => "least residual risk",
        Role::DomainExpert => "best evidence and most complete plan",
        Role::Verifier => "best-evidenced, no violations",
        Role::CollectiveIntelligence => "steadiest middle course",
        Role::RiskCompliance => "safest and most compliant",
        Role::UserValue => "most value for the user",
        _ => "highest score",
    }
}

pub(super) fn evaluate(
    role: Role,
    positions: &[(String, PositionCard)],
    s: &Situation,
    rng: &mut Rng,
) -> PanelEvaluation {
    let ms: Vec<Metrics> = positions.iter().map(|(_, c)| Metrics::of(c)).collect();
    let mut scores = Vec::with_capacity(positions.len());
    for ((id, _), m) in positions.iter().zip(&ms) {
        let (x, why) = seat(role, m, s);
        let x = super::unit(x + LIFT + rng.spread(0.02));
        let x = (x * 1000.0).round() / 1000.0;
        scores.push(PositionScore {
            position: id.clone(),
            score: x,
            rationale: format!("{x:.2}: {why}."),
        });
    }
    let best = scores
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.score.total_cmp(&b.1.score).then(b.0.cmp(&a.0)))
        .map(|(i, _)| i);
    let recommendation = best.map(|i| scores[i].position.clone()).unwrap_or_default();
    let mut concerns = Vec::new();
    if let Some(i) = best {
        concerns.push(format!(
            "I recommend {} as the {} option ({:.2}).",
            scores[i].position,
            lens(role),
            scores[i].score
        ));
    }
    for (sc, m) in scores.iter().zip(&ms) {
        if sc.score < 0.5 {
            concerns.push(format!(
                "{} scores only {:.2} on my lens: {}",
                sc.position,
                sc.score,
                sc.rationale.split_once(": ").map_or("", |x| x.1)
            ));
        }
        if m.open_critical && matches!(role, Role::RiskCompliance | Role::Skeptic) {
            concerns.push(format!("{} carries an open critical risk.", sc.position));
        }
    }
    concerns.truncate(5);
    PanelEvaluation {
        scores,
        recommendation,
        concerns,
        confidence: seat_confidence(role, &ms),
    }
}
