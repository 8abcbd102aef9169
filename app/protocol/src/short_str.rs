//! A string held inside its owner when it is short: an event's timestamp (24 bytes) and its two
//! hashes (64 hex digits) are written for every event of every debate, and as `String`s they
//! would be three allocations per event and three frees (measured: a third of the allocations
//! of an in-memory turn). Longer text — a log read from outside may hold anything in those
//! fields — is kept on the heap, so a `ShortStr` holds exactly the text it was given, whatever
//! its length, and compares, prints and serialises as that text.

use std::fmt;

/// Text of at most `N` bytes kept inline (no allocation); longer text boxed.
#[derive(Clone)]
pub struct ShortStr<const N: usize>(Repr<N>);

#[derive(Clone)]
enum Repr<const N: usize> {
    /// The first `len` bytes of `bytes`, valid UTF-8 (they were copied from a `&str`).
    Inline {
        len: u8,
        bytes: [u8; N],
    },
    Heap(Box<str>),
}

/// An RFC 3339 timestamp as the server writes it (`YYYY-MM-DDTHH:MM:SS.mmmZ`, 24 bytes).
pub type Stamp = ShortStr<24>;
/// A SHA-256 digest in lowercase hex (64 bytes).
pub type HexHash = ShortStr<64>;

impl<const N: usize> ShortStr<N> {
    /// Inline lengths are kept in a byte.
    const FITS: () = assert!(
        N <= u8::MAX as usize,
        "ShortStr holds at most 255 bytes inline"
    );

    pub const fn new() -> Self {
        let () = Self::FITS;
        ShortStr(Repr::Inline {
            len: 0,
            bytes: [0; N],
        })
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Only ever copied from a `&str` whole, so this is valid UTF-8 and never falls back.
            Repr::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            Repr::Heap(s) => s,
        }
    }

    /// The text's bytes, without `as_str`'s UTF-8 check (what hashing needs).
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Repr::Heap(s) => s.as_bytes(),
        }
    }

    /// Whether the text is held inline (tests).
    pub fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Inline { .. })
    }
}

impl<const N: usize> Default for ShortStr<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> From<&str> for ShortStr<N> {
    fn from(s: &str) -> Self {
        let () = Self::FITS;
        if s.len() <= N {
            let mut bytes = [0; N];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            // `s.len() <= N <= 255`.
            ShortStr(Repr::Inline {
                len: s.len() as u8,
                bytes,
            })
        } else {
            ShortStr(Repr::Heap(s.into()))
        }
    }
}

impl<const N: usize> From<String> for ShortStr<N> {
    fn from(s: String) -> Self {
        if s.len() <= N {
            Self::from(s.as_str())
        } else {
            ShortStr(Repr::Heap(s.into_boxed_str()))
        }
    }
}

impl<const N: usize> From<ShortStr<N>> for String {
    fn from(s: ShortStr<N>) -> String {
        match s.0 {
            Repr::Heap(s) => s.into_string(),
            Repr::Inline { .. } => s.as_str().to_owned(),
        }
    }
}

impl<const N: usize> std::ops::Deref for ShortStr<N> {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl<const N: usize> PartialEq for ShortStr<N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<const N: usize> Eq for ShortStr<N> {}

impl<const N: usize> PartialEq<str> for ShortStr<N> {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<const N: usize> PartialEq<&str> for ShortStr<N> {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<const N: usize> fmt::Debug for ShortStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl<const N: usize> fmt::Display for ShortStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<const N: usize> serde::Serialize for ShortStr<N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de, const N: usize> serde::Deserialize<'de> for ShortStr<N> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<const N: usize>;
        impl<const N: usize> serde::de::Visitor<'_> for Visit<N> {
            type Value = ShortStr<N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<ShortStr<N>, E> {
                Ok(ShortStr::from(s))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<ShortStr<N>, E> {
                Ok(ShortStr::from(s))
            }
        }
        deserializer.deserialize_str(Visit::<N>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same text in, the same text out, inline up to `N` bytes and boxed past it,
    /// and as JSON exactly what a `String` is.
    #[test]
    fn holds_any_text_inline_when_short() {
        let hash = "ab".repeat(32);
        let long = "x".repeat(65);
        let cases: &[(&str, bool)] = &[
            ("", true),
            ("2026-11-27T23:20:57.123Z", true),
            (&hash, true),
            (&long, false),
            ("é—ü ✓", true),
            ("quote \" and \\ and \n", true),
        ];
        for &(text, inline) in cases {
            let s = HexHash::from(text);
            assert_eq!(s.as_str(), text);
            assert_eq!(s.as_bytes(), text.as_bytes());
            assert_eq!(s.is_inline(), inline, "{text:?}");
            assert_eq!(s, *text);
            assert_eq!(s, HexHash::from(text.to_owned()));
            assert_eq!(String::from(s.clone()), text);
            assert_eq!(s.to_string(), text);
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, serde_json::to_string(text).unwrap());
            let back: HexHash = serde_json::from_str(&json).unwrap();
            assert_eq!(back, s);
            assert_eq!(back.is_inline(), inline);
        }
        // A timestamp's 24 bytes fit a `Stamp`; one more does not.
        assert!(Stamp::from("2026-11-27T23:20:57.123Z").is_inline());
        assert!(!Stamp::from("2026-11-27T23:20:57.1234Z").is_inline());
        assert_eq!(Stamp::default().as_str(), "");
    }

    #[test]
    fn a_non_string_is_refused() {
        for json in ["1", "null", "[]", "{}"] {
            assert!(serde_json::from_str::<Stamp>(json).is_err(), "{json}");
        }
    }
}
