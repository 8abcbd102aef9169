//! ES-3…ES-7, ES-9: one challenge's climb up the five-level ladder, as a pure state machine.
//!
//! Time is *pipeline time*: seconds since the debate began, as the runner's clock says (ES-10:
//! wall time, a scaled clock for demos, a virtual one in tests). The ladder never reads a clock;
//! every input carries its time and [`Ladder::tick`] fires the timeouts that have passed.

use serde::{Deserialize, Serialize};

use super::assumptions::{assumption, Assumption};
use super::messages::Challenge;
use crate::credibility::Credibility;

pub use crate::shared::judging::JudgeAction;

/// ES-3: the challenged agent acknowledges within 15 minutes…
pub const ACK_S: u64 = 15 * 60;
/// …and brings evidence within the hour.
pub const EVIDENCE_S: u64 = 60 * 60;
/// ES-4: the facilitator's hour.
pub const FACILITATOR_S: u64 = 60 * 60;
/// ES-5: a judge's six hours.
pub const HUMAN_S: u64 = 6 * 60 * 60;
/// ES-6: a provisional decision is due for review within 24 hours.
pub const REVIEW_S: u64 = 24 * 60 * 60;
/// ES-4: the smallest credibility differential that resolves without a human.
pub const MIN_DIFFERENTIAL: f64 = 0.25;
/// ES-4: the record points each agent needs before the facilitator weighs credibility.
pub const MIN_POINTS: u32 = 5;

/// Where a challenge is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum Stage {
    /// L1: waiting for the challenged agent's acknowledgement.
    Acknowledge { deadline: u64 },
    /// L1: acknowledged; waiting for its evidence.
    Evidence { deadline: u64 },
    /// L1: evidence given; waiting for the challenger to accept or reject it.
    Verdict { deadline: u64 },
    /// L2: the facilitator weighs the agents' credibility.
    Facilitator { deadline: u64 },
    /// L3: waiting for a place in the judges' queue (the runner asks the desk).
    Queue,
    /// L3: held by a judge.
    Human { judge: String, deadline: u64 },
    /// L4: a provisional value applies; the override window is open until it is reviewed (L5).
    Provisional { value: f64, review_by: u64 },
    /// Resolved for good.
    Closed,
}

/// ES-9: the record of a resolution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Resolution {
    pub challenge: String,
    pub assumption: String,
    /// The value applied.
    pub position: f64,
    /// The agent whose position it is, or `judge:<name>` for a judge's own value.
    pub held_by: String,
    pub evidence: Vec<String>,
    /// 1 to 5.
    pub level: u8,
    pub method: String,
    pub confidence: f64,
    pub provisional: bool,
    /// Provisional ones (ES-9): why the cautious value, what else was on the table, and when
    /// it is due for review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<(String, f64)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_by: Option<u64>,
}

/// What one input did.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// The challenge climbed to `level`, for `reason`.
    Escalated { level: u8, reason: String },
    /// It is resolved (provisionally when `resolution.provisional`).
    Resolved(Resolution),
    /// A judge asked for the agents to argue again (L5), with added context.
    Redebate { context: String },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ladder {
    pub challenge: Challenge,
    pub level: u8,
    pub stage: Stage,
    /// Evidence offered so far, by either side.
    pub evidence: Vec<String>,
    /// The challenged agent's current value (it may revise it at L1).
    pub challenged_value: f64,
    /// ES-7: what judges added when they sent the challenge back to the agents, in order; the
    /// challenged agent is shown it when asked again.
    pub context: Vec<String>,
}

/// ES-4: which side the facilitator resolves to, or why it cannot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Challenger,
    Challenged,
}

