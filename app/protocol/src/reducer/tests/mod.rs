use super::*;
use crate::s4::{S4Event, S4Reply, S4Task};
use crate::shared::CommonEvent;
use crate::{run_scripted, AgentSpec, Decision, Position};

/// A scripted S4 debate as a stamped log: everyone ACTs, utility concedes to WARN.
fn log() -> Vec<Event> {
    let (_, bodies) = run_scripted(AgentSpec::default_s4(), |req| {
        let position = |decision| {
            S4Reply::Position(Position {
                decision,
                confidence: 60,
                risk: 20,
                reasoning: "because".into(),
            })
        };
        Ok(match (&req.task, req.agent.as_str()) {
            (S4Task::Challenge { .. }, _) => S4Reply::Challenge {
                text: "why?".into(),
                argues_for: Decision::Warn,
            },
            (S4Task::Revise { .. }, "utility") => position(Decision::Warn),
            _ => position(Decision::Act),
        })
    });
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| Event::new(i as u64 + 1, Default::default(), body))
        .collect()
}

#[test]
fn fold_of_a_whole_debate_sv_1() {
    let events = log();
    let view = DebateView::from_events(&events);
    assert_eq!(view.status(), DebateStatus::Finished);
    assert_eq!(view.progress_percent(), 100);
    assert_eq!(view.messages_received(), 3 + 6 + 3 + 3);
    assert_eq!(view.challenges, 6);
    let cards: Vec<&Card> = view.rounds.iter().flat_map(|r| &r.cards).collect();
    let tone = |t| cards.iter().filter(|c| c.tone == t).count();
    assert_eq!(tone(Tone::Challenge), 6, "challenges are red");
    // Utility's change of mind and the two votes for the outcome (ACT) are green.
    assert_eq!(tone(Tone::Agreement), 1 + 2);
    assert!(view.thinking.is_empty());
    let outcome = view.decision.as_ref().expect("decision");
    let outcome = outcome.as_s4().expect("S4");
    assert_eq!(outcome.changed_minds, vec!["utility".to_string()]);
}

/// S4-8: a failed reply shows once, on its failure card; the substitute that follows points
/// to it instead of repeating the error.
#[test]
fn a_substitute_points_to_its_failure_instead_of_repeating_it() {
    let (_, bodies) = run_scripted(AgentSpec::default_s4(), |req| match &req.task {
        S4Task::Challenge { .. } if req.agent == "safety" => Err("garbled reply".into()),
        S4Task::Revise { .. } if req.agent == "accuracy" => Err("no reply within 30 s".into()),
        S4Task::Challenge { .. } => Ok(S4Reply::Challenge {
            text: "why?".into(),
            argues_for: Decision::Warn,
        }),
        _ => Ok(S4Reply::Position(Position {
            decision: Decision::Act,
            confidence: 60,
            risk: 20,
            reasoning: "because".into(),
        })),
    });
    let events: Vec<Event> = bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| Event::new(i as u64 + 1, Default::default(), body))
        .collect();
    let view = DebateView::from_events(&events);
    let cards: Vec<&Card> = view.rounds.iter().flat_map(|r| &r.cards).collect();
    let failures: Vec<&&Card> = cards.iter().filter(|c| c.tone == Tone::Failure).collect();
    assert_eq!(failures.len(), 3, "two challenges and one revision failed");
    for f in &failures {
        let next = cards
            .iter()
            .find(|c| c.seq > f.seq && c.agent == f.agent && c.round == f.round)
            .expect("a substitute follows");
        assert!(
            !next.body.contains(&f.body),
            "{:?} repeats {:?}",
            next.body,
            f.body
        );
        assert!(
            next.body
                .contains(&format!("see the failure above (event {})", f.seq)),
            "{}",
            next.body
        );
    }
    // The log itself keeps the whole reason in the substitute.
    assert!(
        events.iter().any(|e| matches!(&e.body,
        EventBody::S4(S4Event::Challenge { text, .. }) if text == "(no challenge: garbled reply)"))
    );
}

#[test]
fn every_event_kind_survives_the_wire() {
    // The browser parses exactly what the server serialises.
    let mut events = log();
    events.push(crate::chain::seal(
        Event::new(
            99,
            "2026-01-01T00:00:00.000Z".into(),
            crate::run::interruption("x".into()),
        ),
        crate::chain::GENESIS,
    ));
    for e in &events {
        let json = serde_json::to_value(e).expect("serialise");
        assert_eq!(json["seq"], e.seq);
        assert_eq!(json["type"], e.body.kind());
        let back: Event = serde_json::from_value(json).expect("deserialise");
        assert_eq!(&back, e);
    }
}

#[test]
fn replayed_events_are_ignored_sv_3() {
    let events = log();
    let once = DebateView::from_events(&events);
    let mut twice = DebateView::default();
    for e in events.iter().chain(events.iter()) {
        twice.apply(e);
    }
    assert_eq!(once, twice, "applying a duplicate changes nothing");
    let mut v = DebateView::default();
    assert!(v.apply(&events[0]));
    assert!(!v.apply(&events[0]));
}

#[test]
fn folding_in_pieces_equals_folding_at_once() {
    // What the browser does: SSR state up to n, then the SSE stream after n.
    let events = log();
    let whole = DebateView::from_events(&events);
    for n in 0..events.len() {
        let mut v = DebateView::from_events(&events[..n]);
        for e in &events[n..] {
            v.apply(e);
        }
        assert_eq!(v, whole, "split at {n}");
    }
}

#[test]
fn thinking_and_progress_while_running() {
    let events = log();
    // Up to the first thinking event of round 1.
    let upto = events
        .iter()
        .position(|e| matches!(e.body, EventBody::Common(CommonEvent::Thinking { .. })))
        .expect("thinking");
    let view = DebateView::from_events(&events[..=upto]);
    assert_eq!(view.status(), DebateStatus::Running);
    assert_eq!(view.thinking, vec!["utility".to_string()]);
    assert!(view.is_thinking("utility"));
    assert_eq!(view.progress_percent(), 0);
    let view = DebateView::from_events(&events[..=upto + 1]);
    assert!(view.thinking.is_empty(), "a message ends the thinking");
    assert_eq!(view.messages_received(), 1);
    assert_eq!(view.current_round, 1);
}

#[test]
fn interrupted_debates_stop_thinking() {
    let mut events = log();
    events.truncate(10);
    events.push(Event::new(
        11,
        Default::default(),
        crate::run::interruption("restart".into()),
    ));
    let view = DebateView::from_events(&events);
    assert_eq!(view.status(), DebateStatus::Interrupted);
    assert!(view.thinking.is_empty());
}
