//! The one shape of every protocol's state machine (sans-IO): the driver takes requests with
//! [`Machine::poll_request`], answers them with [`Machine::handle_reply`] (or
//! [`Machine::handle_failure`]) and drains the log with [`Machine::poll_event`]. Requests may be
//! outstanding several at once (a whole round); the token budget ends a debate the cautious way
//! ([`Machine::exhaust`]). Timers and judges are an optional capability
//! ([`Machine::supervision`]). A machine never awaits, reads a clock or touches I/O.

use super::credibility::CredibilitySnapshot;
use super::error::ProtocolError;
use super::event::EventBody;
use super::request::{AgentReply, AgentRequest};
use super::supervision::Supervision;
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

    /// Timers and the judges' queue and rulings, for a protocol that has them (escalation);
    /// `None` for the others, which never mention them.
    fn supervision(&self) -> Option<&dyn Supervision> {
        None
    }

    /// [`Machine::supervision`], to act on.
    fn supervision_mut(&mut self) -> Option<&mut dyn Supervision> {
        None
    }
}
