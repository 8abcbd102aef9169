//! Fuzzing the three parsers that read what strangers send — an agent's reply,
//! an export a judge opens, and the canonical JSON the hash chain is computed over. Each target
//! runs `FUZZ_CASES` generated inputs (default 3,000, bounded for `make test`; the README says how
//! to run millions) and must never panic; canonical JSON must also round-trip exactly.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::too_many_lines)] // a test: a panic is a failure with its place; a scenario reads top to bottom

use app::audit::{check, parse_export};
use app::protocol::canonical::to_canonical;
use app::protocol::collapse::WcTask;
use app::protocol::parse::{extract_object, parse_reply};
use app::protocol::s4::{S4Reply, S4Task};
use app::protocol::Task;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(3_000)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    })
}

/// Text that looks like a model's reply: JSON fragments, fences, chatter, braces and quotes in
/// hostile places, or anything at all.
fn reply_text() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        Just(",".to_owned()),
        Just("```json\n".to_owned()),
        Just("\"decision\": \"ACT\"".to_owned()),
        Just("\"confidence\": 1e400".to_owned()),
        Just("\"risk\": -1".to_owned()),
        Just("\"reasoning\": \"because\"".to_owned()),
        Just("\"argues_for\": \"WARN\", \"text\": \"x\"".to_owned()),
        Just("\"stance\": \"BUY\"".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        "[ -~]{0,12}",
        any::<String>(),
    ];
    prop_oneof![
        prop::collection::vec(fragment, 0..40).prop_map(|parts| parts.concat()),
        any::<String>(),
    ]
}

/// One task of each reply kind the parser reads for S4 and RR, and WC's card.
fn tasks() -> Vec<Task> {
    let query = "Should we ship tonight?";
    let analyse = Task::S4(S4Task::Analyse {
        query: query.into(),
    });
    let good = r#"{"decision": "WARN", "confidence": 70, "risk": 20, "reasoning": "Check first."}"#;
    let own = match parse_reply(&analyse, "utility", good) {
        Ok(app::protocol::AgentReply::S4(S4Reply::Position(p))) => {
            serde_json::to_value(p).expect("position")
        }
        other => panic!("a good position parses: {other:?}"),
    };
    let mut tasks = vec![
        analyse,
        Task::Collapse(WcTask::WriteCard {
            query: query.into(),
        }),
    ];
    for json in [
        serde_json::json!({"kind": "challenge", "query": query, "own": own, "target": "accuracy",
                           "target_role": "accuracy", "target_reasoning": "It is fine."}),
        serde_json::json!({"kind": "revise", "query": query, "own": own, "challenges": []}),
        serde_json::json!({"kind": "turn", "query": query, "turn": 1, "own": null, "peers": []}),
    ] {
        tasks.push(serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{json}: {e}")));
    }
    tasks
}

#[test]
fn fuzz_the_agent_reply_parser() {
    let tasks = tasks();
    let n = std::cell::Cell::new(0u64);
    runner()
        .run(&reply_text(), |text| {
            let _ = extract_object(&text);
            for task in &tasks {
                let _ = parse_reply(task, "utility", &text);
            }
            n.set(n.get() + 1);
            Ok(())
        })
        .expect("the reply parser never panics");
    println!(
        "fuzz reply parser: {} inputs × {} task kinds, no panic",
        n.get(),
        tasks.len()
    );
}

/// Any JSON value (the shapes an export or an event can take).
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<u64>().prop_map(serde_json::Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(serde_json::Value::from),
        any::<String>().prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..8)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn fuzz_canonical_json_round_trips() {
    let n = std::cell::Cell::new(0u64);
    runner()
        .run(&json_value(), |value| {
            let bytes = to_canonical(&value, &[]).expect("any JSON value serialises");
            let text = std::str::from_utf8(&bytes).expect("UTF-8");
            let back: serde_json::Value =
                serde_json::from_str(text).expect("canonical JSON parses");
            prop_assert_eq!(&back, &value);
            // Canonical means one form: writing it again gives the same bytes.
            prop_assert_eq!(to_canonical(&back, &[]).expect("again"), bytes);
            n.set(n.get() + 1);
            Ok(())
        })
        .expect("canonical JSON round-trips");
    println!("fuzz canonical JSON: {} values round-tripped", n.get());
}

/// Exports as a hostile file would have them: a real log's shape with fields replaced by any
/// JSON, or any JSON at all, or any text.
fn export_text() -> impl Strategy<Value = String> {
    let event = (any::<u64>(), json_value(), "[a-z_]{1,16}").prop_map(|(seq, v, kind)| {
        serde_json::json!({"seq": seq, "ts": "2026-01-01T00:00:00.000Z", "type": kind,
                           "prev_hash": "0".repeat(64), "hash": "f".repeat(64), "x": v})
    });
    prop_oneof![
        prop::collection::vec(event, 0..12)
            .prop_map(|events| serde_json::json!({"id": "d", "events": events}).to_string()),
        json_value().prop_map(|v| v.to_string()),
        any::<String>(),
    ]
}

#[test]
fn fuzz_the_export_parser_and_check() {
    let n = std::cell::Cell::new(0u64);
    runner()
        .run(&export_text(), |text| {
            if let Ok(events) = parse_export(&text) {
                let _ = check(&events);
            }
            n.set(n.get() + 1);
            Ok(())
        })
        .expect("the export parser never panics");
    println!("fuzz export parser: {} files, no panic", n.get());
}

/// RC-3: text that looks like a reconciler's XML reply — its elements in any order, unclosed,
/// doubled, entity references, DTD fragments, chatter — or anything at all.
fn xml_text() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("<reconciliation>".to_owned()),
        Just("</reconciliation>".to_owned()),
        Just("<conflicts>yes</conflicts>".to_owned()),
        Just("<conflicts>".to_owned()),
        Just("<consolidated_belief>Meeting at 3pm</consolidated_belief>".to_owned()),
        Just("<confidence>0.8</confidence>".to_owned()),
        Just("<confidence>1e400</confidence>".to_owned()),
        Just("<needs_clarification>false</needs_clarification>".to_owned()),
        Just("<needs_clarification>true</needs_clarification>".to_owned()),
        Just("<clarification_question>What time?</clarification_question>".to_owned()),
        Just("<reasoning>why &amp; how</reasoning>".to_owned()),
        Just("&lol;".to_owned()),
        Just("<!DOCTYPE r [<!ENTITY lol \"lol\">]>".to_owned()),
        Just("<![CDATA[".to_owned()),
        Just("]]>".to_owned()),
        Just("<?xml version=\"1.0\"?>".to_owned()),
        Just("```xml\n".to_owned()),
        Just("<".to_owned()),
        Just(">".to_owned()),
        "[ -~]{0,12}",
        any::<String>(),
    ];
    proptest::collection::vec(fragment, 0..24).prop_map(|parts| parts.concat())
}

#[test]
fn fuzz_the_reconciler_xml_parser() {
    use app::protocol::reconcile::parse_reply as parse;
    runner()
        .run(&xml_text(), |text| {
            // Never a panic; a reply read is strict about its content.
            if let Ok(r) = parse(&text) {
                prop_assert!((0.0..=1.0).contains(&r.confidence));
                prop_assert!(!r.reasoning.is_empty());
                prop_assert!(r.needs_clarification || r.consolidated_belief.is_some());
                prop_assert!(!r.needs_clarification || r.clarification_question.is_some());
            }
            Ok(())
        })
        .expect("the XML reply parser never panics");
}
