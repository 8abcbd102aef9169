//! SV-2 for the escalation pipeline: what `verify`, the audit view and the viewer run on a
//! logged debate. From the logged findings it recomputes the challenges (ES-2); it checks every
//! provisional value is the most cautious on the table (ES-6) and every facilitator ruling
//! follows ES-4 with the logged credibility; and it recomputes the analyses and the decision
//! from the final assumptions.

use std::collections::VecDeque;

use super::analysis::{compute, GRAPH};
use super::assumptions::{assumption, Assumptions};
use super::impact::impact;
use super::ladder::{facilitate, JudgeAction, Resolution, Side};
use super::messages::Challenge;
use super::rules::{disputes, final_assumptions, logged_finding, outcome, silent};
use super::types::{AnalysisRun, EsOutcome, EsParams, Estimate, JudgeRuling};
use crate::credibility::CredibilitySnapshot;
use crate::escalation::{EsEntry, EsEvent};
use crate::shared::{CommonEvent, Seen};
use crate::types::AgentSpec;

/// Replays the log; the recomputed outcome, or the first step that does not follow.
pub fn recompute(events: &[EsEntry<'_>]) -> Result<EsOutcome, String> {
    let mut agents: Vec<AgentSpec> = Vec::new();
    let mut params = EsParams::default();
    let mut estimates: Vec<Vec<Estimate>> = Vec::new();
    let mut raised: Vec<(u64, Challenge)> = Vec::new();
    let mut resolutions: Vec<Resolution> = Vec::new();
    let mut credibility: Option<&CredibilitySnapshot> = None;
    let mut rulings: Vec<&JudgeRuling> = Vec::new();
    let mut cut = false;
    // ES-8: the assumptions the last analysis used, and the re-runs an impact plan still owes.
    let mut analysed: Option<&Assumptions> = None;
    let mut plan: VecDeque<Vec<String>> = VecDeque::new();
    for e in events {
        match e.body {
            Seen::Started {
                agents: a, config, ..
            } => {
                agents = a.to_vec();
                estimates = vec![Vec::new(); a.len()];
                if let Some(p) = config {
                    params = *p;
                }
            }
            Seen::Common(CommonEvent::Credibility(s)) => credibility = Some(s),
            Seen::Own(EsEvent::Message { round: 1, message }) => {
                if let Some((i, estimate)) = logged_finding(&agents, message) {
                    estimates[i].push(estimate);
                }
            }
            Seen::Own(EsEvent::ChallengeRaised { at, challenge }) => {
                raised.push((*at, (**challenge).clone()))
            }
            Seen::Own(EsEvent::JudgeRuling(j)) => {
                if matches!(j.action, JudgeAction::Redebate { .. }) {
                    resolutions.retain(|x| x.challenge != j.challenge);
                }
                rulings.push(j);
            }
            Seen::Own(EsEvent::ChallengeResolved(r))
            | Seen::Own(EsEvent::ProvisionalDecision(r)) => {
                check_resolution(e.seq, &r.resolution, &raised, credibility)?;
                check_ruling(e.seq, &r.resolution, &rulings, &resolutions)?;
                resolutions.retain(|x| x.challenge != r.resolution.challenge);
                resolutions.push(r.resolution.clone());
            }
            Seen::Own(EsEvent::Analysis(a)) => {
                check_analysis(e.seq, &params, a, &mut plan)?;
                analysed = Some(&a.assumptions);
            }
            Seen::Own(EsEvent::Impact(run)) => {
                let before = analysed
                    .ok_or_else(|| format!("event {}: an impact before any analysis", e.seq))?;
                let r = &run.report;
                let want = impact(&GRAPH, &params.company, before, &r.assumption, r.new_value)
                    .map_err(|err| format!("event {}: {err}", e.seq))?;
                if want != *r {
                    return Err(format!(
                        "event {}: the logged impact of {} on {} is not what ES-8 gives",
                        e.seq, run.challenge, r.assumption
                    ));
                }
                plan = want.plan.batches.into();
            }
            Seen::Decided(_) if !plan.is_empty() => {
                return Err(format!(
                    "event {}: the decision comes before the re-runs its impact plan requires \
                     ({})",
                    e.seq,
                    plan.iter()
                        .flatten()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            Seen::Common(CommonEvent::BudgetExhausted { .. }) => cut = true,
            _ => {}
        }
    }
    if let Some((at, _)) = raised.first() {
        let want = disputes(&agents, &estimates, *at);
        let got: Vec<Challenge> = raised.iter().map(|(_, c)| c.clone()).collect();
        if want != got {
            return Err(format!(
                "the logged challenges ({}) are not the disagreements in the logged findings ({})",
                names(&got),
                names(&want)
            ));
        }
    }
    let assumptions = final_assumptions(&agents, &estimates, &resolutions);
    let silent = silent(&agents, &estimates);
    Ok(outcome(
        &params.company,
        assumptions,
        resolutions,
        cut,
        &silent,
    ))
}

/// ES-8: a logged analysis is what the calculators give for its assumptions, and a re-run is
/// the next batch of the impact plan before it.
fn check_analysis(
    seq: u64,
    params: &EsParams,
    a: &AnalysisRun,
    plan: &mut VecDeque<Vec<String>>,
) -> Result<(), String> {
    let want = compute(&params.company, &a.assumptions).map_err(|e| format!("event {seq}: {e}"))?;
    if want != a.results {
        return Err(format!(
            "event {seq}: the logged analysis is not what the calculators give for its assumptions"
        ));
    }
    if !a.rerun.is_empty() && plan.pop_front().as_ref() != Some(&a.rerun) {
        return Err(format!(
            "event {seq}: re-runs {} that the impact plan did not call for",
            a.rerun.join(", ")
        ));
    }
    Ok(())
}

/// ES-7: a resolution by a judge follows that judge's logged ruling: an override applies the
/// ruled value, a confirmation the provisional one it confirms.
fn check_ruling(
    seq: u64,
    r: &Resolution,
    rulings: &[&JudgeRuling],
    before: &[Resolution],
) -> Result<(), String> {
    if !r.method.contains("by judge") {
        return Ok(());
    }
    let Some(j) = rulings.iter().rev().find(|j| j.challenge == r.challenge) else {
        return Err(format!(
            "event {seq}: {} is resolved by a judge, but no judge's ruling is logged",
            r.challenge
        ));
    };
    let want = match &j.action {
        JudgeAction::Override { value, .. } => Some(*value),
        JudgeAction::Confirm => before
            .iter()
            .find(|b| b.challenge == r.challenge && b.provisional)
            .map(|b| b.position),
        JudgeAction::Redebate { .. } => None,
    };
    if want != Some(r.position) || !r.method.ends_with(&format!("judge {}", j.judge)) {
        return Err(format!(
            "event {seq}: the resolution of {} does not follow judge {}'s logged ruling",
            r.challenge, j.judge
        ));
    }
    Ok(())
}

fn names(cs: &[Challenge]) -> String {
    if cs.is_empty() {
        return "none".into();
    }
    cs.iter()
        .map(|c| format!("{} on {}", c.id, c.assumption))
        .collect::<Vec<_>>()
        .join(", ")
}

/// ES-6 and ES-4 for one logged resolution.
fn check_resolution(
    seq: u64,
    r: &Resolution,
    raised: &[(u64, Challenge)],
    credibility: Option<&CredibilitySnapshot>,
) -> Result<(), String> {
    let Some((_, c)) = raised.iter().find(|(_, c)| c.id == r.challenge) else {
        return Err(format!(
            "event {seq} resolves {}, which was never raised",
            r.challenge
        ));
    };
    let spec = assumption(&c.assumption)
        .ok_or_else(|| format!("event {seq}: unknown assumption {}", c.assumption))?;
    if r.provisional {
        let values: Vec<f64> = r.alternatives.iter().map(|(_, v)| *v).collect();
        if spec.most_cautious(&values) != Some(r.position) {
            return Err(format!(
                "event {seq}: the provisional {} {} is not the most cautious of the positions on \
                 the table",
                c.assumption,
                spec.show(r.position)
            ));
        }
    }
    if r.level == 2 {
        let of = |agent: &str| {
            credibility
                .and_then(|s| s.agents.iter().find(|a| a.agent == agent))
                .map(|a| a.credibility.clone())
        };
        let side = match (of(&c.challenger), of(&c.challenged)) {
            (Some(a), Some(b)) => facilitate(&a, &b).ok(),
            _ => None,
        };
        let want = match side {
            Some(Side::Challenger) => Some(&c.challenger),
            Some(Side::Challenged) => Some(&c.challenged),
            None => None,
        };
        if want != Some(&r.held_by) {
            return Err(format!(
                "event {seq}: the facilitator resolved {} to {}, but ES-4 with the logged \
                 credibility gives {}",
                c.id,
                r.held_by,
                want.map_or("no automatic resolution", |w| w.as_str())
            ));
        }
    }
    Ok(())
}
