//! The one shape of every protocol's state machine (sans-IO): the driver takes requests with
//! [`Machine::poll_request`], answers them with [`Machine::handle_reply`] (or
//! [`Machine::handle_failure`]) and drains the log with [`Machine::poll_event`]. A machine never
//! awaits, reads a clock or touches I/O.

use super::credibility::CredibilitySnapshot;
use super::error::ProtocolError;
use super::escalation::{Admission, JudgeAction, Priority, RulingError};
use super::event::EventBody;
use super::request::{AgentReply, AgentRequest};
use super::types::AgentSpec;

pub trait Machine: std::fmt::Debug + Send {
    /// The next agent to ask, if any; emits a `thinking` event for it.
    fn poll_request(&mut self) -> Option<AgentRequest>;

    /// The next event to append to the log, in order.
    fn poll_event(&mut self) -> Option<EventBody>;

    /// Feeds an agent's reply to request `id`. A reply of the wrong shape is an error and changes
    /// nothing; the driver then calls [`Machine::handle_failure`].
    fn handle_reply(&mut self, id: u32, reply: AgentReply) -> Result<(), ProtocolError>;

    /// S4-8: an agent that errs, times out or answers garbage never stalls the debate; the
    /// machine logs the failure and substitutes the protocol's cautious answer.
    fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError>;

    /// The token budget ran out before the next request: stop asking and decide from what
    /// exists, the most cautious way (S4: [`super::s4::cut_short`], RR: HOLD, WC: a human decides).
    fn exhaust(&mut self, used: u64, budget: u64);

    fn is_finished(&self) -> bool;

    fn agents(&self) -> &[AgentSpec];

    /// CR-4: the agents' credibility as the debate starts (ES-4's facilitator weighs it).
    fn set_credibility(&mut self, _snapshot: &CredibilitySnapshot) {}

    /// ES-10: the runner's clock, as wall milliseconds since the debate began. Protocols
    /// without timers ignore it.
    fn advance(&mut self, _wall_ms: u64) {}

    /// ES-10: the wall millisecond (since the start) at which a timer fires, so the runner
    /// wakes the machine then even when no agent is answering.
    fn wake_at(&self) -> Option<u64> {
        None
    }

    /// ES-5: challenges waiting for a place in the judges' queue, with their priority.
    fn queued(&self) -> Vec<(String, Priority)> {
        Vec::new()
    }

    /// ES-5: the desk's answer for a queued challenge.
    fn admit(&mut self, _challenge: &str, _admission: Admission) {}

    /// ES-5: the challenges a judge holds now (the runner frees the others' places).
    fn held(&self) -> Vec<String> {
        Vec::new()
    }

    /// ES-5/ES-7: judge `judge` acts on `challenge`. Protocols without judges' rulings refuse.
    fn judge(
        &mut self,
        _challenge: &str,
        _judge: &str,
        _action: JudgeAction,
    ) -> Result<(), RulingError> {
        Err(RulingError::Conflict(
            "this protocol takes no judge's rulings".into(),
        ))
    }
}
