//! SV-2: canonical JSON written straight from serde, without building a `serde_json::Value` tree
//! (that tree was most of the per-event cost of the hash chain). Output is byte-for-byte what the
//! README specifies and what `Value`-based canonicalisation produced: object keys sorted by their
//! UTF-8 bytes, no whitespace, strings and numbers exactly as serde_json writes them.

use serde::ser::{self, Impossible, Serialize};

mod key;
use key::KeyName;

#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// Canonical JSON of `value`; top-level keys listed in `skip` are left out.
pub fn to_canonical<T: Serialize + ?Sized>(value: &T, skip: &[&str]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(512);
    write_canonical(value, skip, &mut out)?;
    Ok(out)
}

/// Appends the canonical JSON of `value` to `out` (which callers may reuse from one value to the
/// next); top-level keys listed in `skip` are left out. On an error, `out` may hold part of it.
pub fn write_canonical<T: Serialize + ?Sized>(
    value: &T,
    skip: &[&str],
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    value.serialize(Canonical { out, skip })
}

/// An object's buffers: its arena and its members' places in it.
type Buffers = (Vec<u8>, Vec<Member>);

/// One member of an object, written into the object's arena as `"key":value` with the key raw
/// between the quotes: where the key starts and ends, where the value starts and ends, whether
/// the key needed no escaping (then the member is copied out whole, as it stands), and the key's
/// first eight bytes as a big-endian number (zero-padded), so that sorting compares one number
/// for most pairs of keys (comparing keys and writing members one piece at a time measured
/// a third of an event's canonical JSON, SHA-256 aside).
#[derive(Clone, Copy, Debug)]
struct Member {
    prefix: u64,
    key: usize,
    key_end: usize,
    value: usize,
    end: usize,
    plain: bool,
}

impl Member {
    fn new(arena: &[u8], key: usize, key_end: usize, value: usize, plain: bool) -> Member {
        let name = &arena[key..key_end];
        let mut first = [0u8; 8];
        let n = name.len().min(8);
        first[..n].copy_from_slice(&name[..n]);
        Member {
            prefix: u64::from_be_bytes(first),
            key,
            key_end,
            value,
            end: arena.len(),
            plain,
        }
    }

    /// The order of the keys' UTF-8 bytes. Prefixes that differ decide it: at the first byte
    /// where they differ either both are the keys' bytes, or one is padding (zero) past the end
    /// of a shorter key, which orders first, as it must. Equal prefixes compare the whole keys.
    fn order(&self, other: &Member, arena: &[u8]) -> std::cmp::Ordering {
        self.prefix.cmp(&other.prefix).then_with(|| {
            key_order(
                &arena[self.key..self.key_end],
                &arena[other.key..other.key_end],
            )
        })
    }
}

thread_local! {
    /// Buffers of finished objects, emptied, for the next objects (without them, sealing an
    /// event allocates and frees a pair for every object in it).
    static SPARE: std::cell::RefCell<Vec<Buffers>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Spare buffers kept per thread, and the largest arena kept: enough for the deepest nesting of
/// an event, without holding on to what one huge value needed.
const SPARE_MAX: usize = 16;
const SPARE_ARENA_MAX: usize = 64 * 1024;

struct Canonical<'a> {
    out: &'a mut Vec<u8>,
    /// Keys dropped from this object (only ever non-empty at the top level).
    skip: &'a [&'a str],
}

/// serde_json's own formatting for a scalar or a string (escaping, float form).
fn json<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) -> Result<(), Error> {
    serde_json::to_writer(out, v).map_err(|e| Error(e.to_string()))
}

/// Collects an object's members, then writes them sorted by key. Every key and value is written
/// into one buffer of the object's own (a buffer per member and a `String` per key would be
/// most of the allocations of sealing an event).
struct Object<'a> {
    out: &'a mut Vec<u8>,
    skip: &'a [&'a str],
    /// Each member as `"key":value`, the key raw UTF-8 and the value canonical JSON, back to back.
    arena: Vec<u8>,
    /// Per member: its key's and its value's places in `arena`.
    members: Vec<Member>,
    /// A map key written but not yet given its value: where it starts (after its quote).
    pending_key: Option<usize>,
}

impl Drop for Object<'_> {
    fn drop(&mut self) {
        if self.arena.capacity() > SPARE_ARENA_MAX {
            return;
        }
        let mut buffers = (
            std::mem::take(&mut self.arena),
            std::mem::take(&mut self.members),
        );
        buffers.0.clear();
        buffers.1.clear();
        // `try_with`: a thread being torn down keeps nothing.
        let _ = SPARE.try_with(|spare| {
            if let Ok(mut spare) = spare.try_borrow_mut() {
                if spare.len() < SPARE_MAX {
                    spare.push(buffers);
                }
            }
        });
    }
}

