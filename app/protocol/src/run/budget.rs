//! The token budget around a running machine: ES-11's pause for a judge and what a judge does
//! with it (grant or close), LM-2's estimate of a call's cost, and SV-13's stop at the server's
//! daily limit.

use super::DebateRun;
use crate::escalation::RulingError;
use crate::event::EventBody;
use crate::shared::CommonEvent;

/// ES-11: what a judge does with a debate paused on its spent budget.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum BudgetAction {
    /// Add `tokens` to the budget; the debate resumes where it stopped.
    Grant { tokens: u64 },
    /// End it now with the cautious decision, as an unpaused budget stop does.
    Close,
}

/// The most tokens one grant may add.
pub const MAX_GRANT: u64 = 100_000_000;

impl DebateRun {
    /// ES-11: whether a spent budget pauses the debate for a judge (the runner knows whether
    /// judges exist) rather than stopping it.
    pub fn set_pausable(&mut self, pausable: bool) {
        self.pausable = pausable;
    }

    /// The agents have used the whole budget (granted tokens included).
    pub fn budget_spent(&self) -> bool {
        self.budget.is_some_and(|b| self.used >= b)
    }

    /// ES-11: waiting for a judge to grant tokens or close the debate: `(used, budget)`.
    pub fn paused(&self) -> Option<(u64, u64)> {
        self.paused.then(|| (self.used, self.budget.unwrap_or(0)))
    }

    /// ES-11: judge `judge` grants tokens to, or closes, a debate paused on its budget.
    pub fn budget_action(&mut self, judge: &str, action: BudgetAction) -> Result<(), RulingError> {
        if !self.paused {
            return Err(RulingError::Conflict(
                "the debate is not waiting for a budget approval".into(),
            ));
        }
        match action {
            BudgetAction::Grant { tokens } => {
                if !(1..=MAX_GRANT).contains(&tokens) {
                    return Err(RulingError::Invalid(format!(
                        "tokens must be from 1 to {MAX_GRANT}, got {tokens}"
                    )));
                }
                let budget = self.budget.unwrap_or(0).saturating_add(tokens);
                self.budget = Some(budget);
                self.paused = false;
                self.queue
                    .push_back(EventBody::Common(CommonEvent::BudgetGranted {
                        judge: judge.to_owned(),
                        tokens,
                        budget,
                    }));
            }
            BudgetAction::Close => {
                self.paused = false;
                self.pausable = false;
                self.queue
                    .push_back(EventBody::Common(CommonEvent::BudgetClosed {
                        judge: judge.to_owned(),
                    }));
                let budget = self.budget.unwrap_or(0);
                self.debate.exhaust(self.used, budget);
            }
        }
        Ok(())
    }

    /// LM-2/SV-13: what the next call is expected to cost: the mean of the answered calls that
    /// reported a cost (0 before any did).
    pub fn call_estimate(&self) -> u64 {
        self.used.checked_div(self.costed).unwrap_or(0)
    }

    /// SV-13: the server's daily token limit is reached. Logs it, then ends the debate the
    /// cautious way its protocol ends a spent budget — at the tokens used so far, so the
    /// `budget_exhausted` that follows is checkable against the logged calls. Nothing happens
    /// once the debate is over; the driver calls this with no call in flight.
    pub fn stop_for_daily_limit(&mut self, spent: u64, limit: u64) {
        if self.debate.is_finished() {
            return;
        }
        while let Some(body) = self.debate.poll_event() {
            self.queue.push_back(body);
        }
        self.queue
            .push_back(EventBody::Common(CommonEvent::DailyLimitReached {
                spent,
                limit,
            }));
        self.paused = false;
        self.pausable = false;
        self.budget = Some(self.used);
        self.debate.exhaust(self.used, self.used);
    }
}
