//! Request validation names the problem.

use super::*;

fn req(query: &str, protocol: Option<&str>) -> CreateDebate {
    CreateDebate {
        query: query.into(),
        protocol: protocol.map(Into::into),
        ..CreateDebate::default()
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
