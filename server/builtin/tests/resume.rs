//! RS-1/RS-5: a debate of each protocol, answered by the builtin agents, is cut after every one of
//! its events, rebuilt from the log so far, and driven on: it reaches the decision the uncut run
//! reached, asks no logged request again, and its chain verifies across the `resumed` event.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // a test: a panic is a failure with its place

mod common;

use common::*;

use protocol::escalation::EsEvent;
use protocol::s4::S4Event;
use protocol::shared::CommonEvent;

/// Where a log is cut: after every event, or after every stored batch only.
#[derive(Clone, Copy, PartialEq)]
enum Cuts {
    Events,
    Batches,
}

fn resumes_after_every_cut(protocol: &str, cuts: Cuts) {
    resumes_after_every_cut_judged(protocol, cuts, false);
}

fn resumes_after_every_cut_judged(protocol: &str, cuts: Cuts, judged: bool) {
    let seed = 7;
    let agents = BuiltinAgents::new(seed);
    let mut whole = Log {
        events: Vec::new(),
        batches: Vec::new(),
    };
    let mut run = DebateRun::start(machine(protocol, seed), Start::default());
    let asked = drive_judged(&mut run, &agents, &mut whole, judged);
    if judged {
        let rulings = whole
            .events
            .iter()
            .filter(|e| matches!(e.body, EventBody::Escalation(EsEvent::JudgeRuling(_))))
            .count();
        assert!(rulings >= 1, "the judge ruled: {rulings}");
    }
    let decided = decision(&whole).clone();
    assert_eq!(verify_chain(&whole.events), Ok(whole.events.len()));
    let n = whole.events.len();
    for cut in 1..n {
        if cuts == Cuts::Batches && !whole.batches.contains(&cut) {
            continue;
        }
        let mut log = Log {
            events: whole.events[..cut].to_vec(),
            batches: Vec::new(),
        };
        let rebuilt = rebuild(&log.events)
            .unwrap_or_else(|e| panic!("{protocol}: cut after event {cut} of {n}: {e}"));
        log.push(EventBody::Common(CommonEvent::Resumed {
            after_seq: cut as u64,
            process: "test".into(),
            reason: "cut".into(),
        }));
        for body in rebuilt.pending {
            log.push(body);
        }
        let mut run = rebuilt.run;
        let asked_after = drive_judged(&mut run, &agents, &mut log, judged);
        assert_eq!(
            decision(&log),
            &decided,
            "{protocol}: cut after event {cut} of {n}: another decision"
        );
        assert_eq!(verify_chain(&log.events), Ok(log.events.len()));
        // RS-1: nothing answered in the log is asked again: the replies logged before the
        // cut and those asked after it are the uncut run's, no more.
        assert_eq!(
            replies(&whole.events[..cut]) + asked_after,
            asked,
            "{protocol}: cut after event {cut} of {n}"
        );
    }
}

#[test]
fn s4_resumes_after_any_event_rs_5() {
    resumes_after_every_cut("s4", Cuts::Events);
}

#[test]
fn round_robin_resumes_after_any_event_rs_5() {
    resumes_after_every_cut("round_robin", Cuts::Events);
}

#[test]
fn collapse_resumes_after_any_event_rs_5() {
    resumes_after_every_cut("collapse", Cuts::Events);
}

#[test]
fn reconcile_resumes_after_any_event_rs_5() {
    resumes_after_every_cut("reconcile", Cuts::Events);
}

/// An agent's findings are several events of one stored batch: a log the server wrote never
/// ends among them, so the pipeline is cut after every batch.
#[test]
fn escalation_resumes_after_any_stored_batch_rs_5() {
    resumes_after_every_cut("escalation", Cuts::Batches);
}

/// Numbers and chains `bodies` as the server would (the tampering below re-chains its edits).
fn chained(bodies: Vec<EventBody>) -> Vec<Event> {
    let mut log = Log {
        events: Vec::new(),
        batches: Vec::new(),
    };
    for b in bodies {
        log.push(b);
    }
    log.events
}