/// ES-4 as a rule: both agents need ≥ 5 points; the differential must exceed the larger of 0.25
/// and the sum of the two intervals' half-widths. `Ok` names the more credible side.
pub fn facilitate(challenger: &Credibility, challenged: &Credibility) -> Result<Side, String> {
    for (name, c) in [("challenger", challenger), ("challenged agent", challenged)] {
        if c.points < MIN_POINTS || c.score.is_none() {
            return Err(format!(
                "the {name} has {} record point{} ({MIN_POINTS} needed)",
                c.points,
                if c.points == 1 { "" } else { "s" }
            ));
        }
    }
    let half = |c: &Credibility| match (c.low, c.high) {
        (Some(l), Some(h)) => (h - l) / 2.0,
        _ => 0.0,
    };
    let (a, b) = (challenger.weight(), challenged.weight());
    let threshold = MIN_DIFFERENTIAL.max(half(challenger) + half(challenged));
    let diff = (a - b).abs();
    if diff > threshold {
        Ok(if a > b {
            Side::Challenger
        } else {
            Side::Challenged
        })
    } else {
        Err(format!(
            "credibility differential {diff:.3} does not exceed {threshold:.3}"
        ))
    }
}

impl Ladder {
    /// A challenge raised at time `at` starts at level 1, waiting for an acknowledgement.
    pub fn new(challenge: Challenge, at: u64) -> Ladder {
        let challenged_value = challenge.challenged_value;
        Ladder {
            challenge,
            level: 1,
            stage: Stage::Acknowledge {
                deadline: at + ACK_S,
            },
            evidence: Vec::new(),
            challenged_value,
            context: Vec::new(),
        }
    }

