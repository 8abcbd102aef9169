//! Nothing secret from an upstream goes into the permanent log. Error bodies and
//! causes are summarised through [`redact`] before they become `agent_failed` events, exports or
//! log lines: a URL's userinfo and anything that looks like a key or token are replaced.

/// SV-18: a credential (an API key, the start token). Its `Debug` shows `***`, so printing a
/// settings struct with `{:?}` never prints it; the value is read with [`Secret::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Secret, Self::Err> {
        Ok(Secret(s.to_owned()))
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Secret {
        Secret(s.to_owned())
    }
}

/// SV-18: the credentials this process was given (API keys, tokens), redacted exactly wherever
/// they appear, however little they look like keys.
static KNOWN: std::sync::RwLock<Vec<String>> = std::sync::RwLock::new(Vec::new());

/// The shortest value redacted exactly: shorter ones would turn common words into `***`.
const MIN_KNOWN: usize = 6;

/// Makes `value` one [`redact`] always replaces (from start, for each configured credential).
pub fn register(value: &str) {
    let value = value.trim();
    if value.len() < MIN_KNOWN {
        return;
    }
    let mut known = KNOWN
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !known.iter().any(|k| k == value) {
        known.push(value.to_owned());
        // The longest first, so a key that contains another is replaced whole.
        known.sort_by_key(|k| std::cmp::Reverse(k.len()));
    }
}

/// `text` with every registered credential ([`register`]), URL userinfo
/// (`https://user:pass@host` → `https://***@host`) and key-like words (`sk-…`, long
/// high-entropy runs) replaced by `***`.
pub fn redact(text: &str) -> String {
    let mut text = text.to_owned();
    for known in KNOWN
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
    {
        if text.contains(known.as_str()) {
            text = text.replace(known.as_str(), "***");
        }
    }
    let without_userinfo = strip_userinfo(&text);
    let mut out = String::with_capacity(without_userinfo.len());
    let mut word = String::new();
    for c in without_userinfo.chars() {
        if is_token_char(c) {
            word.push(c);
        } else {
            flush(&mut out, &mut word);
            out.push(c);
        }
    }
    flush(&mut out, &mut word);
    out
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '~' | '+' | '/')
}

fn flush(out: &mut String, word: &mut String) {
    // A sentence's full stop is not part of the key before it.
    let core = word.trim_end_matches('.');
    if looks_secret(core) {
        out.push_str("***");
        out.push_str(&word[core.len()..]);
    } else {
        out.push_str(word);
    }
    word.clear();
}

/// Known key prefixes, or 24+ characters mixing letters and digits (API keys, JWTs, hashes).
fn looks_secret(word: &str) -> bool {
    const PREFIXES: [&str; 9] = [
        "sk-", "sk_", "pk-", "cj_", "cs_", "ghp_", "xox", "AKIA", "eyJ",
    ];
    let known = PREFIXES.iter().any(|p| word.starts_with(p)) && word.len() >= 12;
    let letters = word.chars().filter(char::is_ascii_alphabetic).count();
    let digits = word.chars().filter(char::is_ascii_digit).count();
    // Paths and dotted names (`/v1/chat/completions`, `api.openai.com`) are long but not secret.
    let path_like = word.contains('/') && digits == 0;
    known || (word.len() >= 24 && letters > 0 && digits > 0 && !path_like)
}

fn strip_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '/' | '"' | '\'' | '?' | '#' | '<' | '>')
            })
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(at) => {
                out.push_str("***");
                out.push_str(&authority[at..]);
            }
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// The first `max` characters of `s` on one line, with anything secret-looking removed
/// ([`redact`]), for error messages and the log.
pub fn excerpt(s: &str, max: usize) -> String {
    let one_line: String = redact(s)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let trimmed = one_line.trim();
    if trimmed.chars().count() <= max {
        format!("{trimmed:?}")
    } else {
        let cut: String = trimmed.chars().take(max).collect();
        format!("{cut:?}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SV-18: a registered credential is redacted exactly, even one no heuristic would take for
    /// a key; too short a value is not registered.
    #[test]
    fn registered_credentials_are_redacted_exactly_sv_18() {
        let plain = "correct-horse-battery";
        assert_eq!(
            redact(&format!("bad key {plain}")),
            format!("bad key {plain}")
        );
        register(plain);
        register("abc");
        assert_eq!(
            redact(&format!("bad key {plain}, again: {plain}.")),
            "bad key ***, again: ***."
        );
        assert_eq!(redact("abc is fine"), "abc is fine");
    }

    #[test]
    fn keys_and_userinfo_are_removed() {
        let cases = [
            (
                "Incorrect API key provided: sk-proj-AbC123dEf456GhI789. See docs.",
                "Incorrect API key provided: ***. See docs.",
            ),
            (
                "cannot reach http://bob:hunter2@10.0.0.5:8080/v1 (refused)",
                "cannot reach http://***@10.0.0.5:8080/v1 (refused)",
            ),
            (
                "Authorization: Bearer abcdef0123456789abcdef0123",
                "Authorization: Bearer ***",
            ),
            ("token=cj_0123456789abcdef", "token=***"),
            // Ordinary words, paths and numbers stay.
            (
                "model overloaded at /v1/chat/completions, retry in 20 s",
                "model overloaded at /v1/chat/completions, retry in 20 s",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(redact(input), want, "{input}");
        }
    }
}
