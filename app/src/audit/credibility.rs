//! CR-4 in verify and the audit: the credibility-weighted what-if recomputed from the logged
//! snapshot and the logged votes or positions, so the same numbers come out however the record
//! has grown since.

use crate::protocol::credibility::CredibilitySnapshot;
use crate::protocol::event::{entries, DebateEvent};
use crate::protocol::round_robin::{self as rr, RrWhatIfRules};
use crate::protocol::s4::{self as s4, S4Event, S4WhatIfRules};
use crate::protocol::types::display_name;
use crate::protocol::{Event, EventBody, Outcome};

/// The lines `verify` prints about credibility: the panel's effective votes and, for S4 and
/// round-robin, the decision with every vote weighted by its logged credibility. Empty for a
/// log without a snapshot.
pub fn credibility_lines(events: &[Event]) -> Vec<String> {
    let Some(snapshot) = CredibilitySnapshot::in_log(events) else {
        return Vec::new();
    };
    let mut lines = vec![format!(
        "credibility: logged at the start ({}); effective votes: {}",
        snapshot.as_of, snapshot.effective.note
    )];
    let weights = snapshot.weights();
    let used = weights
        .iter()
        .map(|(a, w)| format!("{} {w:.3}", display_name(a)))
        .collect::<Vec<_>>()
        .join(", ");
    let logged = events.iter().rev().find_map(|e| match &e.body {
        EventBody::Debate(DebateEvent::Decision(o)) => Some(o),
        _ => None,
    });
    let weighted = match logged {
        Some(Outcome::S4(o)) => {
            let votes: Vec<_> = events
                .iter()
                .filter_map(|e| match &e.body {
                    EventBody::S4(S4Event::Vote { vote, .. }) => Some(vote.clone()),
                    _ => None,
                })
                .collect();
            let knobs = S4WhatIfRules {
                weights: weights.clone(),
                ..S4WhatIfRules::defaults(&votes)
            };
            let w = s4::what_if(&votes, &knobs);
            Some((o.decision.as_str(), w.decision.as_str(), w.reasoning))
        }
        Some(Outcome::RoundRobin(o)) => RrWhatIfRules::defaults(&entries(events)).map(|d| {
            let knobs = RrWhatIfRules {
                weights: weights.clone(),
                ..d
            };
            let w = rr::what_if(&entries(events), &knobs);
            (o.stance.as_str(), w.stance.as_str(), w.reasoning)
        }),
        _ => None,
    };
    if let Some((logged, now, why)) = weighted {
        lines.push(format!(
            "credibility-weighted what-if (weights {used}): {now}{} — {why}",
            if now == logged {
                " (unchanged)".to_owned()
            } else {
                format!(" (the log decided {logged})")
            }
        ));
    }
    lines
}
