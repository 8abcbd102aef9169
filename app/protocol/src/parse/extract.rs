//! Finding the agent's JSON object in a text reply: in one pass over the text (linear even on a
//! hostile 256 KiB of `{`), fences and chatter ignored, trailing commas forgiven.

use serde_json::{Map, Value};

use super::R;

/// Finds the first JSON object in `text` that parses (fences and chatter around it are ignored).
pub fn extract_object(text: &str) -> R<Map<String, Value>> {
    if text.trim().is_empty() {
        return Err("empty reply".into());
    }
    let (objects, cut_off) = balanced_objects(text);
    let mut not_object = None;
    // Each failed candidate costs at most its own length; a hostile reply gets a bounded number.
    for (start, end) in objects.into_iter().take(MAX_CANDIDATES) {
        let candidate = &text[start..end];
        let parsed = serde_json::from_str::<Value>(candidate)
            .or_else(|_| serde_json::from_str::<Value>(&drop_trailing_commas(candidate)));
        match parsed {
            Ok(Value::Object(o)) => return Ok(o),
            Ok(_) => {}
            Err(e) => {
                not_object.get_or_insert(e.to_string());
            }
        }
    }
    Err(match (not_object, cut_off) {
        (Some(e), _) => format!("the reply's JSON object does not parse: {e}"),
        (None, true) => "the reply's JSON object is cut off (no closing brace)".into(),
        (None, false) => "no JSON object in the reply".into(),
    })
}

/// The most `{…}` candidates one reply gets parsed.
const MAX_CANDIDATES: usize = 64;

/// Every balanced `{…}` in `text` as a byte range, in order of where it starts, and whether some
/// `{` was never closed. One pass (linear even on 256 KiB of `{`): braces inside JSON strings do
/// not count, and quotes in the chatter around an object are not strings.
fn balanced_objects(text: &str) -> (Vec<(usize, usize)>, bool) {
    let mut open = Vec::new();
    let mut pairs = Vec::new();
    let mut string = JsonString::default();
    for (i, c) in text.char_indices() {
        if string.inside {
            string.read(c);
            continue;
        }
        match c {
            '"' if !open.is_empty() => string.inside = true,
            '{' => open.push(i),
            '}' => {
                if let Some(start) = open.pop() {
                    pairs.push((start, i + 1));
                }
            }
            _ => {}
        }
    }
    pairs.sort_unstable_by_key(|&(start, _)| start);
    (pairs, !open.is_empty())
}

/// `{"a": 1,}` → `{"a": 1}` (outside strings).
fn drop_trailing_commas(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut string = JsonString::default();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if string.inside {
            string.read(c);
        } else if c == '"' {
            string.inside = true;
        } else if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}' | ']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Whether a scan is inside a JSON string, and whether the next character there is escaped.
#[derive(Default)]
struct JsonString {
    inside: bool,
    escaped: bool,
}

impl JsonString {
    /// Reads one character inside the string: a backslash escapes the next, an unescaped quote
    /// ends the string.
    fn read(&mut self, c: char) {
        match (self.escaped, c) {
            (true, _) => self.escaped = false,
            (false, '\\') => self.escaped = true,
            (false, '"') => self.inside = false,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hostile replies cost one pass. 256 KiB of unclosed `{` is "cut off";
    /// the same with a good object at its end still finds the object; thousands of broken
    /// candidates stop after the candidate cap.
    #[test]
    fn hostile_replies_are_parsed_in_one_pass() {
        let open = "{".repeat(256 * 1024);
        let e = extract_object(&open).expect_err("unclosed");
        assert!(e.contains("cut off"), "{e}");
        let tail = format!("{open}{{\"decision\": \"WARN\"}}");
        assert_eq!(extract_object(&tail).expect("found")["decision"], "WARN");
        let broken = "{x}".repeat(100_000);
        let e = extract_object(&broken).expect_err("broken");
        assert!(e.contains("does not parse"), "{e}");
        let chatter = r#"He said "use {this} and then: {"decision": "ACT"}"#;
        assert_eq!(extract_object(chatter).expect("chatter")["decision"], "ACT");
    }
}