/// RS-4: a log that was changed is not resumed. An edit the chain does not cover is refused by
/// the chain; one re-chained to hide it is refused where the rebuilt machine writes something
/// else, naming that event; a reply taken out leaves events that follow from nothing.
#[test]
fn a_log_that_cannot_be_folded_is_refused_by_event_rs_4() {
    let agents = BuiltinAgents::new(3);
    let mut whole = Log {
        events: Vec::new(),
        batches: Vec::new(),
    };
    let mut run = DebateRun::start(machine("s4", 3), Start::default());
    drive(&mut run, &agents, &mut whole);
    let cut = whole.batches[whole.batches.len() * 2 / 3];
    let prefix: Vec<EventBody> = whole.events[..cut].iter().map(|e| e.body.clone()).collect();

    // An edited position, not re-chained.
    let mut edited = whole.events[..cut].to_vec();
    let at = edited
        .iter()
        .position(|e| matches!(e.body, EventBody::S4(S4Event::Position { .. })))
        .expect("a position");
    if let EventBody::S4(S4Event::Position { position, .. }) = &mut edited[at].body {
        position.reasoning.push_str(" (edited)");
    }
    let why = rebuild(&edited).expect_err("an edited log");
    assert!(why.contains("chain does not verify"), "{why}");

    // A round's header the machine writes itself, edited and re-chained.
    let mut bodies = prefix.clone();
    let at = bodies
        .iter()
        .rposition(|b| matches!(b, EventBody::Common(CommonEvent::RoundStarted { .. })))
        .expect("a round");
    if let EventBody::Common(CommonEvent::RoundStarted { expected, .. }) = &mut bodies[at] {
        *expected += 1;
    }
    let why = rebuild(&chained(bodies)).expect_err("a re-chained edit");
    assert!(why.contains(&format!("event {} ", at + 1)), "{why}");

    // A logged reply taken out, re-chained.
    let mut bodies = prefix;
    let at = bodies
        .iter()
        .position(|b| matches!(b, EventBody::S4(S4Event::Position { .. })))
        .expect("a position");
    bodies.remove(at);
    assert!(rebuild(&chained(bodies)).is_err());

    // An ended log is not resumed.
    let why = rebuild(&whole.events).expect_err("a decided log");
    assert!(why.contains("already ended"), "{why}");
}

/// ES-5/ES-7/ES-10 with a judge: challenges held by her, her pending rulings, a re-debate sent
/// back to the agents and the timers all come back from the log at every stored batch.
#[test]
fn escalation_with_a_judge_resumes_after_any_stored_batch_rs_5() {
    resumes_after_every_cut_judged("escalation", Cuts::Batches, true);
}

/// ES-10/RS-1: a judge's deadline runs on while the server is down. The pipeline is cut while a
/// challenge waits for the judge's ruling; rebuilt, it writes nothing at the clock its log left
/// it at, and once it was down past the deadline, the ladder moves on at the deadline.
#[test]
fn an_escalation_deadline_counts_the_time_the_server_was_down_rs_1() {
    let agents = BuiltinAgents::new(7);
    let mut whole = Log {
        events: Vec::new(),
        batches: Vec::new(),
    };
    let mut run = DebateRun::start(machine("escalation", 7), Start::default());
    drive_judged(&mut run, &agents, &mut whole, true);
    let ruling = whole
        .events
        .iter()
        .position(|e| matches!(e.body, EventBody::Escalation(EsEvent::JudgeRuling(_))))
        .expect("a ruling");
    let (challenge, deadline) = whole.events[..ruling]
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Escalation(EsEvent::JudgeAssigned(a)) => {
                Some((a.challenge.clone(), a.deadline))
            }
            _ => None,
        })
        .expect("assigned to the judge");
    let rebuilt = rebuild(&whole.events[..ruling]).expect("rebuilt");
    let mut run = rebuilt.run;
    assert_eq!(run.held(), vec![challenge.clone()]);
    run.advance(run.clock_ms());
    assert_eq!(run.poll_event(), None, "nothing is due yet");
    // Down for as long as the judge had (time scale 1: a pipeline second is a wall second).
    run.add_downtime(deadline * 1000);
    run.advance(run.clock_ms());
    let moved: Vec<EventBody> = std::iter::from_fn(|| run.poll_event()).collect();
    let escalated = moved.iter().find_map(|b| match b {
        EventBody::Escalation(EsEvent::Escalated(e)) if e.challenge == challenge => Some(e.at),
        _ => None,
    });
    assert_eq!(escalated, Some(deadline), "{moved:?}");
}
