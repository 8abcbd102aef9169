//! The one shape of every protocol's state machine (sans-IO): the driver takes requests with
//! [`Machine::poll_request`], answers them with [`Machine::handle_reply`] (or
//! [`Machine::handle_failure`]) and drains the log with [`Machine::poll_event`]. Requests may be
//! outstanding several at once (a whole round); the token budget ends a debate the cautious way
//! ([`Machine::exhaust`]). Timers and judges are an optional capability
//! ([`Machine::supervision`]). A machine never awaits, reads a clock or touches I/O.
//!
//! Each protocol names its own types: its events, the parameters its start logs, its outcome, and
//! what it asks its agents and is answered. The envelope (`Debate`, in `debate.rs`) wraps them.

use super::emit::Emit;
use super::request::Request;
use super::supervision::Supervision;
use crate::credibility::CredibilitySnapshot;
use crate::error::ProtocolError;
use crate::types::AgentSpec;

pub trait Machine: std::fmt::Debug + Send {
    /// What only this protocol logs.
    type Event;
    /// The parameters its `debate_started` logs, to recompute the decision with.
    type Params;
    /// The payload of its `decision`.
    type Outcome;
    /// What it asks its agents.
    type Task;
    /// What its agents answer.
    type Reply;

    /// The next agent to ask, if any; emits a `thinking` event for it.
    fn poll_request(&mut self) -> Option<Request<Self::Task>>;

    /// The next event to append to the log, in order.
    fn poll_event(&mut self) -> Option<Emit<Self::Event, Self::Params, Self::Outcome>>;

    /// Feeds an agent's reply to request `id`. A reply of the wrong shape is an error and changes
    /// nothing; the driver then calls [`Machine::handle_failure`].
    fn handle_reply(&mut self, id: u32, reply: Self::Reply) -> Result<(), ProtocolError>;

    /// S4-8: an agent that errs, times out or answers garbage never stalls the debate; the
    /// machine logs the failure and substitutes the protocol's cautious answer.
    fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError>;

    /// The token budget ran out before the next request: stop asking and decide from what
    /// exists, the most cautious way (S4: `cut_short`, RR: HOLD, WC: a human decides).
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
