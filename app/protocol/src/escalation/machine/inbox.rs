//! The escalation machine's inbox: each kind of agent answer checked, logged as a typed message
//! (ES-1) and fed to the ladder it belongs to.

use super::{Asked, EsDebate};
use crate::error::ProtocolError;
use crate::escalation::assumptions::{assumption, Priority};
use crate::escalation::ladder::JudgeAction;
use crate::escalation::ladder::Stage;
use crate::escalation::messages::{Content, Message, MessageKind};
use crate::escalation::rules::covers;
use crate::escalation::types::{
    ChallengeAnswer, Estimate, EvidenceVerdict, JudgeRuling, RulingError,
};
use crate::escalation::{EsEvent, EsTask};
use crate::shared::{Emit, Request};

fn message_priority(p: Priority) -> &'static str {
    match p {
        Priority::CriticalPath => "high",
        Priority::ValuationImpact => "medium",
        Priority::Supporting => "low",
    }
}

impl EsDebate {
    pub(super) fn say(
        &mut self,
        from: &str,
        to: Option<&str>,
        kind: MessageKind,
        key: &str,
        content: Content,
    ) {
        let priority = assumption(key).map_or("low", |a| message_priority(a.priority));
        self.events.push_back(Emit::Own(EsEvent::Message {
            round: self.round,
            message: Box::new(Message {
                from: from.to_owned(),
                to: to.map(str::to_owned),
                kind,
                priority: priority.to_owned(),
                content,
                at: self.now,
                requires_response: kind == MessageKind::Challenge,
            }),
        }));
    }

    pub(super) fn estimates_in(
        &mut self,
        agent: usize,
        list: Vec<Estimate>,
    ) -> Result<(), ProtocolError> {
        let wanted = covers(&self.agents, agent);
        let mut kept = Vec::new();
        for e in list {
            if !wanted.contains(&e.assumption)
                || kept.iter().any(|k: &Estimate| k.assumption == e.assumption)
            {
                continue;
            }
            e.check().map_err(|problem| ProtocolError::BadParameter {
                field: "estimates",
                problem,
            })?;
            kept.push(e);
        }
        if kept.is_empty() {
            return Err(ProtocolError::BadParameter {
                field: "estimates",
                problem: format!("no value for any of {}", wanted.join(", ")),
            });
        }
        let from = self.agents[agent].id.clone();
        for e in &kept {
            let label = assumption(&e.assumption).map_or_else(
                || e.assumption.clone(),
                |a| format!("{}: {}", a.label, a.show(e.value)),
            );
            self.say(
                &from,
                None,
                MessageKind::Finding,
                &e.assumption,
                Content {
                    finding: label,
                    confidence: e.confidence,
                    evidence: e.evidence.clone(),
                    impact: String::new(),
                    assumption: Some(e.assumption.clone()),
                    value: Some(e.value),
                    precedents: Vec::new(),
                },
            );
        }
        self.estimates[agent] = kept;
        Ok(())
    }

    pub(super) fn answer_in(
        &mut self,
        ladder: usize,
        a: ChallengeAnswer,
    ) -> Result<(), ProtocolError> {
        let c = self.ladders[ladder].challenge.clone();
        if let Some(spec) = assumption(&c.assumption) {
            spec.check(a.value)
                .map_err(|problem| ProtocolError::BadParameter {
                    field: "value",
                    problem,
                })?;
        }
        let now = self.now;
        if !a.acknowledge {
            self.say(
                &c.challenged,
                Some(&c.challenger),
                MessageKind::Alert,
                &c.assumption,
                Content {
                    finding: format!("{} is not taken up now", c.id),
                    confidence: 0.0,
                    evidence: Vec::new(),
                    impact: String::new(),
                    assumption: Some(c.assumption.clone()),
                    value: None,
                    precedents: Vec::new(),
                },
            );
            return Ok(());
        }
        let conceded =
            assumption(&c.assumption).is_some_and(|s| !s.disagree(a.value, c.challenger_value));
        let kind = if conceded {
            MessageKind::Confirmation
        } else {
            MessageKind::Finding
        };
        let shown =
            assumption(&c.assumption).map_or_else(|| a.value.to_string(), |s| s.show(a.value));
        self.say(
            &c.challenged,
            Some(&c.challenger),
            kind,
            &c.assumption,
            Content {
                finding: format!("{}: {} holds {shown}", c.id, c.challenged),
                confidence: 0.0,
                evidence: a.evidence.clone(),
                impact: String::new(),
                assumption: Some(c.assumption.clone()),
                value: Some(a.value),
                precedents: Vec::new(),
            },
        );
        let mut steps = self.ladders[ladder].acknowledged(now);
        steps.extend(self.ladders[ladder].evidence(now, a.value, a.evidence));
        self.log_steps(ladder, now, steps);
        Ok(())
    }

