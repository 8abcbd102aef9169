//! SV-2 for the escalation pipeline: what `verify`, the audit view and the viewer run on a
//! logged debate. From the logged findings it recomputes the challenges (ES-2); it checks every
//! provisional value is the most cautious on the table (ES-6) and every facilitator ruling
//! follows ES-4 with the logged credibility; and it recomputes the analyses and the decision
//! from the final assumptions.

use super::assumptions::assumption;
use super::ladder::{facilitate, JudgeAction, Resolution, Side};
use super::messages::{Challenge, MessageKind};
use super::rules::{disputes, final_assumptions, outcome, silent};
use super::types::{EsOutcome, EsParams, Estimate, JudgeRuling};
use crate::protocol::credibility::CredibilitySnapshot;
use crate::protocol::event::{Config, Event, EventBody};
use crate::protocol::types::AgentSpec;

/// Replays the log; the recomputed outcome, or the first step that does not follow.
pub fn recompute(events: &[Event]) -> Result<EsOutcome, String> {
    let mut agents: Vec<AgentSpec> = Vec::new();
    let mut params = EsParams::default();
    let mut estimates: Vec<Vec<Estimate>> = Vec::new();
    let mut raised: Vec<(u64, Challenge)> = Vec::new();
    let mut resolutions: Vec<Resolution> = Vec::new();
    let mut credibility: Option<&CredibilitySnapshot> = None;
    let mut rulings: Vec<&JudgeRuling> = Vec::new();
    let mut cut = false;
    for e in events {
        match &e.body {
            EventBody::DebateStarted {
                agents: a, config, ..
            } => {
                agents.clone_from(a);
                estimates = vec![Vec::new(); a.len()];
                if let Some(Config::Escalation(p)) = config {
                    params = *p;
                }
            }
            EventBody::Credibility(s) => credibility = Some(s),
            EventBody::Message { round: 1, message } if message.kind == MessageKind::Finding => {
                let (Some(key), Some(value)) = (&message.content.assumption, message.content.value)
                else {
                    continue;
                };
                if let Some(i) = agents.iter().position(|a| a.id == message.from) {
                    estimates[i].push(Estimate {
                        assumption: key.clone(),
                        value,
                        confidence: message.content.confidence,
                        evidence: message.content.evidence.clone(),
                    });
                }
            }
            EventBody::ChallengeRaised { at, challenge } => raised.push((*at, challenge.clone())),
            EventBody::JudgeRuling(j) => {
                if matches!(j.action, JudgeAction::Redebate { .. }) {
                    resolutions.retain(|x| x.challenge != j.challenge);
                }
                rulings.push(j);
            }
            EventBody::ChallengeResolved(r) | EventBody::ProvisionalDecision(r) => {
                check_resolution(e.seq, &r.resolution, &raised, credibility)?;
                check_ruling(e.seq, &r.resolution, &rulings, &resolutions)?;
                resolutions.retain(|x| x.challenge != r.resolution.challenge);
                resolutions.push(r.resolution.clone());
            }
            EventBody::BudgetExhausted { .. } => cut = true,
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
