//! SV-2: canonical JSON written straight from serde, without building a `serde_json::Value` tree
//! (that tree was most of the per-event cost of the hash chain). Output is byte-for-byte what the
//! README specifies and what `Value`-based canonicalisation produced: object keys sorted by their
//! UTF-8 bytes, no whitespace, strings and numbers exactly as serde_json writes them.

use serde::ser::{self, Impossible, Serialize};

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
    value.serialize(Canonical {
        out: &mut out,
        skip,
    })?;
    Ok(out)
}

struct Canonical<'a> {
    out: &'a mut Vec<u8>,
    /// Keys dropped from this object (only ever non-empty at the top level).
    skip: &'a [&'a str],
}

/// serde_json's own formatting for a scalar or a string (escaping, float form).
fn json<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) -> Result<(), Error> {
    serde_json::to_writer(out, v).map_err(|e| Error(e.to_string()))
}

/// Collects an object's members, then writes them sorted by key.
struct Object<'a> {
    out: &'a mut Vec<u8>,
    skip: &'a [&'a str],
    members: Vec<(String, Vec<u8>)>,
    pending_key: Option<String>,
}

impl<'a> Object<'a> {
    fn new(out: &'a mut Vec<u8>, skip: &'a [&'a str], len: Option<usize>) -> Self {
        Object {
            out,
            skip,
            members: Vec::with_capacity(len.unwrap_or(8)),
            pending_key: None,
        }
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: String, value: &T) -> Result<(), Error> {
        if self.skip.contains(&key.as_str()) {
            return Ok(());
        }
        let mut buf = Vec::with_capacity(64);
        value.serialize(Canonical {
            out: &mut buf,
            skip: &[],
        })?;
        self.members.push((key, buf));
        Ok(())
    }

    fn finish(mut self) -> Result<(), Error> {
        // Stable sort, then keep the last of equal keys: what a JSON parser (and the
        // `serde_json::Value` reference) makes of a repeated key.
        self.members
            .sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut i = 0;
        while i + 1 < self.members.len() {
            if self.members[i].0 == self.members[i + 1].0 {
                self.members.remove(i);
            } else {
                i += 1;
            }
        }
        self.out.push(b'{');
        for (i, (key, value)) in self.members.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            json(self.out, key.as_str())?;
            self.out.push(b':');
            self.out.extend_from_slice(value);
        }
        self.out.push(b'}');
        Ok(())
    }
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
        object.member(variant.to_owned(), value)?;
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
        self.pending_key = Some(key.serialize(KeyName)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .pending_key
            .take()
            .ok_or_else(|| Error("a map value came without its key".into()))?;
        self.member(key, value)
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
        self.member(key.to_owned(), value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

fn key_error() -> Error {
    Error("object keys must be strings".into())
}

/// Object keys: strings, or integers written as strings (as serde_json does).
struct KeyName;

macro_rules! integer_keys {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, v: $ty) -> Result<String, Error> {
            Ok(v.to_string())
        })*
    };
}

macro_rules! refused_keys {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, _: $ty) -> Result<String, Error> {
            Err(key_error())
        })*
    };
}

impl ser::Serializer for KeyName {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Impossible<String, Error>;
    type SerializeTuple = Impossible<String, Error>;
    type SerializeTupleStruct = Impossible<String, Error>;
    type SerializeTupleVariant = Impossible<String, Error>;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    type SerializeStructVariant = Impossible<String, Error>;

    integer_keys!(
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128, serialize_char: char,
    );
    refused_keys!(serialize_bool: bool, serialize_f32: f32, serialize_f64: f64, serialize_bytes: &[u8]);

    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(v.to_owned())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<String, Error> {
        Ok(variant.to_owned())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<String, Error> {
        value.serialize(self)
    }
    fn serialize_none(self) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String, Error> {
        self.serialize_none()
    }
    fn serialize_unit(self) -> Result<String, Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String, Error> {
        self.serialize_none()
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, Error> {
        self.serialize_none()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_error())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_error())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_error())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_error())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_error())
    }
}
