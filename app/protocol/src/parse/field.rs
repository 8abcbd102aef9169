//! The field types that replies, cards and parameters deserialise through. Each refuses a bad
//! value in the house words (`must be a number from 0 to 1, got 1.5`), and [`read`] puts the
//! `serde_path_to_error` path in front: `cards[1].risks[0].residual_risk: …`.

use std::fmt::{self, Display};
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Deserialises `v` as `T`; an error names its path under `root` (`""` at a reply's top level).
pub fn read<'a, T: Deserialize<'a>>(v: &'a Value, root: &str) -> Result<T, String> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let at = join(root, if path == "." { "" } else { &path });
        let inner = e.into_inner().to_string();
        // serde reports a missing field at its parent; the house text names the field itself.
        if let Some(key) = inner
            .strip_prefix("missing field `")
            .and_then(|k| k.strip_suffix('`'))
        {
            return format!("{}: missing", join(&at, key));
        }
        // "unknown field `x`, expected one of `a`, `b`": the path already ends in `x`.
        if let Some((_, expected)) = inner
            .strip_prefix("unknown field `")
            .and_then(|r| r.split_once("`, "))
        {
            return format!("{at}: unknown field; {}", expected.replace('`', ""));
        }
        format!("{at}: {inner}")
    })
}

fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() || child.is_empty() || child.starts_with('[') {
        format!("{parent}{child}")
    } else {
        format!("{parent}.{child}")
    }
}

/// What kind of JSON value `v` is, as an error message says it ("got an array").
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `x` if it is finite and within `lo..=hi`; otherwise the error, showing the value as `got`.
pub fn in_range(x: Option<f64>, lo: f64, hi: f64, got: &dyn Display) -> Result<f64, String> {
    match x {
        Some(x) if x.is_finite() && (lo..=hi).contains(&x) => Ok(x),
        _ => Err(format!("must be a number from {lo} to {hi}, got {got}")),
    }
}

/// A JSON number in `LO..=HI`, as cards and parameters give them (a string is refused).
pub struct Number<const LO: i32, const HI: i32>(pub f64);

impl<'de, const LO: i32, const HI: i32> Deserialize<'de> for Number<LO, HI> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        in_range(v.as_f64(), f64::from(LO), f64::from(HI), &v)
            .map(Number)
            .map_err(D::Error::custom)
    }
}

/// A whole JSON number in `LO..=HI` (`HI = u32::MAX` means no upper bound).
pub struct Whole<const LO: u32, const HI: u32>(pub u32);

impl<'de, const LO: u32, const HI: u32> Deserialize<'de> for Whole<LO, HI> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match v.as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(n) if (LO..=HI).contains(&n) => Ok(Whole(n)),
            _ if HI == u32::MAX => Err(D::Error::custom(format!(
                "must be a whole number of at least {LO}, got {v}"
            ))),
            _ => Err(D::Error::custom(format!(
                "must be a whole number from {LO} to {HI}, got {v}"
            ))),
        }
    }
}

/// A JSON string, as written.
pub struct Str(pub String);

impl<'de> Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(Str(s)),
            v => Err(D::Error::custom(format!(
                "must be a string, got {}",
                kind(&v)
            ))),
        }
    }
}

/// A JSON array of `T`; anything else is refused by kind ("must be an array, got a string").
pub struct List<T>(pub Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Shape::<Vec<T>>::new(true)).map(List)
    }
}

/// A JSON object read as `T`; anything else is refused by kind ("must be an object, got null").
pub struct Object<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Shape::<T>::new(false)).map(Object)
    }
}

/// Hands an array (or object) on to `T` through the same path-tracking access, so paths inside
/// it stay whole; refuses every other kind in the house words.
struct Shape<T> {
    array: bool,
    of: PhantomData<T>,
}

impl<T> Shape<T> {
    fn new(array: bool) -> Self {
        Shape {
            array,
            of: PhantomData,
        }
    }

    fn refuse<E: serde::de::Error>(&self, got: &Value) -> E {
        let want = if self.array { "an array" } else { "an object" };
        E::custom(format!("must be {want}, got {}", kind(got)))
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Shape<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.array { "an array" } else { "an object" })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        if self.array {
            T::deserialize(SeqAccessDeserializer::new(seq))
        } else {
            Err(self.refuse(&Value::Array(Vec::new())))
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        if self.array {
            Err(self.refuse(&Value::Object(Map::new())))
        } else {
            T::deserialize(MapAccessDeserializer::new(map))
        }
    }

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<T, E> {
        Err(self.refuse(&Value::Bool(b)))
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<T, E> {
        Err(self.refuse(&Value::from(n)))
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<T, E> {
        Err(self.refuse(&Value::from(n)))
    }

    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<T, E> {
        Err(self.refuse(&Value::from(n)))
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<T, E> {
        Err(self.refuse(&Value::String(String::new())))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<T, E> {
        Err(self.refuse(&Value::Null))
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    // Read only for their errors.
    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        x: Number<0, 1>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        items: List<Object<Inner>>,
        n: Option<Whole<1, 5>>,
    }

    /// Paths run through arrays and objects; serde's own texts are put in the house words.
    #[test]
    fn errors_name_the_path() {
        let cases = [
            (
                json!({"items": [{"x": 0.5}, {"x": 2}]}),
                "r.items[1].x: must be a number from 0 to 1, got 2",
            ),
            (json!({"items": [{"x": 0.5}, {}]}), "r.items[1].x: missing"),
            (
                json!({"items": [{"x": 0.5, "y": 1}]}),
                "r.items[0].y: unknown field; expected x",
            ),
            (
                json!({"items": [], "z": 1}),
                "r.z: unknown field; expected items or n",
            ),
            (
                json!({"items": "no"}),
                "r.items: must be an array, got a string",
            ),
            (
                json!({"items": [3]}),
                "r.items[0]: must be an object, got a number",
            ),
            (
                json!({"items": [], "n": 9}),
                "r.n: must be a whole number from 1 to 5, got 9",
            ),
            (
                json!({"items": [], "n": 1.0}),
                "r.n: must be a whole number from 1 to 5, got 1.0",
            ),
            (json!([1]), "r: must be an object, got an array"),
        ];
        for (v, want) in cases {
            let got = read::<Object<Outer>>(&v, "r").map(|_| ());
            assert_eq!(got, Err(want.to_owned()), "{v}");
        }
        assert!(read::<Object<Outer>>(&json!({"items": [{"x": 1}], "n": null}), "r").is_ok());
    }
}
