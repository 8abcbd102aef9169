//! Reading an event's body: its `type` names the one owner whose enum reads the rest (every tag
//! belongs to exactly one: what any debate logs, the start and the decision, or one protocol), so
//! a bad member is named as a tagged enum names it, never "no variant matched".

use serde::de::{Deserializer, Error};
use serde::Deserialize;
use serde_json::Value;

use super::{DebateEvent, EventBody};
use crate::collapse::WcEvent;
use crate::escalation::EsEvent;
use crate::reconcile::RcEvent;
use crate::round_robin::RrEvent;
use crate::s4::S4Event;
use crate::shared::CommonEvent;

/// Who owns an event's `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Owner {
    Common,
    Debate,
    S4,
    RoundRobin,
    Collapse,
    Escalation,
    Reconcile,
}

const OWNERS: [(Owner, &[&str]); 7] = [
    (Owner::Common, CommonEvent::TYPES),
    (Owner::Debate, DebateEvent::TYPES),
    (Owner::S4, S4Event::TYPES),
    (Owner::RoundRobin, RrEvent::TYPES),
    (Owner::Collapse, WcEvent::TYPES),
    (Owner::Escalation, EsEvent::TYPES),
    (Owner::Reconcile, RcEvent::TYPES),
];

pub(super) fn owner(kind: &str) -> Option<Owner> {
    OWNERS
        .iter()
        .find(|(_, types)| types.contains(&kind))
        .map(|(owner, _)| *owner)
}

impl Owner {
    /// The body, read by its owner's enum.
    pub(super) fn read<'de, D: Deserializer<'de>>(self, d: D) -> Result<EventBody, D::Error> {
        Ok(match self {
            Owner::Common => EventBody::Common(CommonEvent::deserialize(d)?),
            Owner::Debate => EventBody::Debate(DebateEvent::deserialize(d)?),
            Owner::S4 => EventBody::S4(S4Event::deserialize(d)?),
            Owner::RoundRobin => EventBody::RoundRobin(RrEvent::deserialize(d)?),
            Owner::Collapse => EventBody::Collapse(WcEvent::deserialize(d)?),
            Owner::Escalation => EventBody::Escalation(EsEvent::deserialize(d)?),
            Owner::Reconcile => EventBody::Reconcile(RcEvent::deserialize(d)?),
        })
    }
}

impl<'de> Deserialize<'de> for EventBody {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let owner = match value.get("type") {
            Some(Value::String(kind)) => owner(kind)
                .ok_or_else(|| D::Error::custom(format!("unknown event type `{kind}`")))?,
            Some(_) => return Err(D::Error::custom("type: expected a string")),
            None => return Err(D::Error::missing_field("type")),
        };
        owner.read(value).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::{owner, OWNERS};
    use crate::EventBody;

    /// Every `type` has one owner: a tag two enums claimed would be read by the first alone.
    #[test]
    fn every_type_has_one_owner() {
        let mut seen = HashSet::new();
        for (_, types) in OWNERS {
            for t in types {
                assert!(seen.insert(*t), "`{t}` is claimed twice");
            }
        }
        assert_eq!(seen.len(), 46);
    }

    #[test]
    fn bad_bodies_are_named() {
        let table: [(&str, &str); 4] = [
            (r#"{"type": "nonsense"}"#, "unknown event type `nonsense`"),
            (r#"{"type": 3}"#, "type: expected a string"),
            (r#"{"agent": "a"}"#, "missing field `type`"),
            (
                r#"{"type": "thinking", "agent": "a"}"#,
                "missing field `round`",
            ),
        ];
        for (text, want) in table {
            let err = serde_json::from_str::<EventBody>(text).expect_err(text);
            assert!(err.to_string().contains(want), "{text}: {err}");
        }
        assert_eq!(owner("vote"), Some(super::Owner::S4));
    }
}
