//! The risks and invariant violations an author sees in a query, by style: destructive and
//! security-off cues are critical, and the bolder the author the more it leaves unmitigated.

use protocol::collapse::{InvariantViolation, Risk, Severity};

use super::super::reading::text::cap;
use super::situation::{word, Situation};
use super::style::{Style, StyleNumbers};
use super::{r2, Rng};

#[allow(clippy::too_many_lines)] // the risks per situation, as text
pub(super) fn risks(
    st: Style,
    kn: &StyleNumbers,
    s: &Situation,
    stakes: f64,
    rng: &mut Rng,
) -> Vec<Risk> {
    let mut v = Vec::new();
    let mitig = |careful: &str, quick: &str| -> String {
        match st {
            Style::Ambitious => quick.to_owned(),
            _ => careful.to_owned(),
        }
    };
    let quiet = !s.dangerous()
        && [
            &s.irreversible,
            &s.sensitive,
            &s.production,
            &s.change,
            &s.urgent,
        ]
        .iter()
        .all(|x| x.is_empty());
    let mut add = |sev: Severity, desc: String, mitigation: String, extra: f64, rng: &mut Rng| {
        let residual = kn.residual + 0.3 * stakes + extra + rng.spread(0.04);
        v.push(Risk {
            severity: sev,
            description: desc,
            mitigation,
            residual_risk: r2(residual.clamp(0.02, 0.95)),
        });
    };
    if !s.destructive.is_empty() {
        let w = word(&s.destructive, "delete");
        add(
            Severity::Critical,
            format!("The \"{w}\" loses data that cannot be recovered"),
            mitig("verified backup and soft-delete window", "none planned"),
            0.1,
            rng,
        );
    }
    if !s.security.is_empty() {
        let w = word(&s.security, "bypass");
        add(
            Severity::Critical,
            format!("\"{}\" opens a security hole while it lasts", cap(w)),
            mitig(
                "keep the safeguard on; time-box any exception",
                "re-enable afterwards",
            ),
            0.1,
            rng,
        );
    }
    if !s.irreversible.is_empty() {
        add(
            Severity::High,
            format!(
                "The change is \"{}\"",
                word(&s.irreversible, "irreversible")
            ),
            mitig(
                "rehearse and sign off before the point of no return",
                "none planned",
            ),
            0.05,
            rng,
        );
    }
    if !s.sensitive.is_empty() {
        add(
            Severity::High,
            format!(
                "\"{}\" data could leak or be corrupted",
                word(&s.sensitive, "sensitive")
            ),
            mitig(
                "privacy review and audit logging",
                "standard access controls",
            ),
            0.0,
            rng,
        );
    }
    if !s.production.is_empty() {
        add(
            Severity::High,
            format!("An outage for \"{}\"", word(&s.production, "production")),
            mitig("staged rollout with a kill switch", "monitoring"),
            0.0,
            rng,
        );
    }
    if !s.change.is_empty() {
        let w = word(&s.change, "change");
        // Moving data or rewriting a system can break things; swapping a tool mostly costs time.
        let big = [
            "migrat",
            "rewrit",
            "from scratch",
            "redesign",
            "microservice",
            "schema",
        ]
        .iter()
        .any(|b| w.starts_with(b));
        let (sev, desc) = if big {
            (
                Severity::High,
                format!("The \"{w}\" breaks something that worked"),
            )
        } else {
            (
                Severity::Medium,
                format!("The \"{w}\" takes longer than planned"),
            )
        };
        add(
            sev,
            desc,
            mitig("small milestones with a stop point", "none planned"),
            0.0,
            rng,
        );
    }
    if !s.urgent.is_empty() {
        add(
            Severity::Medium,
            format!("Rushing (\"{}\") skips checks", word(&s.urgent, "asap")),
            "a short checklist before shipping".into(),
            0.0,
            rng,
        );
    }
    if s.is_routine() {
        add(
            Severity::Low,
            "A small regression slips through".into(),
            "the existing test suite".into(),
            -0.05,
            rng,
        );
    } else if quiet {
        add(
            Severity::Medium,
            "Unknowns in an underspecified request".into(),
            mitig("clarify scope before starting", "none planned"),
            0.0,
            rng,
        );
    }
    if st == Style::Ambitious {
        add(
            Severity::Medium,
            "Scope creep from doing everything at once".into(),
            "none planned".into(),
            0.0,
            rng,
        );
    }
    v.truncate(4);
    v
}

pub(super) fn violations(st: Style, s: &Situation) -> Vec<InvariantViolation> {
    let mut v = Vec::new();
    if !s.destructive.is_empty() && st != Style::Cautious {
        let w = word(&s.destructive, "delete");
        v.push(InvariantViolation {
            invariant_id: "INV-DATA-BACKUP".into(),
            description: "No destructive data change without a verified, restorable backup".into(),
            justification: format!("the query asks to \"{w}\"; the backup is not verified yet"),
            requires_approval: st == Style::Pragmatic,
        });
    }
    if !s.security.is_empty() && st != Style::Cautious {
        let w = word(&s.security, "bypass");
        v.push(InvariantViolation {
            invariant_id: "INV-SEC-GUARD".into(),
            description: "Authentication, review and tests stay on for every change".into(),
            justification: format!("the plan includes \"{w}\""),
            requires_approval: st == Style::Pragmatic,
        });
    }
    if st == Style::Ambitious && !s.sensitive.is_empty() && !s.production.is_empty() {
        v.push(InvariantViolation {
            invariant_id: "INV-PRIV-REVIEW".into(),
            description: "Changes to personal or payment data in production need a privacy review"
                .into(),
            justification: "the review would delay the single release".into(),
            requires_approval: true,
        });
    }
    if st == Style::Ambitious && !s.irreversible.is_empty() {
        v.push(InvariantViolation {
            invariant_id: "INV-OPS-ROLLBACK".into(),
            description: "Every change has a rollback path".into(),
            justification: format!(
                "the query calls it \"{}\"",
                word(&s.irreversible, "irreversible")
            ),
            requires_approval: true,
        });
    }
    v
}
