//! Builtin WC agents (WC-1…WC-7): card authors, the verifier, the skeptic and the seven panel
//! seats. Authors read the query's stakes (destructive, security, production, irreversible,
//! sensitive-data, large-change and routine cues) and write a card in their style; reviewers and
//! panel seats score cards from the cards' own numbers, with a small seeded jitter. Every reply
//! is a pure function of (seed, agent, round, task).

mod author;
mod hazards;
mod panel;
mod reflexion;
mod review;
mod situation;
mod style;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_machine;

use protocol::collapse::{PositionCard, Severity, Verification, WcReply, WcTask};
use protocol::{AgentReply, AgentRequest, Task};

use super::Rng;
use situation::Situation;

pub(super) fn reply(seed: u64, req: &AgentRequest) -> AgentReply {
    let query = req.task.query();
    let rng = |salt: &str| Rng::new(seed, query, &req.agent, req.round, salt);
    match &req.task {
        Task::Collapse(WcTask::WriteCard { query }) => {
            let s = Situation::of(query);
            AgentReply::Collapse(WcReply::Card(author::write(
                &req.agent,
                req.round,
                &s,
                &mut rng("write"),
            )))
        }
        Task::Collapse(WcTask::ReviseCard {
            query,
            card,
            concerns,
            triggers,
        }) => {
            let s = Situation::of(query);
            let salt = format!(
                "revise|{}|{}|{}",
                fingerprint(card),
                concerns.join("|"),
                triggers.join("|")
            );
            AgentReply::Collapse(WcReply::Card(reflexion::revise(
                &req.agent,
                req.round,
                card,
                concerns,
                triggers,
                &s,
                &mut rng(&salt),
            )))
        }
        Task::Collapse(WcTask::VerifyCard { card, .. }) => {
            let salt = format!("verify|{}", fingerprint(card));
            AgentReply::Collapse(WcReply::Verification(review::verify(card, &mut rng(&salt))))
        }
        Task::Collapse(WcTask::Critique { card, .. }) => {
            let salt = format!("critique|{}", fingerprint(card));
            AgentReply::Collapse(WcReply::Critique(review::critique(card, &mut rng(&salt))))
        }
        Task::Collapse(WcTask::Evaluate { query, positions }) => {
            let s = Situation::of(query);
            let salt: String = positions
                .iter()
                .map(|(id, c)| format!("{id}:{};", fingerprint(c)))
                .collect();
            AgentReply::Collapse(WcReply::Evaluation(panel::evaluate(
                req.role,
                positions,
                &s,
                &mut rng(&format!("evaluate|{salt}")),
            )))
        }
        _ => AgentReply::Collapse(WcReply::Verification(Verification {
            approve: false,
            notes: "Not a weighted-collapse task.".into(),
        })),
    }
}

/// A short, stable digest of a card's content, to salt the seeded stream. The timestamp is left
/// out: it is the time the card arrived, and the same seed must give the same debate.
fn fingerprint(card: &PositionCard) -> String {
    let mut card = card.clone();
    card.timestamp.clear();
    let json = serde_json::to_string(&card).unwrap_or_default();
    let mut h = protocol::seeded::Fnv1a::default();
    std::hash::Hasher::write(&mut h, json.as_bytes());
    format!("{:016x}", std::hash::Hasher::finish(&h))
}

/// A number as a card should hold it: finite and within 0–1.
pub(super) fn unit(x: f64) -> f64 {
    if x.is_finite() {
        x.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Rounds to two decimals, as cards and scores are shown.
pub(super) fn r2(x: f64) -> f64 {
    (unit_or(x) * 100.0).round() / 100.0
}

fn unit_or(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

impl Rng {
    /// Uniform in [0, 1).
    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [-r, r].
    pub(super) fn spread(&mut self, r: f64) -> f64 {
        (self.unit() * 2.0 - 1.0) * r
    }
}

pub(super) fn severity_weight(s: Severity) -> f64 {
    match s {
        Severity::Critical => 1.0,
        Severity::High => 0.7,
        Severity::Medium => 0.4,
        Severity::Low => 0.1,
    }
}

pub(super) fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "critical",
        Severity::High => "high",
        Severity::Medium => "medium",
        Severity::Low => "low",
    }
}

/// What the reviewers and the panel read off a card, sanitised (user cards may hold anything).
#[derive(Clone, Debug)]
pub(super) struct Metrics {
    /// Mean evidence quality, 0 with none (WC-2 E).
    pub e: f64,
    pub n_evidence: usize,
    /// Evidence items with a non-empty pointer and a finite quality.
    pub valid_evidence: usize,
    /// Max severity weight × residual (WC-2 R), and the risk it came from.
    pub r: f64,
    pub worst: Option<usize>,
    /// A critical risk with residual above 0.3.
    pub open_critical: bool,
    pub n_risks: usize,
    /// Share of risks with a real mitigation.
    pub mitigated: f64,
    pub v: f64,
    pub k: u32,
    pub gamma: f64,
    pub violations: usize,
    /// Violations the card says need no approval.
    pub unapproved: usize,
    pub plan: usize,
    /// Plan steps with both an action and a rationale.
    pub plan_complete: usize,
    pub claims: usize,
    /// WC-2 S with the default weights.
    pub s: f64,
}

pub(super) fn has_mitigation(m: &str) -> bool {
    let m = m.trim().to_lowercase();
    !(m.is_empty() || m.starts_with("none") || m == "n/a")
}

impl Metrics {
    pub fn of(card: &PositionCard) -> Metrics {
        let n_evidence = card.evidence.len();
        let e = if n_evidence == 0 {
            0.0
        } else {
            card.evidence.iter().map(|x| unit(x.quality)).sum::<f64>() / n_evidence as f64
        };
        let valid_evidence = card
            .evidence
            .iter()
            .filter(|x| !x.pointer.trim().is_empty() && x.quality.is_finite())
            .count();
        let mut r = 0.0;
        let mut worst = None;
        for (i, risk) in card.risks.iter().enumerate() {
            let x = severity_weight(risk.severity) * unit(risk.residual_risk);
            if worst.is_none() || x > r {
                r = x;
                worst = Some(i);
            }
        }
        let open_critical = card
            .risks
            .iter()
            .any(|x| x.severity == Severity::Critical && unit(x.residual_risk) > 0.3);
        let n_risks = card.risks.len();
        let mitigated = if n_risks == 0 {
            1.0
        } else {
            card.risks
                .iter()
                .filter(|x| has_mitigation(&x.mitigation))
                .count() as f64
                / n_risks as f64
        };
        let v = unit(card.reversibility);
        let k = card.cost;
        let gamma = unit(card.confidence);
        let violations = card.invariant_violations.len();
        let unapproved = card
            .invariant_violations
            .iter()
            .filter(|x| !x.requires_approval)
            .count();
        let plan_complete = card
            .plan
            .iter()
            .filter(|p| !p.action.trim().is_empty() && !p.rationale.trim().is_empty())
            .count();
        let s = 10.0 * e - 8.0 * r + 3.0 * v - 2.0 * (f64::from(k) / 100.0) + gamma
            - 10.0 * violations as f64;
        Metrics {
            e,
            n_evidence,
            valid_evidence,
            r,
            worst,
            open_critical,
            n_risks,
            mitigated,
            v,
            k,
            gamma,
            violations,
            unapproved,
            plan: card.plan.len(),
            plan_complete,
            claims: card.claims.len(),
            s,
        }
    }
}
