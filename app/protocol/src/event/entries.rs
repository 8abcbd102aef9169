//! Each protocol's reading of a log ([`Entry`]): the envelope unwraps what it wrapped, so the
//! protocol sees its own events, parameters and outcome and never the envelope.

use super::{Config, DebateEvent, Event, EventBody};
use crate::collapse::{WcEvent, WcOutcome, WcParams};
use crate::escalation::{EsEvent, EsOutcome, EsParams};
use crate::outcome::Outcome;
use crate::reconcile::{RcConfig, RcEvent, RcOutcome};
use crate::round_robin::{RrEvent, RrOutcome, RrParams};
use crate::s4::{S4Event, S4Outcome};
use crate::shared::{Entry, NoParams, Seen};

/// A protocol's own events, and where the envelope keeps its parameters and its outcome.
pub trait Logs: Sized {
    type Params;
    type Outcome;
    fn own(body: &EventBody) -> Option<&Self>;
    fn params(config: &Config) -> Option<&Self::Params>;
    fn outcome(outcome: &Outcome) -> Option<&Self::Outcome>;
}

/// Protocol `P`'s reading of one event.
pub fn entry<P: Logs>(e: &Event) -> Entry<'_, P, P::Params, P::Outcome> {
    Entry {
        seq: e.seq,
        ts: &e.ts,
        body: seen::<P>(&e.body),
    }
}

/// Protocol `P`'s reading of a log.
pub fn entries<P: Logs>(log: &[Event]) -> Vec<Entry<'_, P, P::Params, P::Outcome>> {
    log.iter().map(entry::<P>).collect()
}

fn seen<P: Logs>(body: &EventBody) -> Seen<'_, P, P::Params, P::Outcome> {
    match body {
        EventBody::Common(e) => Seen::Common(e),
        EventBody::Debate(DebateEvent::DebateStarted {
            protocol,
            query,
            seed,
            agents,
            rounds,
            config,
            backend,
            context,
        }) => Seen::Started {
            protocol,
            query,
            seed: *seed,
            agents,
            rounds,
            config: config.as_deref().and_then(P::params),
            backend: backend.as_deref(),
            context: context.as_deref(),
        },
        EventBody::Debate(DebateEvent::Decision(o)) => {
            P::outcome(o).map_or(Seen::Other, Seen::Decided)
        }
        other => P::own(other).map_or(Seen::Other, Seen::Own),
    }
}

/// `impl Logs` for a protocol that logs its parameters: its variant of the envelope, of `Config`
/// and of `Outcome`.
macro_rules! logs {
    ($event:ident, $variant:ident, $params:ty, $outcome:ty, $config:pat => $p:ident) => {
        impl Logs for $event {
            type Params = $params;
            type Outcome = $outcome;
            fn own(body: &EventBody) -> Option<&Self> {
                match body {
                    EventBody::$variant(e) => Some(e),
                    _ => None,
                }
            }
            fn params(config: &Config) -> Option<&$params> {
                match config {
                    $config => Some($p),
                    _ => None,
                }
            }
            fn outcome(outcome: &Outcome) -> Option<&$outcome> {
                match outcome {
                    Outcome::$variant(o) => Some(o),
                    _ => None,
                }
            }
        }
    };
}

logs!(RrEvent, RoundRobin, RrParams, RrOutcome, Config::RoundRobin(p) => p);
logs!(WcEvent, Collapse, WcParams, WcOutcome, Config::Collapse(p) => p);
logs!(EsEvent, Escalation, EsParams, Box<EsOutcome>, Config::Escalation(p) => p);
logs!(RcEvent, Reconcile, RcConfig, RcOutcome, Config::Reconcile(p) => p);

impl Logs for S4Event {
    type Params = NoParams;
    type Outcome = S4Outcome;
    fn own(body: &EventBody) -> Option<&Self> {
        match body {
            EventBody::S4(e) => Some(e),
            _ => None,
        }
    }
    fn params(_: &Config) -> Option<&NoParams> {
        None
    }
    fn outcome(outcome: &Outcome) -> Option<&S4Outcome> {
        match outcome {
            Outcome::S4(o) => Some(o),
            _ => None,
        }
    }
}