    pub(super) fn verdict_in(&mut self, ladder: usize, v: EvidenceVerdict) {
        let c = self.ladders[ladder].challenge.clone();
        let kind = if v.accept {
            MessageKind::Confirmation
        } else {
            MessageKind::Challenge
        };
        self.say(
            &c.challenger,
            Some(&c.challenged),
            kind,
            &c.assumption,
            Content {
                finding: format!(
                    "{}: the evidence is {}: {}",
                    c.id,
                    if v.accept { "accepted" } else { "rejected" },
                    v.reason
                ),
                confidence: 0.0,
                evidence: Vec::new(),
                impact: String::new(),
                assumption: Some(c.assumption.clone()),
                value: None,
                precedents: Vec::new(),
            },
        );
        let now = self.now;
        let steps = self.ladders[ladder].verdict(now, v.accept, &v.reason);
        self.log_steps(ladder, now, steps);
    }

    /// The next L1 request a ladder waits for, if any.
    pub(super) fn next_l1(&mut self) -> Option<Request<EsTask>> {
        for i in 0..self.ladders.len() {
            let stage = self.ladders[i].stage.clone();
            if self.asked[i].as_ref() == Some(&stage) {
                continue;
            }
            let c = self.ladders[i].challenge.clone();
            let (agent, asked, task) = match stage {
                Stage::Acknowledge { .. } => (
                    self.index(&c.challenged)?,
                    Asked::Answer(i),
                    EsTask::AnswerChallenge {
                        query: self.query.clone(),
                        challenge: c.clone(),
                        own_value: self.ladders[i].challenged_value,
                        context: self.ladders[i].context.clone(),
                    },
                ),
                Stage::Verdict { .. } => (
                    self.index(&c.challenger)?,
                    Asked::Verdict(i),
                    EsTask::WeighEvidence {
                        query: self.query.clone(),
                        challenge: c.clone(),
                        value: self.ladders[i].challenged_value,
                        evidence: self.ladders[i].evidence.clone(),
                    },
                ),
                _ => continue,
            };
            self.asked[i] = Some(stage);
            return self.request(agent, asked, task);
        }
        None
    }

    /// ES-5/ES-7: a judge's ruling (level 3) or gate review (a provisional value): checked,
    /// logged as `judge_ruling` naming the judge, then applied to the ladder.
    pub(super) fn rule(
        &mut self,
        challenge: &str,
        judge: &str,
        action: JudgeAction,
    ) -> Result<(), RulingError> {
        let Some(i) = self
            .ladders
            .iter()
            .position(|l| l.challenge.id == challenge)
        else {
            return Err(RulingError::Invalid(format!(
                "this debate has no challenge '{challenge}'"
            )));
        };
        let key = self.ladders[i].challenge.assumption.clone();
        let action = checked(&key, action)?;
        if self.outcome.is_some() {
            return self.review(i, judge, action);
        }
        let now = self.now;
        let level = self.ladders[i].level;
        let steps = self.ladders[i]
            .judge(now, judge, action.clone())
            .map_err(RulingError::Conflict)?;
        if matches!(action, JudgeAction::Redebate { .. }) {
            // Back to the agents: a provisional value no longer stands.
            self.resolutions.retain(|r| r.challenge != challenge);
        }
        self.events
            .push_back(Emit::Own(EsEvent::JudgeRuling(JudgeRuling {
                challenge: challenge.to_owned(),
                judge: judge.to_owned(),
                at: now,
                level,
                action,
            })));
        self.log_steps(i, now, steps);
        self.settle();
        Ok(())
    }
}

/// A judge's action checked before it reaches the ladder: an override's value within the
/// assumption's range and a rationale, a re-debate's context; text trimmed as logged.
pub(super) fn checked(key: &str, action: JudgeAction) -> Result<JudgeAction, RulingError> {
    match action {
        JudgeAction::Override { value, rationale } => {
            if let Some(spec) = assumption(key) {
                spec.check(value).map_err(RulingError::Invalid)?;
            }
            let rationale = rationale.trim().to_owned();
            if rationale.is_empty() {
                return Err(RulingError::Invalid("an override needs a rationale".into()));
            }
            Ok(JudgeAction::Override { value, rationale })
        }
        JudgeAction::Redebate { context } => {
            let context = context.trim().to_owned();
            if context.is_empty() {
                return Err(RulingError::Invalid(
                    "a re-debate needs the context to add".into(),
                ));
            }
            Ok(JudgeAction::Redebate { context })
        }
        JudgeAction::Confirm => Ok(JudgeAction::Confirm),
    }
}
