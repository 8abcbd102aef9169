//! `GET /api/debates/{id}/export.md`: the debate as a report a person reads — query, rounds,
//! challenges, revisions with before/after, votes, the decision and why, and the integrity check.

use std::fmt::Write;

mod escalation;
mod reconcile;

use super::{check, Audit};
use crate::api::DebateDetail;
use crate::protocol::types::display_name;
use crate::protocol::{Outcome, Position};

#[allow(clippy::too_many_lines)] // the report, section by section, in reading order
pub fn report(detail: &DebateDetail) -> String {
    let audit = Audit::from_events(&detail.events);
    let verdict = check(&detail.events);
    let mut md = String::with_capacity(8 * 1024);
    let w = &mut md;
    line(w, "# Consilium debate report");
    line(w, "");
    // Query, protocol and seed as the hashed log records them (the debates row is not chained).
    let query = if audit.view.query.is_empty() {
        &detail.query
    } else {
        &audit.view.query
    };
    line(w, &format!("**Query:** {}", inline(query)));
    line(w, "");
    line(
        w,
        "| Debate | Protocol | Seed | Status | Started | Events |",
    );
    line(w, "|---|---|---|---|---|---|");
    line(
        w,
        &format!(
            "| `{}` | {} | {} | {} | {} | {} |",
            cell(&detail.id),
            if audit.view.protocol.is_empty() {
                &detail.protocol
            } else {
                &audit.view.protocol
            }
            .to_uppercase(),
            audit.view.seed,
            detail.status,
            cell(&detail.created_at),
            detail.events.len()
        ),
    );

    line(w, "");
    match (&audit.view.decision, &audit.view.interrupted) {
        (Some(Outcome::S4(o)), _) => {
            line(
                w,
                &format!("## Decision: {} ({})", o.decision, o.consensus.label()),
            );
            line(w, "");
            line(w, &inline(&o.reasoning));
            line(w, "");
            line(
                w,
                &format!(
                    "- Votes: ACT {} · WARN {} · REFUSE {}",
                    o.decision_counts.act, o.decision_counts.warn, o.decision_counts.refuse
                ),
            );
            line(
                w,
                &format!(
                    "- Agreement: {}% · max risk {} · veto: {}",
                    o.agreement_percentage,
                    o.max_risk,
                    o.veto_agent
                        .as_deref()
                        .map(display_name)
                        .unwrap_or_else(|| "none".into())
                ),
            );
            let changed = if o.changed_minds.is_empty() {
                "nobody".to_owned()
            } else {
                names(&o.changed_minds)
            };
            line(w, &format!("- Changed their minds: {changed}"));
        }
        (Some(o), _) => {
            line(w, &format!("## Decision: {}", o.label()));
            line(w, "");
            line(w, &inline(o.reasoning()));
        }
        (None, Some(reason)) => {
            line(w, "## Interrupted");
            line(w, "");
            line(w, &inline(reason));
        }
        (None, None) => line(w, "## Still running — no decision yet"),
    }
    // QL-1: the plain vote of the first positions beside the decision.
    if let Some(b) = audit
        .view
        .decision
        .as_ref()
        .and_then(Outcome::vote_baseline)
    {
        line(w, "");
        line(w, &format!("**Vote baseline.** {}", inline(&b.sentence())));
        for m in &b.moved {
            line(
                w,
                &format!(
                    "- {} moved {} the verdict: {} → {}",
                    display_name(&m.agent),
                    if m.toward { "toward" } else { "away from" },
                    cell(&m.from),
                    cell(&m.to)
                ),
            );
        }
    }

    match audit.view.protocol.as_str() {
        "round_robin" => round_robin(w, &audit.view),
        "collapse" => collapse(w, &audit.view),
        "escalation" => escalation::escalation(w, &audit.view),
        "reconcile" => reconcile::reconcile(w, &audit.view),
        _ => journeys(w, &audit),
    }

    if !audit.view.s4.challenges.is_empty() {
        line(w, "");
        line(w, "## Round 2: cross-challenges");
        line(w, "");
        line(w, "| # | From | To | Argues for | Challenge |");
        line(w, "|---|---|---|---|---|");
        for c in &audit.view.s4.challenges {
            line(
                w,
                &format!(
                    "| {} | {} | {} | {} | {} |",
                    c.seq,
                    display_name(&c.from),
                    display_name(&c.to),
                    c.argues_for,
                    cell(&c.text)
                ),
            );
        }
    }

    line(w, "");
    line(w, "## Timeline");
    line(w, "");
    line(w, "| Seq | Time (UTC) | Event | What happened | Hash |");
    line(w, "|---|---|---|---|---|");
    for e in &audit.timeline {
        line(
            w,
            &format!(
                "| {} | {} | {} | {} | `{}` |",
                e.seq,
                cell(&e.ts),
                e.kind,
                cell(&e.summary),
                e.hash.get(..12).unwrap_or(&e.hash)
            ),
        );
    }

    line(w, "");
    line(w, "## Integrity");
    line(w, "");
    for l in verdict.details() {
        line(w, &format!("- {}", inline(&l)));
    }
    if let Some(last) = detail.events.last() {
        line(w, &format!("- Last hash: `{}`", last.hash));
    }
    line(w, "");
    line(
        w,
        "Re-check it yourself: `consilium verify export.json`, or open the export in the offline viewer.",
    );
    // A report a person reads: no invisible or direction-changing characters.
    crate::protocol::normalise::strip_invisible(&md)
}

