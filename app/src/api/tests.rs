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

/// QL-3: per-agent choices are checked field by field, naming the entry.
#[test]
fn ql_3_per_agent_choices_name_their_problem() {
    let choice = |role: &str, backend: Option<&str>, model: Option<&str>| AgentChoice {
        role: role.into(),
        backend: backend.map(Into::into),
        model: model.map(Into::into),
    };
    let with = |agents: Vec<AgentChoice>| CreateDebate {
        query: "Ship it?".into(),
        agents: Some(agents),
        ..CreateDebate::default()
    };
    let ok = with(vec![
        choice("Safety", Some("openai"), Some("llama3.1:8b")),
        choice("utility", None, None),
    ])
    .validate()
    .expect("valid");
    assert_eq!(
        ok.agents,
        vec![
            ValidChoice {
                agent: "safety".into(),
                backend: Backend::Openai,
                model: Some("llama3.1:8b".into())
            },
            ValidChoice {
                agent: "utility".into(),
                backend: Backend::Builtin,
                model: None
            },
        ]
    );
    let cases = [
        (vec![choice("", None, None)], "agents[0].role: must name"),
        (
            vec![choice("safety", None, None), choice("SAFETY", None, None)],
            "agents[1].role: 'safety' is chosen twice",
        ),
        (
            vec![choice("safety", Some("gpt"), None)],
            "agents[0].backend: unknown backend 'gpt'",
        ),
        (
            vec![choice("safety", Some("http"), Some("m"))],
            "agents[0].model: only the openai backend takes a model, not http",
        ),
        (vec![choice("safety", None, Some("m"))], "not builtin"),
        (
            vec![choice("safety", Some("openai"), Some("bad model"))],
            "agents[0].model: ' ' is not allowed",
        ),
        (vec![choice("x", None, None); 13], "at most 12"),
    ];
    for (agents, part) in cases {
        let e = with(agents).validate().expect_err("refused").to_string();
        assert!(e.contains(part), "{e}");
    }
}
