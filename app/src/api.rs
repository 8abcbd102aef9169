//! Types that cross the wire (HTTP JSON, SSE, server functions) and the request rules shared by the
//! server and the browser form.

use serde::{Deserialize, Serialize};

use crate::protocol::Event;

/// S4-8: longer queries are rejected with a clear error.
pub const MAX_QUERY_CHARS: usize = 4000;

/// `POST /api/debates` body.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateDebate {
    pub query: String,
    /// Defaults to `"s4"`.
    #[serde(default)]
    pub protocol: Option<String>,
    /// Makes the builtin agents reproducible; a random one is chosen and recorded when absent.
    #[serde(default)]
    pub seed: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    S4,
}

impl Protocol {
    pub const ALL: [Protocol; 1] = [Protocol::S4];

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::S4 => "s4",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Protocol::S4 => "S4 — four-round debate",
        }
    }
}

/// A request that passed validation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidDebate {
    pub query: String,
    pub protocol: Protocol,
    pub seed: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("query must not be empty")]
    EmptyQuery,
    #[error("query is {0} characters long; the limit is {MAX_QUERY_CHARS}")]
    QueryTooLong(usize),
    #[error("unknown protocol '{0}': expected one of: s4")]
    UnknownProtocol(String),
    #[error(
        "query contains the control character U+{code:04X} at character {at}; only tabs and line breaks are allowed"
    )]
    ControlCharacter { code: u32, at: usize },
}

/// Debate ids are generated as short lowercase hex; anything else cannot name a debate, so it is
/// answered (404) without asking the database.
pub fn is_debate_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

impl CreateDebate {
    /// S4-8 / SV-6: empty or over-long queries and unknown protocols are rejected, naming the field.
    pub fn validate(&self) -> Result<ValidDebate, RequestError> {
        let query = self.query.trim();
        if query.is_empty() {
            return Err(RequestError::EmptyQuery);
        }
        let chars = query.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(RequestError::QueryTooLong(chars));
        }
        // NUL and other control characters are never part of a question (and NUL cannot be stored
        // in PostgreSQL text): refuse them instead of failing later.
        if let Some((at, c)) = query
            .chars()
            .enumerate()
            .find(|(_, c)| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        {
            return Err(RequestError::ControlCharacter {
                code: u32::from(c),
                at: at + 1,
            });
        }
        let protocol = match self.protocol.as_deref().map(str::trim) {
            None | Some("") => Protocol::S4,
            Some(p) => Protocol::ALL
                .into_iter()
                .find(|known| known.as_str().eq_ignore_ascii_case(p))
                .ok_or_else(|| RequestError::UnknownProtocol(p.to_owned()))?,
        };
        Ok(ValidDebate {
            query: query.to_owned(),
            protocol,
            seed: self.seed,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    pub id: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: String,
}

/// One row of `GET /api/debates`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DebateSummary {
    pub id: String,
    pub query: String,
    pub protocol: String,
    /// `running | finished | interrupted`.
    pub status: String,
    /// The decision's label: `ACT`/`WARN`/`REFUSE` (S4), `BUY`/`SELL`/`HOLD` (RR), or the WC
    /// outcome (`ACCEPTED`, `CONSENSUS_REACHED`, …).
    pub decision: Option<String>,
    pub created_at: String,
}

/// `GET /api/debates/{id}`: the summary plus the whole event log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DebateDetail {
    pub id: String,
    pub query: String,
    pub protocol: String,
    pub status: String,
    pub decision: Option<String>,
    pub seed: u64,
    pub created_at: String,
    pub events: Vec<Event>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(query: &str, protocol: Option<&str>) -> CreateDebate {
        CreateDebate {
            query: query.into(),
            protocol: protocol.map(Into::into),
            seed: None,
        }
    }

    #[test]
    fn request_validation_s4_8_sv_6() {
        let long = "x".repeat(MAX_QUERY_CHARS + 1);
        let exact = "é".repeat(MAX_QUERY_CHARS); // counted in characters, not bytes
        let cases: Vec<(&str, CreateDebate, Result<Protocol, RequestError>)> = vec![
            ("S4-8 empty", req("", None), Err(RequestError::EmptyQuery)),
            (
                "S4-8 blank",
                req(" \n\t ", None),
                Err(RequestError::EmptyQuery),
            ),
            (
                "S4-8 too long",
                req(&long, None),
                Err(RequestError::QueryTooLong(MAX_QUERY_CHARS + 1)),
            ),
            ("S4-8 at the limit", req(&exact, None), Ok(Protocol::S4)),
            (
                "SV-6 NUL byte",
                req("a\0b", None),
                Err(RequestError::ControlCharacter { code: 0, at: 2 }),
            ),
            (
                "SV-6 escape character",
                req("ab\u{1b}[31m", None),
                Err(RequestError::ControlCharacter { code: 0x1b, at: 3 }),
            ),
            (
                "line breaks and tabs are fine",
                req("line one\r\n\tline two", None),
                Ok(Protocol::S4),
            ),
            ("default protocol", req("q", None), Ok(Protocol::S4)),
            ("case-insensitive", req("q", Some("S4")), Ok(Protocol::S4)),
            (
                "SV-6 unknown protocol",
                req("q", Some("chess")),
                Err(RequestError::UnknownProtocol("chess".into())),
            ),
        ];
        for (name, input, expected) in cases {
            assert_eq!(input.validate().map(|v| v.protocol), expected, "{name}");
        }
    }

    #[test]
    fn debate_ids_sv_6() {
        for ok in ["a1b2c3d4e5f60718", "X", &"f".repeat(64)] {
            assert!(is_debate_id(ok), "{ok}");
        }
        for bad in [
            "",
            "' OR 1=1--",
            "<script>",
            "a\0b",
            "ab-cd",
            "é",
            &"f".repeat(65),
        ] {
            assert!(!is_debate_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn errors_name_the_problem() {
        let e = req("q", Some("chess")).validate().expect_err("unknown");
        assert!(e.to_string().contains("protocol"), "{e}");
        let e = req("", None).validate().expect_err("empty");
        assert!(e.to_string().contains("query"), "{e}");
    }
}

/// What the server gives the UI's server functions (provided as context during SSR).
#[cfg(feature = "ssr")]
pub trait DebateService: Send + Sync + 'static {
    fn list(&self) -> futures::future::BoxFuture<'_, Result<Vec<DebateSummary>, String>>;
    fn get(
        &self,
        id: String,
    ) -> futures::future::BoxFuture<'_, Result<Option<DebateDetail>, String>>;
    /// Returns the new debate's id, or an error message naming the problem.
    fn start(
        &self,
        request: CreateDebate,
    ) -> futures::future::BoxFuture<'_, Result<String, String>>;
}

#[cfg(feature = "ssr")]
pub type SharedService = std::sync::Arc<dyn DebateService>;
