use super::*;
use crate::api::DebateDetail;
use crate::protocol::chain::seal_all;
use crate::protocol::event::DebateEvent;
use crate::protocol::s4::{S4Event, S4Reply, S4Task};
use crate::protocol::shared::CommonEvent;
use crate::protocol::{run_scripted, Decision, Position};

/// Utility and accuracy start at ACT; accuracy is persuaded to WARN in round 3; safety fails its
/// revision once (S4-8) — a log with a change of mind, a failure and a split decision.
fn log() -> Vec<Event> {
    let (_, bodies) = run_scripted(AgentSpec::default_s4(), |req| match &req.task {
        S4Task::Challenge { .. } => Ok(S4Reply::Challenge {
            text: format!(
                "{} | doubts `{}` [x](http://e.vil) ![i](y)\nsecond",
                req.agent, req.round
            ),
            argues_for: Decision::Warn,
        }),
        S4Task::Revise { .. } if req.agent == "safety" => Err("timed out".into()),
        S4Task::Revise { .. } if req.agent == "accuracy" => Ok(S4Reply::Position(Position {
            decision: Decision::Warn,
            confidence: 55,
            risk: 30,
            reasoning: "The challenges <b>convinced</b> me.".into(),
        })),
        _ => Ok(S4Reply::Position(Position {
            decision: Decision::Act,
            confidence: 80,
            risk: 10,
            reasoning: "Well established.".into(),
        })),
    });
    seal_all(bodies)
}

fn verified_outcome(events: &[Event]) -> crate::protocol::s4::S4Outcome {
    match check(events) {
        Check::Verified {
            outcome: crate::protocol::Outcome::S4(outcome),
            ..
        } => outcome,
        other => panic!("expected verified, got {other:?}"),
    }
}

#[test]
fn check_verifies_the_chain_and_recomputes_the_decision_sv_2() {
    let events = log();
    let n = events.len();
    assert_eq!(n as u64, LAST);
    let c = check(&events);
    let outcome = verified_outcome(&events);
    assert_eq!(
        c.headline(),
        format!(
            "verified: {n} events, decision {} recomputed",
            outcome.decision
        )
    );
    let details = c.details();
    assert_eq!(details.len(), 3, "{details:?}");
    assert!(details[1].contains("from 3 logged votes"), "{details:?}");
}

/// The sequence number of the decision event in [`log`].
const LAST: u64 = 34;

#[test]
fn check_names_the_first_problem_sv_2() {
    let events = log();
    type Tamper = fn(&mut Vec<Event>);
    let cases: Vec<(&str, Tamper, &str, Option<u64>)> = vec![
        ("empty", |l| l.clear(), "the log is empty", None),
        (
            "edited reasoning",
            |l| {
                for e in l.iter_mut().filter(|e| e.seq == 4) {
                    assert!(
                        matches!(e.body, EventBody::S4(S4Event::Position { .. })),
                        "{:?}",
                        e.body
                    );
                    if let EventBody::S4(S4Event::Position { position, .. }) = &mut e.body {
                        position.reasoning = "edited".into();
                    }
                }
            },
            "tampered at event 4:",
            Some(4),
        ),
        (
            "dropped event",
            |l| drop(l.remove(2)),
            "tampered at event 4:",
            Some(4),
        ),
        ("unfinished", |l| drop(l.pop()), "chain verified (", None),
        (
            "forged decision, re-sealed",
            |l| {
                let last = l.len() - 1;
                if let EventBody::Debate(DebateEvent::Decision(crate::protocol::Outcome::S4(o))) =
                    &mut l[last].body
                {
                    o.decision = crate::protocol::Verdict::Refuse;
                }
                let prev = l[last - 1].hash.clone();
                l[last] = crate::protocol::chain::seal(l[last].clone(), &prev);
            },
            "the logged decision REFUSE (split",
            Some(LAST),
        ),
    ];
    for (name, tamper, want, at) in cases {
        let mut l = events.clone();
        tamper(&mut l);
        let c = check(&l);
        assert!(!c.is_verified(), "{name}");
        assert!(c.headline().starts_with(want), "{name}: {}", c.headline());
        assert_eq!(c.tampered_at(), at, "{name}");
    }
}

