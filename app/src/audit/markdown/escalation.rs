//! ES's part of `export.md`: each challenge's climb up the ladder, and the analyses.

use super::{inline, line};
use crate::protocol::types::display_name;

/// ES: each challenge's climb and how it was resolved, then the assumptions the analyses used.
pub(super) fn escalation(w: &mut String, view: &crate::protocol::DebateView) {
    use crate::protocol::escalation::{assumption, show_seconds as show};
    let shown = |key: &str, v: f64| assumption(key).map_or_else(|| v.to_string(), |a| a.show(v));
    line(w, "");
    line(w, "## Challenges and the escalation ladder");
    line(w, "");
    if view.es.challenges.is_empty() {
        line(
            w,
            "The specialists agreed on every assumption: no challenge was raised.",
        );
    }
    for c in &view.es.challenges {
        let ch = &c.challenge;
        line(
            w,
            &format!(
                "- **{}** ({}, {}): {} challenges {}: {} against {}",
                ch.id,
                ch.assumption,
                ch.priority.as_str(),
                display_name(&ch.challenger),
                display_name(&ch.challenged),
                shown(&ch.assumption, ch.challenger_value),
                shown(&ch.assumption, ch.challenged_value)
            ),
        );
        for (at, level, why) in &c.climbs {
            line(
                w,
                &format!("  - +{} → level {level}: {}", show(*at), inline(why)),
            );
        }
        match &c.resolution {
            Some(r) => line(
                w,
                &format!(
                    "  - {} at level {}: {} ({}){}",
                    if r.provisional {
                        "Provisional"
                    } else {
                        "Resolved"
                    },
                    r.level,
                    shown(&r.assumption, r.position),
                    inline(&r.method),
                    r.review_by
                        .map(|t| format!(", review by +{}", show(t)))
                        .unwrap_or_default()
                ),
            ),
            None => line(w, &format!("  - Open: {}", inline(&c.stage))),
        }
    }
    if !view.es.impacts.is_empty() {
        line(w, "");
        line(w, "## Gate reviews (L5)");
        line(w, "");
    }
    for i in &view.es.impacts {
        let r = &i.report;
        line(
            w,
            &format!(
                "- Judge {} overrode **{}** ({}): {} → {}. Re-run plan ({}): {}.",
                inline(&i.judge),
                i.challenge,
                r.assumption,
                shown(&r.assumption, r.old_value),
                shown(&r.assumption, r.new_value),
                r.plan.strategy,
                if r.plan.required.is_empty() {
                    "none required".to_owned()
                } else {
                    r.plan.required.join(", ")
                }
            ),
        );
        for m in &r.impacts {
            line(
                w,
                &format!(
                    "  - {}: {} → {}{}",
                    m.analysis,
                    m.old,
                    m.new,
                    if m.requires_rerun { " (re-run)" } else { "" }
                ),
            );
        }
    }
    if let Some(a) = view.es.analyses.last() {
        line(w, "");
        line(w, "| Assumption | Value |");
        line(w, "|---|---|");
        for (k, v) in &a.assumptions.0 {
            line(w, &format!("| {k} | {} |", shown(k, *v)));
        }
    }
}