    fn spec(&self) -> Option<&'static Assumption> {
        assumption(&self.challenge.assumption)
    }

    /// The time the current stage escalates at, if it has a timer.
    pub fn deadline(&self) -> Option<u64> {
        match &self.stage {
            Stage::Acknowledge { deadline }
            | Stage::Evidence { deadline }
            | Stage::Verdict { deadline }
            | Stage::Facilitator { deadline }
            | Stage::Human { deadline, .. } => Some(*deadline),
            _ => None,
        }
    }

    pub fn is_closed(&self) -> bool {
        self.stage == Stage::Closed
    }

    fn resolve(&mut self, position: f64, held_by: &str, method: String, confidence: f64) -> Step {
        self.stage = Stage::Closed;
        Step::Resolved(Resolution {
            challenge: self.challenge.id.clone(),
            assumption: self.challenge.assumption.clone(),
            position,
            held_by: held_by.to_owned(),
            evidence: self.evidence.clone(),
            level: self.level,
            method,
            confidence,
            provisional: false,
            rationale: None,
            alternatives: Vec::new(),
            review_by: None,
        })
    }

    fn climb(&mut self, at: u64, reason: String) -> Vec<Step> {
        self.level += 1;
        self.stage = match self.level {
            2 => Stage::Facilitator {
                deadline: at + FACILITATOR_S,
            },
            3 => Stage::Queue,
            _ => return self.fall_back(at, reason),
        };
        vec![Step::Escalated {
            level: self.level,
            reason,
        }]
    }

    /// ES-6: level 4 applies the most cautious position on the table, provisionally.
    fn fall_back(&mut self, at: u64, reason: String) -> Vec<Step> {
        self.level = 4;
        let c = &self.challenge;
        let alternatives = vec![
            (c.challenged.clone(), self.challenged_value),
            (c.challenger.clone(), c.challenger_value),
        ];
        let values: Vec<f64> = alternatives.iter().map(|(_, v)| *v).collect();
        let spec = self.spec();
        let value = spec
            .and_then(|s| s.most_cautious(&values))
            .unwrap_or(self.challenged_value);
        let held_by = alternatives
            .iter()
            .find(|(_, v)| *v == value)
            .map_or_else(String::new, |(a, _)| a.clone());
        let direction = match spec.map(|s| s.caution) {
            Some(super::assumptions::Caution::Higher) => "highest",
            _ => "lowest",
        };
        let review_by = at + REVIEW_S;
        let (id, key) = (c.id.clone(), c.assumption.clone());
        self.challenge.provisional_resolution = Some(value);
        self.stage = Stage::Provisional { value, review_by };
        vec![
            Step::Escalated { level: 4, reason },
            Step::Resolved(Resolution {
                challenge: id,
                assumption: key.clone(),
                position: value,
                held_by,
                evidence: self.evidence.clone(),
                level: 4,
                method: "fallback: the most cautious position".into(),
                confidence: 0.5,
                provisional: true,
                rationale: Some(format!(
                    "no resolution in time; the {direction} {} on the table is the cautious \
                     one, applied until a judge reviews it",
                    key
                )),
                alternatives,
                review_by: Some(review_by),
            }),
        ]
    }

    /// ES-6 at once (the token budget ran out): an open challenge takes its most cautious
    /// position provisionally; a resolved or provisional one is left as it is.
    pub fn give_up(&mut self, at: u64, reason: String) -> Vec<Step> {
        if matches!(self.stage, Stage::Closed | Stage::Provisional { .. }) {
            return Vec::new();
        }
        self.fall_back(at, reason)
    }

    /// ES-3…ES-6: every timer that has run out by `now` (a long pause can pass several).
    pub fn tick(&mut self, now: u64) -> Vec<Step> {
        let mut steps = Vec::new();
        while let Some(deadline) = self.deadline().filter(|d| now >= *d) {
            let reason = match &self.stage {
                Stage::Acknowledge { .. } => "no acknowledgement within 15 minutes".to_owned(),
                Stage::Evidence { .. } => "no evidence within the hour".to_owned(),
                Stage::Verdict { .. } => "the challenger did not answer within the hour".to_owned(),
                Stage::Facilitator { .. } => {
                    "the facilitator did not decide within the hour".to_owned()
                }
                Stage::Human { judge, .. } => format!("judge {judge} did not rule within 6 hours"),
                _ => break,
            };
            steps.extend(self.climb(deadline, reason));
        }
        steps
    }

    /// L1: the challenged agent acknowledged.
    pub fn acknowledged(&mut self, at: u64) -> Vec<Step> {
        let steps = self.tick(at);
        if let Stage::Acknowledge { deadline } = self.stage {
            let raised = deadline.saturating_sub(ACK_S);
            self.stage = Stage::Evidence {
                deadline: raised + EVIDENCE_S,
            };
        }
        steps
    }

    /// L1: the challenged agent's evidence, and its value after weighing the challenge. A value
    /// the challenger holds too ends the dispute (the challenged agent conceded).
    pub fn evidence(&mut self, at: u64, value: f64, evidence: Vec<String>) -> Vec<Step> {
        let mut steps = self.tick(at);
        if let Stage::Evidence { deadline } = self.stage {
            self.evidence.extend(evidence);
            self.challenged_value = value;
            let agree = self
                .spec()
                .is_some_and(|s| !s.disagree(value, self.challenge.challenger_value));
            if agree {
                let who = self.challenge.challenged.clone();
                steps.push(self.resolve(
                    value,
                    &who,
                    "conceded by the challenged agent".into(),
                    0.8,
                ));
            } else {
                self.stage = Stage::Verdict { deadline };
            }
        }
        steps
    }

    /// L1: the challenger accepts the evidence (resolved at level 1) or rejects it (level 2).
    pub fn verdict(&mut self, at: u64, accept: bool, why: &str) -> Vec<Step> {
        let mut steps = self.tick(at);
        if matches!(self.stage, Stage::Verdict { .. }) {
            if accept {
                let (value, who) = (self.challenged_value, self.challenge.challenged.clone());
                steps.push(self.resolve(value, &who, "accepted by the challenger".into(), 0.8));
            } else {
                steps
                    .extend(self.climb(at, format!("the challenger rejected the evidence: {why}")));
            }
        }
        steps
    }

    /// L1: an agent's call failed or its answer made no sense: no reason to wait for the timer.
    pub fn agent_failed(&mut self, at: u64, error: &str) -> Vec<Step> {
        let mut steps = self.tick(at);
        if matches!(
            self.stage,
            Stage::Acknowledge { .. } | Stage::Evidence { .. } | Stage::Verdict { .. }
        ) {
            steps.extend(self.climb(at, format!("an agent could not answer: {error}")));
        }
        steps
    }

    /// L2: the facilitator weighs the two agents' credibility (ES-4).
    pub fn facilitate(
        &mut self,
        at: u64,
        challenger: &Credibility,
        challenged: &Credibility,
    ) -> Vec<Step> {
        let mut steps = self.tick(at);
        if !matches!(self.stage, Stage::Facilitator { .. }) {
            return steps;
        }
        match facilitate(challenger, challenged) {
            Ok(side) => {
                let c = &self.challenge;
                let (value, who, cred) = match side {
                    Side::Challenger => (c.challenger_value, c.challenger.clone(), challenger),
                    Side::Challenged => (self.challenged_value, c.challenged.clone(), challenged),
                };
                let method = format!(
                    "facilitator: {who} is more credible ({:.3} against {:.3})",
                    cred.weight(),
                    if side == Side::Challenger {
                        challenged.weight()
                    } else {
                        challenger.weight()
                    }
                );
                steps.push(self.resolve(value, &who, method, cred.weight()));
            }
            Err(why) => steps.extend(self.climb(at, why)),
        }
        steps
    }

    /// L3: the desk gave the challenge to `judge` (ES-5).
    pub fn assigned(&mut self, at: u64, judge: &str) {
        if self.stage == Stage::Queue {
            self.stage = Stage::Human {
                judge: judge.to_owned(),
                deadline: at + HUMAN_S,
            };
        }
    }

    /// L3: the judges' queue is full (ES-5): straight to the fallback; `deferred` for a
    /// supporting dispute, which waits for the next gate.
    pub fn overflow(&mut self, at: u64, deferred: bool) -> Vec<Step> {
        if self.stage != Stage::Queue {
            return Vec::new();
        }
        let reason = if deferred {
            "the judges' queue is full: a supporting dispute is deferred to the next gate"
        } else {
            "the judges' queue is full"
        };
        self.fall_back(at, reason.into())
    }

    /// A judge acts: a binding ruling at level 3, or a gate review of a provisional decision
    /// (level 5). Refused by name anywhere else.
    pub fn judge(
        &mut self,
        at: u64,
        judge: &str,
        action: JudgeAction,
    ) -> Result<Vec<Step>, String> {
        let mut steps = self.tick(at);
        let id = self.challenge.id.clone();
        let (provisional, value_now) = match &self.stage {
            Stage::Human { .. } => (false, None),
            Stage::Provisional { value, .. } => (true, Some(*value)),
            Stage::Closed => return Err(format!("challenge {id} is already resolved")),
            _ => {
                return Err(format!(
                    "challenge {id} is at level {}; judges act from level 3",
                    self.level
                ))
            }
        };
        if provisional {
            self.level = 5;
        }
        let by = format!("judge:{judge}");
        match action {
            JudgeAction::Confirm => {
                let Some(value) = value_now else {
                    return Err(format!(
                        "challenge {id} has no provisional decision to confirm"
                    ));
                };
                let held = self.held_by(value);
                steps.push(self.resolve(value, &held, format!("confirmed by judge {judge}"), 1.0));
            }
            JudgeAction::Override { value, rationale } => {
                if let Some(spec) = self.spec() {
                    spec.check(value)?;
                }
                if rationale.trim().is_empty() {
                    return Err("an override needs a rationale".into());
                }
                let held = self.held_by(value);
                let held = if held.is_empty() { by } else { held };
                let verb = if provisional { "overridden" } else { "ruled" };
                self.evidence
                    .push(format!("judge {judge}: {}", rationale.trim()));
                steps.push(self.resolve(value, &held, format!("{verb} by judge {judge}"), 1.0));
            }
            JudgeAction::Redebate { context } => {
                let context = context.trim().to_owned();
                if context.is_empty() {
                    return Err("a re-debate needs the context to add".into());
                }
                self.level = 1;
                self.stage = Stage::Acknowledge {
                    deadline: at + ACK_S,
                };
                self.evidence
                    .push(format!("judge {judge} asked again: {context}"));
                self.context.push(context.clone());
                steps.push(Step::Redebate { context });
            }
        }
        Ok(steps)
    }

    /// The agent holding `value`, or "" when nobody does.
    fn held_by(&self, value: f64) -> String {
        let c = &self.challenge;
        if (value - self.challenged_value).abs() < 1e-12 {
            c.challenged.clone()
        } else if (value - c.challenger_value).abs() < 1e-12 {
            c.challenger.clone()
        } else {
            String::new()
        }
    }
}
