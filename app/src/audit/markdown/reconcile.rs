//! RC's part of `export.md` (RC-5): each topic with its observations and why they were grouped,
//! then its belief with the weights and the reasoning — a report that answers "why do we
//! believe this?" without the log.

use super::{cell, inline, line};
use crate::protocol::DebateView;

pub(super) fn reconcile(w: &mut String, view: &DebateView) {
    let rc = &view.rc;
    line(w, "");
    line(w, "## Topics and beliefs");
    line(w, "");
    match (&rc.model, rc.params) {
        (Some((model, dim)), Some(p)) => line(
            w,
            &format!(
                "{} observations grouped by the embeddings of `{}` ({dim} dimensions{}); {} at \
                 least {:.2}.{}",
                rc.observations.len(),
                inline(model),
                if rc.lexical() {
                    "; the lexical fallback: shared words, not meaning"
                } else {
                    ""
                },
                if p.linkage.is_centroid() {
                    "an observation joins a topic when its cosine similarity with the topic's \
                     centroid is"
                } else {
                    "centred on their mean, topics join while their average pairwise similarity is"
                },
                p.similarity_threshold,
                p.reports_note()
            ),
        ),
        _ => line(
            w,
            "The observations were not grouped (the reconciliation did not get that far).",
        ),
    }
    for t in &rc.topics {
        topic(w, rc, t);
    }
}

/// One topic: its members and why, then its belief, weights and reasoning.
fn topic(
    w: &mut String,
    rc: &crate::protocol::reducer::RcState,
    t: &crate::protocol::reconcile::Topic,
) {
    {
        line(w, "");
        line(
            w,
            &format!(
                "### {} — {}{}",
                t.topic,
                inline(&t.label),
                if t.potential_conflict {
                    " (potential conflict)"
                } else {
                    ""
                }
            ),
        );
        line(w, "");
        for m in &t.members {
            let content = rc.observation(&m.id).map_or("", |o| o.content.as_str());
            line(
                w,
                &format!(
                    "- `{}` {}: {} — {}",
                    m.id,
                    inline(&m.agent),
                    inline(content),
                    inline(&m.why)
                ),
            );
        }
        let Some(b) = rc.belief(&t.topic) else {
            line(w, "");
            line(w, "No belief was reached for this topic.");
            return;
        };
        line(w, "");
        match (&b.consolidated_belief, &b.clarification_question) {
            (Some(belief), _) if !b.needs_clarification => line(
                w,
                &format!(
                    "**Belief** (confidence {:.2}): {}",
                    b.confidence,
                    inline(belief)
                ),
            ),
            (_, Some(q)) => line(w, &format!("**Needs clarification:** {}", inline(q))),
            _ => line(w, "**Needs clarification.**"),
        }
        line(w, "");
        line(w, &format!("**Why:** {}", inline(&b.reasoning)));
        if let Some(r) = &b.unresolved {
            line(w, "");
            line(w, &format!("The reply could not be used: {}", inline(r)));
        }
        line(w, "");
        line(
            w,
            "| Observation | Agent | Credibility | Authority | Weight | Why |",
        );
        line(w, "|---|---|---|---|---|---|");
        for wt in &b.weights {
            line(
                w,
                &format!(
                    "| {} | {} | {:.2} | {:.2} | {:.3} | {} |",
                    cell(&wt.observation),
                    cell(&wt.agent),
                    wt.credibility,
                    wt.authority,
                    wt.weight,
                    cell(&wt.why)
                ),
            );
        }
        line(w, "");
        line(w, &format!("Answered by {}.", inline(&b.by)));
    }
}