#[test]
fn exports_parse_from_objects_and_arrays_and_bad_events_are_located() {
    let events = log();
    let detail = serde_json::json!({"id": "x", "events": events});
    assert_eq!(parse_export(&detail.to_string()).expect("object"), events);
    let array = serde_json::to_string(&events).expect("ser");
    assert_eq!(parse_export(&array).expect("array"), events);

    let mut broken: serde_json::Value = serde_json::from_str(&array).expect("json");
    broken[6]["type"] = "teleport".into();
    let cases = [
        (broken.to_string(), "tampered at event 7"),
        ("{".to_owned(), "not a JSON document"),
        ("{\"id\": 1}".to_owned(), "no \"events\" array"),
        ("{\"events\": 3}".to_owned(), "\"events\" is not an array"),
        ("42".to_owned(), "expected a JSON object or array"),
    ];
    for (text, want) in cases {
        let err = parse_export(&text).expect_err(want);
        assert!(err.contains(want), "{want}: {err}");
    }
}

#[test]
fn audit_shows_each_agent_before_and_after_ui_3() {
    let events = log();
    let audit = Audit::from_events(&events);
    assert_eq!(
        audit.timeline.len(),
        events.len(),
        "every event is on the timeline"
    );
    assert_eq!(audit.view.query, "Is the sky blue?");
    assert_eq!(audit.view.s4.journeys.len(), 3);

    let accuracy = &audit.view.s4.journeys[1];
    assert_eq!(accuracy.agent.id, "accuracy");
    assert_eq!(
        accuracy.initial.as_ref().map(|p| p.decision),
        Some(Decision::Act)
    );
    let rev = accuracy.revision.as_ref().expect("revision");
    assert!(rev.changed);
    assert_eq!(
        accuracy.change_summary(),
        "changed ACT → WARN (confidence 80 → 55, risk 10 → 30)"
    );
    assert_eq!(
        accuracy.vote.as_ref().map(|v| v.decision),
        Some(Decision::Warn)
    );

    let utility = &audit.view.s4.journeys[0];
    assert!(
        utility.change_summary().starts_with("kept ACT"),
        "{}",
        utility.change_summary()
    );

    let safety = &audit.view.s4.journeys[2];
    assert_eq!(safety.failures.len(), 1, "{:?}", safety.failures);
    assert!(safety.failures[0].contains("timed out"));
    assert!(audit.view.decision.is_some());
}

#[test]
fn the_challenge_matrix_holds_every_pair_once_s4_3() {
    let audit = Audit::from_events(&log());
    assert_eq!(audit.view.s4.challenges.len(), 6);
    for from in ["utility", "accuracy", "safety"] {
        assert!(
            audit.view.s4.challenge(from, from).is_none(),
            "nobody challenges themselves"
        );
        for to in ["utility", "accuracy", "safety"] {
            if from != to {
                let c = audit.view.s4.challenge(from, to).expect("pair");
                assert!(c.text.starts_with(from));
                assert_eq!(c.argues_for, Decision::Warn);
            }
        }
    }
}

#[test]
fn the_timeline_describes_every_kind_of_event() {
    let audit = Audit::from_events(&log());
    let kinds: std::collections::BTreeSet<_> =
        audit.timeline.iter().map(|e| e.kind.as_str()).collect();
    for k in [
        "debate_started",
        "round_started",
        "thinking",
        "position",
        "challenge",
        "revision",
        "vote",
        "agent_failed",
        "decision",
    ] {
        assert!(kinds.contains(k), "{k} missing from {kinds:?}");
    }
    let first = &audit.timeline[0];
    assert_eq!(
        first.summary,
        "S4 debate started with Utility Agent, Accuracy Agent, Safety Agent (seed 7)"
    );
    assert!(audit
        .timeline
        .iter()
        .all(|e| !e.summary.is_empty() && e.hash.len() == 64));
}

