//! UI-5 for WC: [`what_if`] re-runs the rules on the logged cards, verifications and panel
//! scores under other parameters.

use serde::{Deserialize, Serialize};

use super::params::WcParams;
use super::recompute::started_authors;
use super::rules::PanelVerdict;
use super::tally::Tally;
use super::types::{CardSource, Ranked, Step, WcOutcomeKind};
use crate::collapse::{WcEntry, WcEvent};
use crate::shared::Seen;

/// What the judge's changed parameters would decide, from what the log holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WhatIf {
    /// `None` when the new parameters need agents that were not called in this debate.
    pub outcome: Option<WcOutcomeKind>,
    pub chosen: Option<String>,
    /// S of every final card under the new weights, highest first.
    pub scores: Vec<Ranked>,
    pub consensus: Vec<Ranked>,
    pub steps: Vec<String>,
    pub unknown: Option<String>,
}

/// UI-5: re-scores the final cards, re-runs the gates and the convergence (with the reflexions
/// the log already holds), and — when the panel ran on the same positions — C and WC-6.
#[allow(clippy::too_many_lines)] // the WC steps replayed in the spec's order
pub fn what_if(events: &[WcEntry<'_>], params: &WcParams) -> WhatIf {
    let mut t = Tally::new(params.clone());
    let mut logged_panel = Vec::new();
    let mut logged_candidates: Vec<String> = Vec::new();
    let mut reflexions = 0;
    let mut authors = Vec::new();
    for e in events {
        match e.body {
            Seen::Started { .. } => authors = started_authors(e.body),
            Seen::Own(WcEvent::CardSubmitted(c)) if c.source != CardSource::Hybrid => {
                t.submit(c.round, &c.position, c.card.clone(), c.source);
            }
            Seen::Own(WcEvent::CardVerified(v)) => t.verify(&v.position, v.approve),
            Seen::Own(WcEvent::ReflexionStarted(_)) => reflexions += 1,
            Seen::Own(WcEvent::PanelEvaluated(p))
                if logged_panel.len() < params.panel.len() && logged_candidates.is_empty() =>
            {
                let seat = params.panel.iter().position(|s| s.role == p.role);
                logged_panel.push((seat.unwrap_or(usize::MAX), p.weight, p.evaluation.clone()));
            }
            Seen::Own(WcEvent::PanelScored(p)) if logged_candidates.is_empty() => {
                logged_candidates = p.consensus.iter().map(|r| r.position.clone()).collect();
            }
            _ => {}
        }
    }
    // LM-1: in author and seat order, as the machine held them.
    t.order_held(&authors);
    logged_panel.sort_by_key(|(seat, ..)| *seat);
    let logged_panel: Vec<_> = logged_panel.into_iter().map(|(_, w, e)| (w, e)).collect();
    let mut scores: Vec<Ranked> = t
        .held
        .iter()
        .map(|h| Ranked {
            position: h.id.clone(),
            score: h.total,
        })
        .collect();
    scores.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut out = WhatIf {
        outcome: None,
        chosen: None,
        scores,
        consensus: vec![],
        steps: vec![],
        unknown: None,
    };
    t.gate_all(0);
    t.reflexions = reflexions;
    let c = t.converge(0);
    out.steps.push(c.reason.clone());
    match c.step {
        Step::Accept => {
            out.outcome = Some(WcOutcomeKind::Accepted);
            out.chosen = c.ranking.first().map(|r| r.position.clone());
        }
        Step::Human => out.outcome = Some(WcOutcomeKind::EscalatedToHuman),
        Step::Reflexion => {
            out.unknown = Some("these parameters call for another reflexion loop, which would re-ask the authors; it did not run in this debate".into());
        }
        Step::Panel => {
            let mut wanted = t.candidates.clone();
            wanted.sort();
            let mut had = logged_candidates.clone();
            had.sort();
            if logged_panel.is_empty() || wanted != had {
                out.unknown = Some(format!(
                    "these parameters send {} to the consensus panel, which did not score exactly these positions in this debate",
                    t.candidates.join(", ")
                ));
                return out;
            }
            // The panel's seat weights may have changed: re-weight the logged evaluations.
            t.panel = logged_panel
                .into_iter()
                .zip(&params.panel)
                .map(|((_, e), seat)| (seat.weight, e))
                .collect();
            let (scored, verdict) = t.score_panel(0);
            out.consensus = scored.consensus;
            out.steps.push(scored.rule);
            match verdict {
                PanelVerdict::Consensus(id) => {
                    out.outcome = Some(WcOutcomeKind::ConsensusReached);
                    out.chosen = Some(id);
                }
                PanelVerdict::Escalate => out.outcome = Some(WcOutcomeKind::EscalatedToHuman),
                PanelVerdict::Fallback(id) => {
                    out.outcome = Some(WcOutcomeKind::SafeFallback);
                    out.chosen = Some(id);
                }
                PanelVerdict::Hybrid(a, b) => {
                    let logged_pair = events.iter().find_map(|e| match e.body {
                        Seen::Own(WcEvent::HybridSynthesized(h)) => Some(h.from.clone()),
                        _ => None,
                    });
                    if logged_pair == Some(vec![a.clone(), b.clone()]) {
                        let logged = events.iter().rev().find_map(|e| match e.body {
                            Seen::Decided(o) => Some(o.outcome),
                            _ => None,
                        });
                        out.outcome = logged;
                        out.chosen = Some("hybrid".into());
                        out.steps.push(
                            "the hybrid of the same two positions was re-scored in this debate"
                                .into(),
                        );
                    } else {
                        out.unknown = Some(format!("a hybrid of {a} and {b} would need the panel to re-score it; that did not run in this debate"));
                    }
                }
            }
        }
    }
    out
}
