//! SV-2 for WC: replaying a log through the same rules. [`recompute`] checks every logged score,
//! gate, ranking, panel score and the outcome.

use super::machine::WcEmit;
use super::params::WcParams;
use super::rules::PanelVerdict;
use super::tally::Tally;
use super::types::{judge_reason, HumanDecision, Step, WcOutcome, WcOutcomeKind};
use crate::collapse::{WcEntry, WcEvent};
use crate::shared::judging::RulingError;
use crate::shared::{CommonEvent, Emit, Seen};

/// Replays the log; the first logged step that the rules do not reproduce is an error naming its
/// event.
pub fn recompute(events: &[WcEntry<'_>]) -> Result<WcOutcome, String> {
    replay(events).map(|(_, outcome)| outcome)
}

/// ES-12: judge `judge` decides a debate escalated to a human by choosing position `chosen`:
/// the `human_decision` and the judge's `decision` to append (its vote baseline is the
/// runner's). Refused by name: a rationale is required, the position must be one of the
/// debate's, and only a debate whose decision is ESCALATED_TO_HUMAN takes it.
pub fn decide(
    events: &[WcEntry<'_>],
    judge: &str,
    chosen: &str,
    rationale: &str,
) -> Result<Vec<WcEmit>, RulingError> {
    let rationale = rationale.trim();
    if rationale.is_empty() {
        return Err(RulingError::Invalid("a decision needs a rationale".into()));
    }
    let (t, last) = replay(events).map_err(RulingError::Conflict)?;
    if last.outcome != WcOutcomeKind::EscalatedToHuman {
        return Err(RulingError::Conflict(format!(
            "the debate was decided ({}); only a debate escalated to a human takes a judge's \
             decision",
            last.outcome.as_str()
        )));
    }
    if t.held(chosen).is_none() {
        let ids: Vec<&str> = t.held.iter().map(|h| h.id.as_str()).collect();
        return Err(RulingError::Invalid(format!(
            "no position '{chosen}' in this debate: choose one of {}",
            ids.join(", ")
        )));
    }
    let mut outcome = t.outcome(
        WcOutcomeKind::DecidedByJudge,
        Some(chosen.to_owned()),
        judge_reason(judge, rationale),
    );
    outcome.budget_exhausted = last.budget_exhausted;
    Ok(vec![
        Emit::Own(WcEvent::HumanDecision(HumanDecision {
            judge: judge.to_owned(),
            chosen: chosen.to_owned(),
            rationale: rationale.to_owned(),
        })),
        Emit::Decided(outcome),
    ])
}

/// The tally after the whole log and its last decision, recomputed and checked step by step.
#[allow(clippy::too_many_lines)] // one arm per WC event kind
fn replay(events: &[WcEntry<'_>]) -> Result<(Tally, WcOutcome), String> {
    let mut decided: Option<WcOutcome> = None;
    let mut t: Option<Tally> = None;
    let mut pending: Option<(WcOutcomeKind, Option<String>, String)> = None;
    let mut in_hybrid = false;
    let mut cut = false;
    let mut authors = Vec::new();
    for e in events {
        let differs = |what: &str| {
            format!("event {}: the logged {what} differs from the one the rules give for the logged inputs", e.seq)
        };
        if let Seen::Started { config, .. } = e.body {
            let Some(p) = config else {
                return Err("the log does not record collapse parameters".into());
            };
            t = Some(Tally::new(p.clone()));
            authors = started_authors(e.body);
            continue;
        }
        let Some(t) = t.as_mut() else { continue };
        // LM-1: a step's cards are held in author order once the step is complete, as the
        // machine holds them.
        if !matches!(
            e.body,
            Seen::Own(WcEvent::CardSubmitted(_)) | Seen::Own(WcEvent::CardVerified(_))
        ) {
            t.order_held(&authors);
        }
        match e.body {
            Seen::Own(WcEvent::CardSubmitted(c)) => {
                let again = t.submit(c.round, &c.position, c.card.clone(), c.source);
                if again != **c {
                    return Err(differs("card score (or revision number)"));
                }
            }
            Seen::Own(WcEvent::CardVerified(v)) => t.verify(&v.position, v.approve),
            Seen::Own(WcEvent::GatesChecked(g)) => {
                // Gates are logged for every position in order; check this one.
                let again = t.gate_all(g.round);
                if !again.contains(g) {
                    return Err(differs(&format!("gates of {}", g.position)));
                }
            }
            Seen::Own(WcEvent::ReflexionStarted(_)) => t.reflexions += 1,
            Seen::Common(CommonEvent::BudgetExhausted { round, .. }) => {
                cut = true;
                pending = Some((
                    WcOutcomeKind::EscalatedToHuman,
                    None,
                    super::budget_reason(*round),
                ));
            }
            Seen::Own(WcEvent::Converged(c)) => {
                // Reflexion counts are bumped when the reflexion starts; convergence sees the
                // number done before it.
                let again = t.converge(c.round);
                if &again != c {
                    return Err(differs("convergence step"));
                }
                pending = match c.step {
                    Step::Accept => Some((
                        WcOutcomeKind::Accepted,
                        c.ranking.first().map(|r| r.position.clone()),
                        c.reason.clone(),
                    )),
                    Step::Human => Some((WcOutcomeKind::EscalatedToHuman, None, c.reason.clone())),
                    _ => None,
                };
            }
            Seen::Own(WcEvent::PanelEvaluated(p)) => {
                let seat = t.params.panel.iter().position(|s| s.role == p.role);
                let seat = seat.unwrap_or(usize::MAX);
                t.evaluate(in_hybrid, seat, p.weight, p.evaluation.clone());
            }
            Seen::Own(WcEvent::PanelScored(p)) if in_hybrid => {
                let (again, ok) = t.score_hybrid(p.round);
                if &again != p {
                    return Err(differs("hybrid re-score"));
                }
                pending = Some(if ok {
                    (
                        WcOutcomeKind::HybridSynthesized,
                        Some("hybrid".into()),
                        p.rule.clone(),
                    )
                } else {
                    (
                        WcOutcomeKind::SafeFallback,
                        Some(t.safest()),
                        p.rule.clone(),
                    )
                });
            }
            Seen::Own(WcEvent::PanelScored(p)) => {
                let (again, verdict) = t.score_panel(p.round);
                if &again != p {
                    return Err(differs("panel consensus scores"));
                }
                pending = match verdict {
                    PanelVerdict::Consensus(id) => {
                        Some((WcOutcomeKind::ConsensusReached, Some(id), p.rule.clone()))
                    }
                    PanelVerdict::Escalate => {
                        Some((WcOutcomeKind::EscalatedToHuman, None, p.rule.clone()))
                    }
                    PanelVerdict::Fallback(id) => {
                        Some((WcOutcomeKind::SafeFallback, Some(id), p.rule.clone()))
                    }
                    PanelVerdict::Hybrid(..) => None,
                };
            }
            Seen::Own(WcEvent::HybridSynthesized(h)) => {
                let (a, b) = match h.from.as_slice() {
                    [a, b] => (a.clone(), b.clone()),
                    _ => return Err(differs("hybrid")),
                };
                match t.synthesize(&a, &b) {
                    Some((card, score)) if card == h.card && score == h.score => {}
                    _ => return Err(differs("hybrid card")),
                }
                in_hybrid = true;
            }
            Seen::Decided(logged) => {
                let (kind, chosen, why) = pending
                    .take()
                    .ok_or_else(|| differs("decision (no rule led to one)"))?;
                let mut again = t.outcome(kind, chosen, why);
                again.budget_exhausted = cut;
                // QL-1's baseline beside the decision is checked on its own (recompute_decision).
                let mut logged = logged.clone();
                logged.vote_baseline = None;
                if again != logged {
                    return Err(format!(
                        "the logged decision {} differs from the one recomputed from the cards and panel: {} ({})",
                        logged.outcome.as_str(),
                        again.outcome.as_str(),
                        again.chosen.as_deref().unwrap_or("none")
                    ));
                }
                decided = Some(again);
            }
            Seen::Own(WcEvent::HumanDecision(h)) => {
                match &decided {
                    Some(d) if d.outcome == WcOutcomeKind::EscalatedToHuman => {}
                    _ => {
                        return Err(format!(
                            "event {}: a judge's decision for a debate that was not escalated to \
                             a human",
                            e.seq
                        ))
                    }
                }
                if t.held(&h.chosen).is_none() {
                    return Err(format!(
                        "event {}: judge {} chose '{}', which is not a position of this debate",
                        e.seq, h.judge, h.chosen
                    ));
                }
                pending = Some((
                    WcOutcomeKind::DecidedByJudge,
                    Some(h.chosen.clone()),
                    judge_reason(&h.judge, &h.rationale),
                ));
            }
            _ => {}
        }
    }
    match (t, decided) {
        (Some(t), Some(d)) => Ok((t, d)),
        _ => Err("the log has no decision event (the debate did not finish)".into()),
    }
}

/// The authors of a collapse, from its `debate_started` (the panel's seats are not authors).
pub(super) fn started_authors(body: Seen<'_, WcEvent, WcParams, WcOutcome>) -> Vec<String> {
    match body {
        Seen::Started { agents, .. } => agents
            .iter()
            .filter(|a| a.role == crate::types::Role::Author)
            .map(|a| a.id.clone())
            .collect(),
        _ => Vec::new(),
    }
}
