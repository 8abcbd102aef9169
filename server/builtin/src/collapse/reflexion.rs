//! WC-4 reflexion: an author revises its card in answer to the skeptic's concerns and the
//! triggers that fired.

use protocol::collapse::{Evidence, EvidenceKind, PositionCard};

use super::super::reading::text::clip;
use super::author::{step, timestamp};
use super::situation::Situation;
use super::style::{style, Style};
use super::{has_mitigation, r2, unit, Metrics, Rng};

/// How a revision's claim line starts; counted to find how often a card was revised.
const REVISED: &str = "Revised";

/// WC-4 reflexion: answer the concerns. Each improvement happens with a seeded probability and
/// is bounded, so some revisions cross the acceptance line and others do not.
#[allow(clippy::too_many_lines)] // the revision per trigger, as text
pub(super) fn revise(
    agent: &str,
    round: u16,
    card: &PositionCard,
    concerns: &[String],
    triggers: &[String],
    s: &Situation,
    rng: &mut Rng,
) -> PositionCard {
    let st = style(agent);
    let mut c = card.clone();
    c.agent = if card.agent.is_empty() {
        agent.to_owned()
    } else {
        card.agent.clone()
    };
    c.timestamp = timestamp(round);
    let said = format!("{} {}", concerns.join(" "), triggers.join(" ")).to_lowercase();
    let about = |ws: &[&str]| ws.iter().any(|w| said.contains(w));
    // How far this author is willing to go: ambitious authors give ground slowly.
    let effort = match st {
        Style::Cautious => 1.0,
        Style::Pragmatic => 0.85,
        Style::Ambitious => 0.6,
    } * (0.6 + 0.4 * rng.unit())
        // Diminishing returns: each earlier revision (its claim line) halves, thirds, … the next.
        / (1.0 + card.claims.iter().filter(|c| c.starts_with(REVISED)).count() as f64);
    let cap_q = match st {
        Style::Cautious => 0.9,
        Style::Pragmatic => 0.86,
        Style::Ambitious => 0.78,
    };
    let m = Metrics::of(card);
    let mut answered = Vec::new();

    // Evidence: always some work on it when asked, or when it is the weak point.
    if about(&["evidence", "verif", "quality"]) || m.e < 0.6 || rng.unit() < 0.5 {
        for ev in &mut c.evidence {
            let q = unit(ev.quality);
            if q < cap_q {
                ev.quality = r2((q + 0.1 * effort).min(cap_q)).max(q);
            }
            if ev.pointer.trim().is_empty() {
                ev.pointer = format!("docs/{}.md", s.slug);
            }
        }
        if c.evidence.len() < 3 && rng.unit() < 0.7 {
            // A new item never drags the mean down.
            let mean = Metrics::of(&c).e;
            c.evidence.push(Evidence {
                kind: EvidenceKind::Test,
                pointer: format!("tests/{}_reflexion_check", s.slug),
                quality: (0.55 + 0.2 * effort).min(cap_q).max(mean),
            });
        }
        answered.push("evidence");
    }
    // Risks: mitigate the worst one, sometimes the others too.
    if let Some(w) = m.worst {
        for (i, risk) in c.risks.iter_mut().enumerate() {
            if i != w && rng.unit() < 0.5 {
                continue;
            }
            if !has_mitigation(&risk.mitigation) {
                risk.mitigation = "staged rollout with a tested rollback".into();
            }
            let factor = 1.0 - 0.35 * effort;
            risk.residual_risk = r2((unit(risk.residual_risk) * factor).max(0.05));
        }
        answered.push("risk");
    }
    // Cost and reversibility when asked, or by chance.
    if about(&["cost", "expensive", "budget"]) || rng.unit() < 0.4 {
        let trim = 1.0 - 0.2 * effort;
        c.cost = ((f64::from(c.cost) * trim).round() as u32).max(1);
        answered.push("cost");
    }
    if about(&["revers", "rollback", "irreversib"]) || rng.unit() < 0.5 {
        c.reversibility = r2((unit(c.reversibility) + 0.12 * effort).min(0.95));
        answered.push("reversibility");
    }
    // Violations: an author may find a way around one, or at least ask for approval.
    let keep_p = match st {
        Style::Cautious => 0.2,
        Style::Pragmatic => 0.5,
        Style::Ambitious => 0.75,
    };
    let mut kept = Vec::new();
    for mut v in std::mem::take(&mut c.invariant_violations) {
        if rng.unit() < keep_p {
            v.requires_approval = true;
            kept.push(v);
        } else {
            c.plan.push(step(
                format!(
                    "Satisfy {} instead of violating it",
                    clip(&v.invariant_id, 40)
                ),
                clip(&v.description, 120),
            ));
        }
    }
    if kept.len() < card.invariant_violations.len() {
        answered.push("invariants");
    }
    c.invariant_violations = kept;
    c.plan.truncate(6);
    c.confidence = r2(unit(c.confidence) * 0.7 + 0.7 * 0.3);
    if !answered.is_empty() {
        let first = concerns
            .first()
            .map(|x| format!(" (first: \"{}\")", clip(x, 80)))
            .unwrap_or_default();
        c.claims.push(format!(
            "{REVISED} to answer {} concern(s){first}: worked on {}.",
            concerns.len(),
            answered.join(", ")
        ));
        c.claims.truncate(8);
    }
    c
}