fn journeys(w: &mut String, audit: &Audit) {
    line(w, "");
    line(w, "## Agents: before and after the challenges");
    for j in &audit.view.s4.journeys {
        line(w, "");
        line(
            w,
            &format!(
                "### {} ({})",
                j.agent.display_name(),
                j.agent.role.question()
            ),
        );
        line(w, "");
        if let Some(p) = &j.initial {
            line(w, &format!("- **Round 1, independent:** {}", position(p)));
        }
        if let Some(r) = &j.revision {
            let head = if r.changed {
                "changed its mind"
            } else {
                "kept its position"
            };
            line(
                w,
                &format!(
                    "- **Round 3, revision — {head}:** {} → {}",
                    short_position(&r.before),
                    position(&r.after)
                ),
            );
        }
        if let Some(v) = &j.vote {
            // The vote usually restates the revision; say so instead of repeating it.
            let why = if j
                .revision
                .as_ref()
                .is_some_and(|r| r.after.reasoning == v.reasoning)
            {
                "as stated in its revision".to_owned()
            } else {
                inline(&v.reasoning)
            };
            line(
                w,
                &format!(
                    "- **Round 4, vote:** {} (confidence {}, risk {}) — {why}",
                    v.decision, v.confidence, v.risk
                ),
            );
        }
        for f in &j.failures {
            line(w, &format!("- **Failure:** {}", inline(f)));
        }
    }
}

/// RR: the trigger verdict, each round's consensus check and the turns per agent.
fn round_robin(w: &mut String, view: &crate::protocol::DebateView) {
    if let Some(t) = &view.rr.trigger {
        line(w, "");
        line(w, &format!("**Trigger check:** {}", inline(&t.explanation)));
    }
    line(w, "");
    line(w, "## Consensus check per round");
    line(w, "");
    line(
        w,
        "| Round | BUY | SELL | HOLD | Leading | Agreement | Reached | Verdict |",
    );
    line(w, "|---|---|---|---|---|---|---|---|");
    for c in &view.rr.checks {
        line(
            w,
            &format!(
                "| {} | {} | {} | {} | {} | {}% | {} | {} |",
                c.round,
                c.stance_counts.buy,
                c.stance_counts.sell,
                c.stance_counts.hold,
                c.leading,
                c.agreement_percentage,
                if c.reached { "yes" } else { "no" },
                cell(&c.verdict)
            ),
        );
    }
    line(w, "");
    line(w, "## Turns");
    for r in &view.rounds {
        line(w, "");
        line(w, &format!("### Round {}: {}", r.round, inline(&r.name)));
        line(w, "");
        for c in &r.cards {
            line(
                w,
                &format!(
                    "- **{}** {} — {}",
                    display_name(&c.agent),
                    inline(&c.title),
                    inline(&c.body)
                ),
            );
        }
    }
}

/// WC: every card with each term of its score, its verification and gates; the panel's C.
fn collapse(w: &mut String, view: &crate::protocol::DebateView) {
    line(w, "");
    line(w, "## Position cards (latest revision)");
    line(w, "");
    line(
        w,
        "| Position | Rev | E | R | v | k/100 | γ | I | S | Verifier | Gates |",
    );
    line(w, "|---|---|---|---|---|---|---|---|---|---|---|");
    for p in &view.wc.positions {
        let s = &p.latest.score;
        let verifier =
            p.verified
                .as_ref()
                .map_or("—", |v| if v.approve { "approves" } else { "rejects" });
        let gates = p.gates.as_ref().map_or_else(
            || "—".to_owned(),
            |g| format!("{:?}", g.verdict).to_lowercase(),
        );
        line(
            w,
            &format!(
                "| {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {:.2} | {verifier} | {gates} |",
                cell(&p.latest.position),
                p.latest.revision,
                s.e, s.r, s.v, s.k, s.gamma, s.i, s.total
            ),
        );
    }
    line(w, "");
    line(w, "## Convergence and reflexion");
    line(w, "");
    for c in &view.wc.convergences {
        line(w, &format!("- {}", inline(&c.reason)));
    }
    for r in &view.wc.reflexions {
        line(
            w,
            &format!(
                "- **Reflexion {}:** {}",
                r.attempt,
                inline(&r.triggers.join("; "))
            ),
        );
    }
    for p in &view.wc.panel_scores {
        line(w, "");
        line(w, "## Consensus panel");
        line(w, "");
        for c in &p.consensus {
            line(w, &format!("- C({}) = {:.3}", inline(&c.position), c.score));
        }
        line(w, &format!("- {}", inline(&p.rule)));
    }
}

fn line(out: &mut String, s: &str) {
    let _ = writeln!(out, "{s}");
}

fn names(ids: &[String]) -> String {
    ids.iter()
        .map(|a| display_name(a))
        .collect::<Vec<_>>()
        .join(", ")
}

fn position(p: &Position) -> String {
    format!("{} — {}", short_position(p), inline(&p.reasoning))
}

fn short_position(p: &Position) -> String {
    format!(
        "{} (confidence {}, risk {})",
        p.decision, p.confidence, p.risk
    )
}

/// Text from agents or users, made safe for one Markdown line: no raw HTML, no line breaks, and
/// no link, image, emphasis or code syntax (a query like `[approved](https://…)` stays literal).
/// Bare URLs may still be auto-linked by some renderers; they show their own address.
fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for ch in s.chars() {
        match ch {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\r' => {}
            '\n' => out.push(' '),
            '\\' | '[' | ']' | '!' | '*' | '_' | '`' | '~' => {
                out.push('\\');
                out.push(ch);
            }
            c => out.push(c),
        }
    }
    out
}

/// As [`inline`], for a table cell: pipes escaped too.
fn cell(s: &str) -> String {
    inline(s).replace('|', "\\|")
}
