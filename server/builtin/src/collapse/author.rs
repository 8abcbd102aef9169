//! WC-1 card authors. The author's id picks a style (cautious, pragmatic, ambitious; any other id
//! hashes to one of them); the query's stakes move every number: destructive or irreversible
//! queries bring critical risks, low reversibility and invariant violations, routine ones clean,
//! cheap cards.

use protocol::collapse::{Evidence, EvidenceKind, PlanStep, PositionCard};

use super::super::reading::text::{cap, clip};
use super::hazards;
use super::situation::{word, Situation};
use super::style::{numbers, style, Style, StyleNumbers};
use super::{r2, unit, Rng};

/// Builtin agents have no clock (they are deterministic): the runner stamps an empty timestamp
/// with the time the card arrives.
pub(super) fn timestamp(_round: u16) -> String {
    String::new()
}

pub(super) fn write(agent: &str, round: u16, s: &Situation, rng: &mut Rng) -> PositionCard {
    let st = style(agent);
    let kn = numbers(st);
    let stakes = s.stakes();
    let subject = clip(&s.subject, 60);

    let mut rev = kn.rev.0 - kn.rev.1 * stakes + rng.spread(0.04);
    let cut = match st {
        Style::Cautious => 0.5,
        _ => 1.0,
    };
    if !s.destructive.is_empty() {
        rev -= 0.25 * cut;
    }
    if !s.irreversible.is_empty() {
        rev -= 0.25 * cut;
    }
    let cost = (kn.cost.0 + kn.cost.1 * stakes + rng.spread(6.0))
        .round()
        .max(1.0) as u32;
    let confidence = kn.conf.0 - kn.conf.1 * stakes + rng.spread(0.04);

    let claims = claims(st, s, &subject);
    let plan = plan(st, s, &subject, rng);
    let evidence = evidence(st, &kn, s, stakes, rng);
    let risks = hazards::risks(st, &kn, s, stakes, rng);
    let invariant_violations = hazards::violations(st, s);

    PositionCard {
        agent: agent.to_owned(),
        timestamp: timestamp(round),
        claims,
        plan,
        evidence,
        risks,
        confidence: r2(unit(confidence).clamp(0.05, 0.97)),
        cost,
        reversibility: r2(unit(rev).clamp(0.05, 0.98)),
        invariant_violations,
    }
}

fn claims(st: Style, s: &Situation, subject: &str) -> Vec<String> {
    let mut c = match st {
        Style::Cautious => vec![
            format!("Do the smallest safe version of \"{subject}\" first."),
            "Every step can be rolled back before the next one starts.".to_owned(),
        ],
        Style::Pragmatic => vec![
            format!("\"{subject}\" is worth doing now, in stages."),
            "The main risk is manageable with a staged rollout and monitoring.".to_owned(),
        ],
        Style::Ambitious => vec![
            format!("Do \"{subject}\" in full, in one push."),
            "A bigger change now avoids rework later.".to_owned(),
            "Speed matters more than a staged rollout here.".to_owned(),
        ],
    };
    if !s.destructive.is_empty() && st == Style::Cautious {
        c.push(format!(
            "Nothing is {} until a verified backup exists.",
            past(word(&s.destructive, "removed"))
        ));
    }
    if s.is_routine() {
        c.push("This is routine, low-risk work.".to_owned());
    }
    c
}

fn past(w: &str) -> String {
    match w.split(' ').next().unwrap_or(w) {
        x if x.starts_with("delet") => "deleted".to_owned(),
        x if x.starts_with("drop") => "dropped".to_owned(),
        x if x.starts_with("wip") => "wiped".to_owned(),
        x if x.starts_with("purg") => "purged".to_owned(),
        x if x.starts_with("truncat") => "truncated".to_owned(),
        _ => "removed".to_owned(),
    }
}

pub(super) fn step(action: String, rationale: String) -> PlanStep {
    PlanStep { action, rationale }
}

