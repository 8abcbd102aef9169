//! The optional capability of a protocol whose debate runs on timers and takes judges' rulings
//! (escalation's ladder, ES-5…ES-10). The driver reaches it through
//! [`Machine::supervision`](super::Machine::supervision); a protocol without timers or judges
//! never mentions it.

use super::judging::{Admission, JudgeAction, Priority, RulingError};

pub trait Supervision {
    /// ES-10: the runner's clock, as wall milliseconds since the debate began.
    fn advance(&mut self, wall_ms: u64);

    /// ES-10: the wall millisecond (since the start) at which a timer fires, so the runner wakes
    /// the machine then even when no agent is answering.
    fn wake_at(&self) -> Option<u64>;

    /// ES-5: challenges waiting for a place in the judges' queue, with their priority.
    fn queued(&self) -> Vec<(String, Priority)>;

    /// ES-5: the desk's answer for a queued challenge.
    fn admit(&mut self, challenge: &str, admission: Admission);

    /// ES-5: the challenges a judge holds now (the runner frees the others' places).
    fn held(&self) -> Vec<String>;

    /// ES-5/ES-7: judge `judge` acts on `challenge`.
    fn judge(
        &mut self,
        challenge: &str,
        judge: &str,
        action: JudgeAction,
    ) -> Result<(), RulingError>;
}