impl<'a> Object<'a> {
    fn new(out: &'a mut Vec<u8>, skip: &'a [&'a str], len: Option<usize>) -> Self {
        let spare = SPARE
            .try_with(|spare| spare.try_borrow_mut().ok().and_then(|mut s| s.pop()))
            .ok()
            .flatten();
        let (arena, members) = spare.unwrap_or_else(|| {
            let len = len.unwrap_or(8);
            (Vec::with_capacity(len * 48), Vec::with_capacity(len))
        });
        Object {
            out,
            skip,
            arena,
            members,
            pending_key: None,
        }
    }

    /// Writes `value` as the member whose raw key starts at `key` in the arena (after its
    /// opening quote) and ends at its end.
    fn value<T: Serialize + ?Sized>(&mut self, key: usize, value: &T) -> Result<(), Error> {
        let key_end = self.arena.len();
        let name = &self.arena[key..key_end];
        if self.skip.iter().any(|s| s.as_bytes() == name) {
            self.arena.truncate(key - 1);
            return Ok(());
        }
        let plain = needs_no_escape(name);
        self.arena.extend_from_slice(b"\":");
        let start = self.arena.len();
        value.serialize(Canonical {
            out: &mut self.arena,
            skip: &[],
        })?;
        self.members
            .push(Member::new(&self.arena, key, key_end, start, plain));
        Ok(())
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        self.arena.push(b'"');
        let start = self.arena.len();
        self.arena.extend_from_slice(key.as_bytes());
        self.value(start, value)
    }

    fn finish(mut self) -> Result<(), Error> {
        let arena = &self.arena;
        // Members already in order with no key repeated (every struct whose fields are declared
        // in that order) need no sort; the others get a stable sort, then keep the last of equal
        // keys: what a JSON parser (and the `serde_json::Value` reference) makes of a repeated
        // key.
        let in_order = self
            .members
            .windows(2)
            .all(|pair| pair[0].order(&pair[1], arena).is_lt());
        if !in_order {
            self.members.sort_by(|a, b| a.order(b, arena));
            self.members.dedup_by(|later, earlier| {
                let same = later.order(earlier, arena).is_eq();
                if same {
                    *earlier = *later;
                }
                same
            });
        }
        // Each member as written, and a comma after it (one too many: the closing brace's room).
        let size: usize = self.members.iter().map(|m| m.end - m.key + 2).sum();
        self.out.reserve(size + 1);
        self.out.push(b'{');
        for (i, m) in self.members.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            if m.plain {
                self.out.extend_from_slice(&arena[m.key - 1..m.end]);
            } else {
                write_escaped_key(self.out, &arena[m.key..m.key_end])?;
                self.out.push(b':');
                self.out.extend_from_slice(&arena[m.value..m.end]);
            }
        }
        self.out.push(b'}');
        Ok(())
    }
}

/// Keys in the order of their UTF-8 bytes, as `<[u8]>::cmp` orders them, compared inline: keys
/// are short and mostly differ in their first bytes, where a call to `memcmp` cost more than the
/// comparison.
fn key_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// Whether a key is the same as a JSON string between quotes (every field name is).
fn needs_no_escape(key: &[u8]) -> bool {
    key.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\')
}

/// A key that needs escaping, as a JSON string written by serde_json, like every other string
/// (keys with nothing to escape are copied out with their member, as written).
fn write_escaped_key(out: &mut Vec<u8>, key: &[u8]) -> Result<(), Error> {
    // Keys were written from `&str`s (or integers), so they are UTF-8.
    let key = std::str::from_utf8(key).map_err(|_| Error("an object key is not UTF-8".into()))?;
    json(out, key)
}

struct Array<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl Array<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        value.serialize(Canonical {
            out: self.out,
            skip: &[],
        })
    }

    fn finish(self) -> Result<(), Error> {
        self.out.push(b']');
        Ok(())
    }
}

macro_rules! scalars {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, v: $ty) -> Result<(), Error> {
            json(self.out, &v)
        })*
    };
}

impl<'a> ser::Serializer for Canonical<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Array<'a>;
    type SerializeTuple = Array<'a>;
    type SerializeTupleStruct = Array<'a>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Impossible<(), Error>;

    scalars!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_f32: f32,
        serialize_f64: f64, serialize_char: char, serialize_str: &str,
    );

    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        json(self.out, v)
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        json(self.out, variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let mut object = Object::new(self.out, self.skip, Some(1));
        object.member(variant, value)?;
        object.finish()
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Array<'a>, Error> {
        self.out.push(b'[');
        Ok(Array {
            out: self.out,
            first: true,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<Array<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Array<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(Error(format!(
            "{name}: tuple variants are not part of the log format"
        )))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Object<'a>, Error> {
        Ok(Object::new(self.out, self.skip, len))
    }

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Object<'a>, Error> {
        Ok(Object::new(self.out, self.skip, Some(len)))
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(Error(format!(
            "{name}: struct variants are not part of the log format"
        )))
    }
}

impl ser::SerializeSeq for Array<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTuple for Array<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Array<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.arena.push(b'"');
        let start = self.arena.len();
        key.serialize(KeyName(&mut self.arena))?;
        self.pending_key = Some(start);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .pending_key
            .take()
            .ok_or_else(|| Error("a map value came without its key".into()))?;
        self.value(key, value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeStruct for Object<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.member(key, value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

#[cfg(test)]
mod tests;
