//! The escalation machine's timers and judges (ES-5…ES-10), the optional capability the driver
//! reaches through `Machine::supervision`: the pipeline's clock, the judges' queue, the desk's
//! answers and a judge's ruling.

use super::EsDebate;
use crate::escalation::clock::{pipeline_seconds, wall_ms_until};
use crate::escalation::desk::Admission;
use crate::escalation::ladder::{JudgeAction, Ladder, Stage};
use crate::escalation::types::{JudgeAssigned, RulingError};
use crate::escalation::EsEvent;
use crate::shared::judging::Priority;
use crate::shared::{Emit, Supervision};

impl Supervision for EsDebate {
    fn advance(&mut self, wall_ms: u64) {
        let now = self.since + pipeline_seconds(wall_ms, self.params.time_scale);
        if now > self.now {
            self.now = now;
            if self.outcome.is_none() {
                self.settle();
            }
        }
    }

    fn wake_at(&self) -> Option<u64> {
        if self.outcome.is_some() {
            return None;
        }
        let next = self.ladders.iter().filter_map(Ladder::deadline).min()?;
        // The wall millisecond (since the start) pipeline second `next` begins at, rounded up.
        Some(wall_ms_until(self.since, next, self.params.time_scale))
    }

    fn queued(&self) -> Vec<(String, Priority)> {
        self.ladders
            .iter()
            .filter(|l| l.stage == Stage::Queue)
            .map(|l| (l.challenge.id.clone(), l.challenge.priority))
            .collect()
    }

    fn admit(&mut self, challenge: &str, admission: Admission) {
        let Some(i) = self
            .ladders
            .iter()
            .position(|l| l.challenge.id == challenge)
        else {
            return;
        };
        let now = self.now;
        match admission {
            Admission::Assigned(judge) => {
                self.ladders[i].assigned(now, &judge);
                if let Some(deadline) = self.ladders[i].deadline() {
                    self.events
                        .push_back(Emit::Own(EsEvent::JudgeAssigned(JudgeAssigned {
                            challenge: challenge.to_owned(),
                            judge,
                            at: now,
                            deadline,
                        })));
                }
            }
            Admission::Overflow | Admission::Deferred => {
                let deferred = admission == Admission::Deferred;
                let steps = self.ladders[i].overflow(now, deferred);
                self.log_steps(i, now, steps);
            }
        }
        self.settle();
    }

    fn held(&self) -> Vec<String> {
        self.ladders
            .iter()
            .filter(|l| matches!(l.stage, Stage::Human { .. }))
            .map(|l| l.challenge.id.clone())
            .collect()
    }

    fn judge(
        &mut self,
        challenge: &str,
        judge: &str,
        action: JudgeAction,
    ) -> Result<(), RulingError> {
        self.rule(challenge, judge, action)
    }
}
