//! L5, the gate (ES-7, ES-8): a finished pipeline's provisional decisions reviewed by a judge.
//! The machine is rebuilt from its log ([`EsDebate::reopen`]); a confirmation or an override is
//! logged as `judge_ruling` and `challenge_resolved`, an override's downstream `impact` and its
//! re-run plan follow, then each batch of re-runs as an `analysis`, and a new `decision` ends the
//! log again. A re-debate sends the challenge back to its agents at level 1 with the judge's
//! added context: the pipeline runs again from there (the runner drives the rebuilt machine on)
//! and ends with a new `decision`.

use std::collections::VecDeque;
use std::sync::Arc;

use super::{EsDebate, ANALYSIS, LADDER};
use crate::escalation::analysis::GRAPH;
use crate::escalation::impact::impact;
use crate::escalation::ladder::{JudgeAction, Ladder, Stage};
use crate::escalation::rules::{final_assumptions, logged_finding, outcome, silent};
use crate::escalation::types::{AnalysisRun, EsOutcome, ImpactRun, JudgeRuling, RulingError};
use crate::escalation::view::EsState;
use crate::escalation::{EsEntry, EsEvent};
use crate::shared::{CommonEvent, Emit, RequestQueue, Seen};

impl EsDebate {
    /// Rebuilds a pipeline that has logged its decision, for the gate review, at wall time
    /// `wall_ms` (Unix milliseconds; pipeline time runs on from the last event at the debate's
    /// scale). Refused by name for a log of another protocol or one without a decision.
    pub fn reopen(events: &[EsEntry<'_>], wall_ms: f64) -> Result<EsDebate, String> {
        let Some(Seen::Started {
            protocol,
            query,
            agents,
            config,
            ..
        }) = events.first().map(|e| e.body)
        else {
            return Err("the log does not start with debate_started".into());
        };
        if protocol != "escalation" {
            return Err(format!(
                "this is a {protocol} debate: only escalation pipelines have a gate"
            ));
        }
        let params = config.copied().unwrap_or_default();
        let mut view = EsState {
            params: Some(params),
            ..EsState::default()
        };
        let mut estimates = vec![Vec::new(); agents.len()];
        let mut credibility = None;
        let mut decided: Option<&EsOutcome> = None;
        let mut contexts: Vec<(&str, &str)> = Vec::new();
        for e in events {
            match e.body {
                Seen::Common(CommonEvent::Credibility(s)) => credibility = Some(s.clone()),
                Seen::Own(EsEvent::JudgeRuling(JudgeRuling {
                    challenge,
                    action: JudgeAction::Redebate { context },
                    ..
                })) => contexts.push((challenge, context)),
                Seen::Own(EsEvent::Message { round: 1, message }) => {
                    if let Some((i, estimate)) = logged_finding(agents, message) {
                        estimates[i].push(estimate);
                    }
                }
                Seen::Decided(o) => decided = Some(o),
                Seen::Common(CommonEvent::Interrupted { .. }) => {
                    return Err("the pipeline was interrupted before its decision".into())
                }
                _ => {}
            }
            if let Seen::Own(event) = e.body {
                view.apply(e.seq, event);
            }
        }
        let decided = decided.ok_or("the pipeline has not reached its decision yet")?;
        let last_ts = events.last().map_or("", |e| e.ts.as_str());
        let now = view.now_at(last_ts, wall_ms);
        let ladders = at_the_gate(&view, decided, &contexts, now);
        let n = ladders.len();
        Ok(EsDebate {
            query: Arc::from(query),
            agents: agents.to_vec(),
            params,
            now,
            since: now,
            round: ANALYSIS,
            requests: RequestQueue::with_capacity(1),
            to_estimate: VecDeque::new(),
            estimates,
            ladders,
            asked: vec![None; n],
            resolutions: decided.resolutions.clone(),
            credibility,
            events: VecDeque::new(),
            outcome: Some(decided.clone()),
            exhausted: decided.budget_exhausted,
        })
    }

    /// ES-7 at the gate: ladder `i`'s provisional value confirmed or overridden (the action is
    /// already checked); ES-8: an override's impact, the re-runs it requires, the new decision.
    pub(super) fn review(
        &mut self,
        i: usize,
        judge: &str,
        action: JudgeAction,
    ) -> Result<(), RulingError> {
        let id = self.ladders[i].challenge.id.clone();
        if !matches!(self.ladders[i].stage, Stage::Provisional { .. }) {
            return Err(RulingError::Conflict(format!(
                "the pipeline has ended and {id} is already resolved; the gate reviews its \
                 provisional decisions only"
            )));
        }
        let Some(before) = self.outcome.clone() else {
            return Err(RulingError::Conflict(
                "the pipeline is still running".into(),
            ));
        };
        if matches!(action, JudgeAction::Redebate { .. }) {
            return self.send_back(i, judge, action, &before);
        }
        let now = self.now;
        let level = self.ladders[i].level;
        let steps = self.ladders[i]
            .judge(now, judge, action.clone())
            .map_err(RulingError::Conflict)?;
        self.events
            .push_back(Emit::Own(EsEvent::JudgeRuling(JudgeRuling {
                challenge: id.clone(),
                judge: judge.to_owned(),
                at: now,
                level,
                action,
            })));
        self.log_steps(i, now, steps);

        let company = self.params.company;
        let assumptions = final_assumptions(&self.agents, &self.estimates, &self.resolutions);
        let result = outcome(
            &company,
            assumptions,
            self.resolutions.clone(),
            before.budget_exhausted,
            &silent(&self.agents, &self.estimates),
        );
        let key = self.ladders[i].challenge.assumption.clone();
        let value = result.assumptions.get(&key);
        let mut batches = Vec::new();
        if (value - before.assumptions.get(&key)).abs() > 1e-12 {
            let report = impact(&GRAPH, &company, &before.assumptions, &key, value)
                .map_err(RulingError::Invalid)?;
            batches.clone_from(&report.plan.batches);
            self.events
                .push_back(Emit::Own(EsEvent::Impact(Box::new(ImpactRun {
                    challenge: id,
                    judge: judge.to_owned(),
                    at: now,
                    report,
                }))));
        }
        // Every batch of re-runs is logged with the values it produced; with none required,
        // one run records the reviewed assumptions and the values that merely updated.
        if batches.is_empty() {
            batches.push(Vec::new());
        }
        for rerun in batches {
            self.events
                .push_back(Emit::Own(EsEvent::Analysis(AnalysisRun {
                    at: now,
                    assumptions: result.assumptions.clone(),
                    results: result.results.clone(),
                    provisional: result.provisional.clone(),
                    rerun,
                })));
        }
        self.events
            .push_back(Emit::Decided(Box::new(result.clone())));
        self.outcome = Some(result);
        Ok(())
    }

    /// ES-7 at the gate: challenge `i` goes back to its agents at level 1 with the judge's added
    /// context. The decision no longer stands: the pipeline runs again from here, the challenged
    /// agent is asked first, and a new decision ends the log once every challenge is settled.
    /// A pipeline that ran out of its token budget has no tokens left to ask with.
    fn send_back(
        &mut self,
        i: usize,
        judge: &str,
        action: JudgeAction,
        before: &EsOutcome,
    ) -> Result<(), RulingError> {
        let id = self.ladders[i].challenge.id.clone();
        if before.budget_exhausted {
            return Err(RulingError::Conflict(format!(
                "the pipeline stopped on its token budget: its agents are not asked again. \
                 Confirm or override {id} at the gate"
            )));
        }
        let now = self.now;
        let level = self.ladders[i].level;
        let steps = self.ladders[i]
            .judge(now, judge, action.clone())
            .map_err(RulingError::Conflict)?;
        self.resolutions.retain(|r| r.challenge != id);
        self.events
            .push_back(Emit::Own(EsEvent::JudgeRuling(JudgeRuling {
                challenge: id,
                judge: judge.to_owned(),
                at: now,
                level,
                action,
            })));
        self.log_steps(i, now, steps);
        self.outcome = None;
        self.round = LADDER;
        self.asked[i] = None;
        Ok(())
    }
}

/// Each challenge's ladder as the pipeline's decision left it: provisional values at the gate,
/// everything else closed; with what judges added when they sent it back (ES-7).
fn at_the_gate(
    view: &EsState,
    decided: &EsOutcome,
    contexts: &[(&str, &str)],
    now: u64,
) -> Vec<Ladder> {
    view.challenges
        .iter()
        .map(|c| {
            let r = decided
                .resolutions
                .iter()
                .find(|r| r.challenge == c.challenge.id);
            let challenged_value = r
                .and_then(|r| {
                    r.alternatives
                        .iter()
                        .find(|(who, _)| *who == c.challenge.challenged)
                })
                .map_or(c.challenge.challenged_value, |(_, v)| *v);
            let stage = match r {
                Some(r) if r.provisional => Stage::Provisional {
                    value: r.position,
                    review_by: r.review_by.unwrap_or(now),
                },
                _ => Stage::Closed,
            };
            Ladder {
                challenge: c.challenge.clone(),
                level: c.level,
                stage,
                evidence: r.map(|r| r.evidence.clone()).unwrap_or_default(),
                challenged_value,
                context: contexts
                    .iter()
                    .filter(|(id, _)| *id == c.challenge.id)
                    .map(|(_, text)| (*text).to_owned())
                    .collect(),
            }
        })
        .collect()
}