#[allow(clippy::too_many_lines)] // the plan steps per style, as text
fn plan(st: Style, s: &Situation, subject: &str, rng: &mut Rng) -> Vec<PlanStep> {
    let mut v = Vec::new();
    let c = st == Style::Cautious;
    let a = st == Style::Ambitious;
    if !s.destructive.is_empty() {
        let w = word(&s.destructive, "delete");
        if a {
            v.push(step(
                format!("Run the \"{w}\" in one batch"),
                "the fastest path to what the query asks".into(),
            ));
        } else {
            v.push(step(
                format!("Take and test-restore a backup before any \"{w}\""),
                format!("a \"{w}\" cannot be undone without one"),
            ));
            if c {
                v.push(step(
                    "Soft-delete first: mark and hide the data for a week".into(),
                    format!("keeps the \"{w}\" reversible until it is confirmed"),
                ));
            }
        }
    }
    if !s.security.is_empty() {
        let w = word(&s.security, "bypass");
        if c {
            v.push(step(
                format!("Keep \"{w}\" out of the plan and unblock the work another way"),
                "the safeguard exists for a reason".into(),
            ));
        } else {
            v.push(step(
                format!("\"{}\" for the duration of the change", cap(w)),
                "removes the blocker the query names".into(),
            ));
        }
    }
    if !s.change.is_empty() {
        let w = word(&s.change, "change");
        v.push(if a {
            step(
                format!("\"{}\" everything in one release", cap(w)),
                "one cut-over instead of a long dual-running period".into(),
            )
        } else {
            step(
                format!("\"{}\" one component at a time", cap(w)),
                "each step is small enough to roll back".into(),
            )
        });
    }
    if !s.production.is_empty() {
        let w = word(&s.production, "production");
        v.push(match st {
            Style::Cautious => step(
                format!("Rehearse on a staging copy before touching \"{w}\""),
                "finds surprises where they cost nothing".into(),
            ),
            Style::Pragmatic => step(
                format!("Roll out to a small share of \"{w}\" behind a flag"),
                "limits the blast radius while we watch".into(),
            ),
            Style::Ambitious => step(
                format!("Deploy to all of \"{w}\" at once"),
                "no long-lived flags to clean up".into(),
            ),
        });
    }
    if !s.sensitive.is_empty() {
        let w = word(&s.sensitive, "sensitive data");
        v.push(step(
            format!("Review the \"{w}\" data flows with compliance"),
            "sensitive data has legal obligations".into(),
        ));
    }
    if s.is_routine() || v.is_empty() {
        v.push(step(
            format!("Make the change: \"{subject}\""),
            "it is what the query asks, scoped to that".into(),
        ));
    }
    let generic = [
        step(
            "Run the full test suite and review the diff".into(),
            "confirms nothing else broke".into(),
        ),
        step(
            format!("Write down what \"done\" means for \"{subject}\""),
            "a clear target keeps the scope small".into(),
        ),
        step(
            "Watch error rates and logs for a day after shipping".into(),
            "catches what the tests missed".into(),
        ),
        step(
            "Note the rollback steps in the change log".into(),
            "anyone on call can undo it".into(),
        ),
    ];
    let mut g = 0;
    let want = (numbers(st).steps as i32 + rng.jitter(1)).clamp(2, 4) as usize;
    while v.len() < want && g < generic.len() {
        v.push(generic[g].clone());
        g += 1;
    }
    v.truncate(4);
    v
}

fn evidence(
    st: Style,
    kn: &StyleNumbers,
    s: &Situation,
    stakes: f64,
    rng: &mut Rng,
) -> Vec<Evidence> {
    let slug = &s.slug;
    let mut cands = Vec::new();
    if s.is_routine() || s.change.is_empty() {
        cands.push((EvidenceKind::Test, format!("tests/{slug}_test")));
    }
    if !s.production.is_empty() || !s.change.is_empty() {
        cands.push((
            EvidenceKind::Measurement,
            format!("metrics/{slug}/baseline"),
        ));
    }
    if !s.sensitive.is_empty() || s.dangerous() {
        cands.push((
            EvidenceKind::ExpertReview,
            format!("reviews/{slug}-security"),
        ));
    }
    cands.push((EvidenceKind::Document, format!("docs/{slug}.md")));
    cands.push((EvidenceKind::Test, format!("ci/{slug}/last-green-run")));
    cands.push((EvidenceKind::Document, format!("runbooks/{slug}")));
    let n = if st == Style::Pragmatic && stakes < 0.3 {
        3
    } else {
        kn.evidence
    };
    cands
        .into_iter()
        .take(n)
        .enumerate()
        .map(|(i, (kind, pointer))| Evidence {
            kind,
            pointer,
            quality: r2(
                (kn.quality - 0.45 * stakes - 0.03 * i as f64 + rng.spread(0.05)).clamp(0.1, 0.95),
            ),
        })
        .collect()
}
