//! Reading a whole event in one pass. The writer puts `type` before the body's members
//! (`{"seq": …, "ts": …, "type": …, …}`), so its owner is known before the body is read and the
//! owner's enum reads the rest straight from the input, the envelope's members taken aside on the
//! way. A body member before `type` (an export whose keys were sorted) is read the slower way: the
//! rest of the event as a JSON object, then the body from it.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, StringDeserializer};
use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::decode::owner;
use super::{Event, EventBody, HexHash, Stamp};

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(EventVisitor)
    }
}

/// The envelope's members, as they are met.
#[derive(Default)]
struct Envelope {
    seq: Option<u64>,
    ts: Option<Stamp>,
    prev_hash: Option<HexHash>,
    hash: Option<HexHash>,
}

impl Envelope {
    /// Reads `key`'s value into its place when `key` is one of the envelope's members.
    fn take<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        fn once<T, E: Error>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), E> {
            if slot.replace(value).is_some() {
                return Err(E::duplicate_field(name));
            }
            Ok(())
        }
        match key {
            "seq" => once(&mut self.seq, map.next_value()?, "seq")?,
            "ts" => once(&mut self.ts, map.next_value()?, "ts")?,
            "prev_hash" => once(&mut self.prev_hash, map.next_value()?, "prev_hash")?,
            "hash" => once(&mut self.hash, map.next_value()?, "hash")?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn event<E: Error>(self, body: EventBody) -> Result<Event, E> {
        Ok(Event {
            seq: self.seq.ok_or_else(|| E::missing_field("seq"))?,
            ts: self.ts.ok_or_else(|| E::missing_field("ts"))?,
            body,
            prev_hash: self.prev_hash.unwrap_or_default(),
            hash: self.hash.unwrap_or_default(),
        })
    }
}

/// A key, borrowed from the input when it can be.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member's name")
            }
            fn visit_borrowed_str<E: Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: Error>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

struct EventVisitor;

impl<'de> Visitor<'de> for EventVisitor {
    type Value = Event;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an event: an object with `seq`, `ts` and `type`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Event, A::Error> {
        let mut envelope = Envelope::default();
        while let Some(Key(key)) = map.next_key()? {
            if envelope.take(&key, &mut map)? {
                continue;
            }
            if key == "type" {
                let kind: String = map.next_value()?;
                let owner = owner(&kind)
                    .ok_or_else(|| A::Error::custom(format!("unknown event type `{kind}`")))?;
                let rest = Rest {
                    kind: Some(kind),
                    map: &mut map,
                    envelope: &mut envelope,
                };
                let body = owner.read(MapAccessDeserializer::new(rest))?;
                return envelope.event(body);
            }
            let mut rest = Map::new();
            rest.insert(key.into_owned(), map.next_value()?);
            while let Some(Key(key)) = map.next_key()? {
                if !envelope.take(&key, &mut map)? {
                    rest.insert(key.into_owned(), map.next_value()?);
                }
            }
            let body = EventBody::deserialize(Value::Object(rest)).map_err(A::Error::custom)?;
            return envelope.event(body);
        }
        Err(A::Error::missing_field("type"))
    }
}

/// The rest of an event after its `type`, as its owner reads it: the `type` first, then the
/// members that follow but the envelope's, which go to `envelope`.
struct Rest<'m, A> {
    /// The `type`, not handed on yet.
    kind: Option<String>,
    map: &'m mut A,
    envelope: &'m mut Envelope,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Rest<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if self.kind.is_some() {
            return seed
                .deserialize(BorrowedStrDeserializer::new("type"))
                .map(Some);
        }
        while let Some(Key(key)) = self.map.next_key()? {
            if self.envelope.take(&key, self.map)? {
                continue;
            }
            return match key {
                Cow::Borrowed(k) => seed.deserialize(BorrowedStrDeserializer::new(k)),
                Cow::Owned(k) => seed.deserialize(StringDeserializer::new(k)),
            }
            .map(Some);
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match self.kind.take() {
            Some(kind) => seed.deserialize(StringDeserializer::new(kind)),
            None => self.map.next_value_seed(seed),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::shared::CommonEvent;
    use crate::{Event, EventBody};

    /// The one-pass reading and the slower one (a body member before `type`, as in an export
    /// whose keys were sorted) read the same event; bad input is named either way.
    #[test]
    fn an_event_reads_the_same_whatever_the_order_of_its_members() {
        let written = r#"{"seq":4,"ts":"t","type":"thinking","agent":"a","round":1,"prev_hash":"p","hash":"h"}"#;
        let sorted = r#"{"agent":"a","hash":"h","prev_hash":"p","round":1,"seq":4,"ts":"t","type":"thinking"}"#;
        let want = Event {
            seq: 4,
            ts: "t".into(),
            body: EventBody::Common(CommonEvent::Thinking {
                agent: "a".into(),
                round: 1,
            }),
            prev_hash: "p".into(),
            hash: "h".into(),
        };
        for text in [written, sorted] {
            assert_eq!(serde_json::from_str::<Event>(text).expect(text), want);
            let value: serde_json::Value = serde_json::from_str(text).expect("json");
            assert_eq!(serde_json::from_value::<Event>(value).expect(text), want);
        }
        let table: [(&str, &str); 6] = [
            (
                r#"{"seq":1,"ts":"t","type":"nonsense"}"#,
                "unknown event type `nonsense`",
            ),
            (
                r#"{"seq":1,"ts":"t","type":"thinking","agent":"a"}"#,
                "missing field `round`",
            ),
            (
                r#"{"seq":1,"ts":"t","agent":"a","round":1}"#,
                "missing field `type`",
            ),
            (
                r#"{"ts":"t","type":"thinking","agent":"a","round":1}"#,
                "missing field `seq`",
            ),
            (
                r#"{"seq":1,"seq":2,"ts":"t","type":"thinking"}"#,
                "duplicate field `seq`",
            ),
            (r#"{"seq":"x","ts":"t","type":"thinking"}"#, "invalid type"),
        ];
        for (text, want) in table {
            let err = serde_json::from_str::<Event>(text).expect_err(text);
            assert!(err.to_string().contains(want), "{text}: {err}");
        }
    }
}