#[test]
fn the_markdown_report_has_every_section_and_escapes_agent_text() {
    let events = log();
    let outcome = verified_outcome(&events);
    let detail = DebateDetail {
        id: "abc123".into(),
        query: "Is the sky blue?".into(),
        protocol: "s4".into(),
        status: crate::protocol::DebateStatus::Finished,
        decision: Some(outcome.decision.to_string()),
        seed: 7,
        created_at: "2026-11-22T00:00:00.000Z".into(),
        events: events.clone(),
        signature: None,
    };
    let md = markdown::report(&detail);
    for want in [
        "# Consilium debate report",
        "**Query:** Is the sky blue?",
        &format!("## Decision: {}", outcome.decision),
        "## Agents: before and after the challenges",
        "### Accuracy Agent",
        "changed its mind",
        "ACT (confidence 80, risk 10) → WARN (confidence 55, risk 30)",
        "The challenges &lt;b&gt;convinced&lt;/b&gt; me.",
        "## Round 2: cross-challenges",
        "| Utility Agent | Accuracy Agent | WARN | utility \\| doubts \\`2\\` \\[x\\](http://e.vil) \\!\\[i\\](y) second |",
        "**Failure:** round 3: timed out",
        "## Timeline",
        "## Integrity",
        &format!(
            "verified: {} events, decision {} recomputed",
            events.len(),
            outcome.decision
        ),
        &format!("Last hash: `{}`", events[events.len() - 1].hash),
    ] {
        assert!(md.contains(want), "missing {want:?} in\n{md}");
    }
    // Every timeline row is one table line: agent text cannot break the table.
    let rows = md
        .lines()
        .filter(|l| l.starts_with("| ") && l.ends_with("` |"))
        .count();
    assert_eq!(rows, events.len());
}

/// AG-2 / SV-2: a budget stop is reported when the calls bear it out, and a re-sealed log whose
/// stop claims other numbers fails at that event.
#[test]
fn a_budget_stop_is_checked_against_the_logged_calls() {
    use crate::protocol::s4::S4Debate;
    use crate::protocol::{AgentCall, BackendInfo, Debate};
    let mut d = Debate::S4(S4Debate::new("Ship it?", AgentSpec::default_s4(), 1).expect("s4"));
    let mut bodies = Vec::new();
    for n in 0..=2 {
        while let Some(mut e) = d.poll_event() {
            if let EventBody::Debate(DebateEvent::DebateStarted { backend, .. }) = &mut e {
                *backend = Some(Box::new(BackendInfo {
                    kind: "openai".into(),
                    model: None,
                    token_budget: 1000,
                    service: None,
                }));
            }
            bodies.push(e);
        }
        let req = d.poll_request().expect("a request");
        bodies.push(EventBody::Common(CommonEvent::AgentCall(AgentCall {
            agent: req.agent.clone(),
            round: req.round,
            backend: "openai".into(),
            attempts: 1,
            latency_ms: 9,
            prompt_tokens: 300,
            completion_tokens: 100,
            ok: true,
            estimated: false,
            retry_after_ms: 0,
            streamed: false,
            cancelled: false,
            reasked: false,
        })));
        let reply = S4Reply::Position(Position {
            decision: Decision::Act,
            confidence: 70,
            risk: 10,
            reasoning: format!("answer {n}"),
        });
        d.handle_reply(req.id, reply.into()).expect("accepted");
    }
    d.exhaust(1200, 1000);
    while let Some(e) = d.poll_event() {
        bodies.push(e);
    }
    let log = seal_all(bodies.clone());
    let c = check(&log);
    match &c {
        Check::Verified {
            budget: Some(b), ..
        } => assert_eq!((b.used, b.budget, b.calls), (1200, 1000, 3)),
        other => panic!("expected a verified budget stop, got {other:?}"),
    }
    assert!(
        c.details()
            .iter()
            .any(|l| l.starts_with("budget: stopped at 1200 of 1000 tokens")),
        "{:?}",
        c.details()
    );
    // A forger lowers the tokens used and re-seals every hash: the calls still add up to 1200.
    let at = bodies
        .iter()
        .position(|b| matches!(b, EventBody::Common(CommonEvent::BudgetExhausted { .. })))
        .expect("a stop");
    if let EventBody::Common(CommonEvent::BudgetExhausted { used, .. }) = &mut bodies[at] {
        *used = 1000;
    }
    let forged = seal_all(bodies);
    match check(&forged) {
        Check::Failed { reason, seq } => {
            assert_eq!(seq, Some(at as u64 + 1));
            assert!(
                reason.contains("says 1000 tokens were used, the logged calls add up to 1200"),
                "{reason}"
            );
        }
        other => panic!("expected the forged stop to fail, got {other:?}"),
    }
}
