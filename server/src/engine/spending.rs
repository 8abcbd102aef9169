//! SV-13: what a debate may spend, checked when it starts: the operator's cap on a request's
//! token budget and the server's daily token limit (which running debates also keep: the drive
//! loop makes no call that would cross it).

use super::{Engine, StartError};
use crate::access::limits::unix_now_s;
use crate::drive::now_rfc3339;

impl Engine {
    /// With a daily limit set, refuses a remote debate once today's spending reached it.
    pub(super) async fn check_daily_budget(&self) -> Result<(), StartError> {
        let limit = self.settings.daily_tokens;
        if limit == 0 {
            return Ok(());
        }
        let now = now_rfc3339();
        let spent = self.store.spent(&now[..10]).await?;
        if spent < limit {
            return Ok(());
        }
        Err(StartError::DailyBudget {
            spent,
            limit,
            retry_after_s: 86_400 - unix_now_s() % 86_400,
        })
    }

    /// Refuses a request whose token budget is more than the operator allows a debate.
    pub(super) fn check_token_budget(&self, req: &app::api::ValidDebate) -> Result<(), StartError> {
        let max = self.settings.remote.max_token_budget;
        match req.token_budget.filter(|b| *b > max) {
            Some(asked) => Err(StartError::Backend(format!(
                "token_budget: {asked} is more than this server allows a debate ({max}; the \
                 operator sets --max-token-budget)"
            ))),
            None => Ok(()),
        }
    }
}
