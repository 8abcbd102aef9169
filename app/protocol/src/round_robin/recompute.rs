//! SV-2 for RR: what `verify`, the audit view and the what-if panel run on a logged debate.

use super::rules::{check_consensus, cut_short, outcome, trigger};
use super::types::{ConsensusCheck, RrOutcome, RrPosition};
use crate::round_robin::{RrEntry, RrEvent};
use crate::shared::{CommonEvent, Seen};
use crate::types::AgentSpec;

/// SV-2 for RR: replays the logged turns through the same rules and checks every logged step —
/// the trigger verdict, each round's consensus check and the final outcome.
#[allow(clippy::too_many_lines)] // one arm per RR event kind
pub fn recompute(events: &[RrEntry<'_>]) -> Result<RrOutcome, String> {
    let mut agents: Vec<AgentSpec> = Vec::new();
    let mut params = None;
    let mut query = "";
    let mut positions: Vec<Option<RrPosition>> = Vec::new();
    let mut turns: Vec<u32> = Vec::new();
    let mut total_turns = 0u32;
    let mut triggered = None;
    let mut last: Option<ConsensusCheck> = None;
    let mut rounds = 0u16;
    let mut cut = false;
    for e in events {
        match e.body {
            Seen::Common(CommonEvent::BudgetExhausted { round, .. }) => {
                let p = params
                    .as_ref()
                    .ok_or("budget event before debate_started")?;
                last = Some(check_consensus(
                    *round,
                    &agents,
                    &positions,
                    &turns,
                    p,
                    triggered.unwrap_or(true),
                ));
                cut = true;
            }
            Seen::Started {
                query: q,
                agents: a,
                config,
                ..
            } => {
                query = q;
                agents = a.to_vec();
                positions = vec![None; a.len()];
                turns = vec![0; a.len()];
                params = match config {
                    Some(p) => Some(p.clone()),
                    None => return Err("the log does not record round-robin parameters".into()),
                };
            }
            Seen::Own(RrEvent::TriggerChecked(logged)) => {
                let again = trigger(query);
                if &again != logged {
                    return Err(format!(
                        "event {}: the logged trigger check ({}) differs from the one recomputed from the query ({})",
                        e.seq, logged.triggered, again.triggered
                    ));
                }
                triggered = Some(again.triggered);
            }
            Seen::Common(CommonEvent::RoundStarted { round, .. }) => rounds = *round,
            Seen::Own(RrEvent::Turn {
                agent, position, ..
            }) => {
                let i = agents
                    .iter()
                    .position(|a| a.id == *agent)
                    .ok_or_else(|| format!("event {}: turn by unknown agent {agent}", e.seq))?;
                positions[i] = Some(position.clone());
                turns[i] += 1;
                total_turns += 1;
            }
            Seen::Own(RrEvent::ConsensusChecked(logged)) => {
                let p = params
                    .as_ref()
                    .ok_or("consensus check before debate_started")?;
                let again = check_consensus(
                    logged.round,
                    &agents,
                    &positions,
                    &turns,
                    p,
                    triggered.unwrap_or(true),
                );
                if &again != logged {
                    return Err(format!(
                        "event {}: the logged consensus check of round {} ({}) differs from the one recomputed from the turns ({})",
                        e.seq, logged.round, logged.verdict, again.verdict
                    ));
                }
                last = Some(again);
            }
            Seen::Decided(logged) => {
                let check = last.as_ref().ok_or("decision without a consensus check")?;
                let participation = agents
                    .iter()
                    .zip(&turns)
                    .map(|(a, t)| (a.id.clone(), *t))
                    .collect();
                let again = if cut {
                    cut_short(check, total_turns, participation)
                } else {
                    outcome(check, rounds, total_turns, participation)
                };
                if &again != logged {
                    return Err(format!(
                        "the logged decision {} differs from the one recomputed from the turns: {} ({} turns, {} rounds)",
                        logged.stance, again.stance, again.total_turns, again.total_rounds
                    ));
                }
                return Ok(again);
            }
            _ => {}
        }
    }
    Err("the log has no decision event (the debate did not finish)".into())
}
