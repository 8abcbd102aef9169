use super::*;

/// A map that serialises its entries as given, repeated keys included.
struct Entries<'a>(Vec<(&'a str, serde_json::Value)>);

impl Serialize for Entries<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

fn canonical<T: Serialize>(v: &T, skip: &[&str]) -> String {
    String::from_utf8(to_canonical(v, skip).expect("canonical")).expect("UTF-8")
}

/// SV-2: keys sorted by their UTF-8 bytes at every depth, escaped as serde_json escapes
/// strings; integer keys as strings; a repeated key keeps its last value; `skip` applies to
/// the top level only.
#[test]
fn objects_at_every_depth_come_out_sorted_and_escaped_sv_2() {
    use serde_json::json;
    let cases: Vec<(serde_json::Value, &[&str], &str)> = vec![
        (
            json!({"b": 1, "a": {"d": [true, null], "c": "x"}}),
            &[],
            r#"{"a":{"c":"x","d":[true,null]},"b":1}"#,
        ),
        (
            json!({"q\"uote": 1, "back\\slash": 2, "tab\t": 3, "nul\u{0}": 4}),
            &[],
            r#"{"back\\slash":2,"nul\u0000":4,"q\"uote":1,"tab\t":3}"#,
        ),
        (
            json!({"é": 1, "z": 2, "漢": 3, "Z": 4}),
            &[],
            r#"{"Z":4,"z":2,"é":1,"漢":3}"#,
        ),
        (
            json!({"hash": "h", "seq": 1, "inner": {"hash": "kept"}}),
            &["hash"],
            r#"{"inner":{"hash":"kept"},"seq":1}"#,
        ),
        (
            json!({"ab": 1, "a": 2, "b": 3, "aa": 4}),
            &[],
            r#"{"a":2,"aa":4,"ab":1,"b":3}"#,
        ),
        (
            json!([{"b": 1, "a": 2}, {}, []]),
            &[],
            r#"[{"a":2,"b":1},{},[]]"#,
        ),
        (
            json!({"n": 1.5, "m": -0.0, "big": 1e300}),
            &[],
            r#"{"big":1e+300,"m":-0.0,"n":1.5}"#,
        ),
    ];
    for (value, skip, want) in cases {
        assert_eq!(canonical(&value, skip), want, "{value}");
    }
    let ints: std::collections::HashMap<u32, bool> = [(10, true), (9, false)].into();
    assert_eq!(canonical(&ints, &[]), r#"{"10":true,"9":false}"#);
    // Members given out of order (a `Value` map is already sorted): prefixes first, bytes order.
    let unsorted = Entries(vec![
        ("漢", json!(1)),
        ("b", json!(2)),
        ("ab", json!(3)),
        ("é", json!(4)),
        ("a", json!(5)),
        ("Z", json!(6)),
        ("aa", json!(7)),
    ]);
    assert_eq!(
        canonical(&unsorted, &[]),
        r#"{"Z":6,"a":5,"aa":7,"ab":3,"b":2,"é":4,"漢":1}"#
    );
    let repeated = Entries(vec![("a", json!(1)), ("b", json!(2)), ("a", json!(3))]);
    assert_eq!(canonical(&repeated, &[]), r#"{"a":3,"b":2}"#);
    // Sorting compares the keys' first eight bytes as one number, then whole keys: keys that
    // share those bytes, keys that end within them, a zero byte where a shorter key's padding
    // is, each in the order given, reversed and sorted; then a repeated key given in order.
    let keys = [
        "abcdefgh",
        "abcdefgh\u{0}",
        "abcdefgh0",
        "abcdefghi",
        "abcdefg",
        "abcdefgi",
        "a",
        "a\u{0}",
        "a\u{0}b",
        "\u{0}",
        "",
        "abcdefgh01",
        "abcdefgh00",
        "ÿ",
        "é",
    ];
    let mut sorted: Vec<&str> = keys.to_vec();
    sorted.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let want = format!(
        "{{{}}}",
        sorted
            .iter()
            .map(|k| format!("{}:{}", serde_json::to_string(k).expect("key"), k.len()))
            .collect::<Vec<_>>()
            .join(",")
    );
    for order in [
        keys.to_vec(),
        keys.iter().rev().copied().collect(),
        sorted.clone(),
    ] {
        let entries = Entries(order.iter().map(|k| (*k, json!(k.len()))).collect());
        assert_eq!(canonical(&entries, &[]), want, "{order:?}");
    }
    let twice_in_order = Entries(vec![("a", json!(1)), ("a", json!(2)), ("b", json!(3))]);
    assert_eq!(canonical(&twice_in_order, &[]), r#"{"a":2,"b":3}"#);
}

/// Buffers reused from one value to the next leave nothing behind (`SPARE`'s buffers).
#[test]
fn reused_buffers_do_not_leak_between_values_sv_2() {
    use serde_json::json;
    let big = json!({"z": "y".repeat(100_000), "a": {"b": {"c": 1}}});
    let small = json!({"k": {"j": 2}});
    for _ in 0..3 {
        assert!(canonical(&big, &[]).starts_with(r#"{"a":{"b":{"c":1}},"z":"yyy"#));
        assert_eq!(canonical(&small, &[]), r#"{"k":{"j":2}}"#);
    }
    let mut out = b"prefix".to_vec();
    write_canonical(&small, &[], &mut out).expect("canonical");
    assert_eq!(out, br#"prefix{"k":{"j":2}}"#);
}

/// SV-2: a string is written exactly as serde_json writes it, as a value and as a key (keys
/// with nothing to escape are copied as they are, `needs_no_escape`), wherever the escaped byte
/// falls.
#[test]
fn strings_come_out_as_serde_json_writes_them_sv_2() {
    let mut cases: Vec<String> = vec![
        String::new(),
        "plain text".into(),
        "exactly8".into(),
        "tab\tand \"quotes\" and back\\slash".into(),
        "é 漢 🎲 non-ASCII is not escaped".into(),
        "\u{2028}\u{2029} line separators neither".into(),
    ];
    // Every ASCII byte on its own, then each byte JSON escapes (and its neighbours, which it
    // does not) at every place of a 20-byte string.
    cases.extend((0u8..=0x7f).map(|b| char::from(b).to_string()));
    for special in [
        '\0', '\u{1}', '\u{1f}', ' ', '!', '"', '#', '[', '\\', ']', '\u{7f}', 'é',
    ] {
        for at in 0..=20 {
            let mut s = "a".repeat(20);
            s.insert(at, special);
            cases.push(s);
        }
    }
    for s in cases {
        let want = serde_json::to_string(&s).expect("serde_json");
        assert_eq!(canonical(&s, &[]), want, "{s:?}");
        // And as a key and a value of an object.
        let object = Entries(vec![(s.as_str(), serde_json::json!(s))]);
        assert_eq!(
            canonical(&object, &[]),
            format!("{{{want}:{want}}}"),
            "{s:?}"
        );
    }
}
