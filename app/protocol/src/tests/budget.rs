//! ES-11: a spent budget pauses a debate for a judge (when the runner says judges exist); a
//! grant resumes it where it stopped, a close ends it cautiously; verify checks every pause,
//! grant and close against the logged calls (AG-2).

use crate::chain::{check_budget, recompute_decision, seal_all};
use crate::event::{BackendInfo, DebateEvent, EventBody};
use crate::shared::CommonEvent;

use crate::debate::Debate;
use crate::escalation::RulingError;
use crate::request::AgentReply;
use crate::run::{Answered, BudgetAction, DebateRun, Start, Usage};
use crate::s4::{S4Debate, S4Reply, S4Task};
use crate::types::{AgentSpec, Decision, Position};

/// An S4 debate whose every call costs 500 tokens, with a budget of 1,200: spent after three.
fn paused_run() -> (DebateRun, Vec<EventBody>, usize) {
    let mut run = DebateRun::start(
        Debate::S4(S4Debate::new("Ship it?", AgentSpec::default_s4(), 1).expect("s4")),
        Start {
            backend: Some(BackendInfo {
                kind: "openai".into(),
                model: Some("m".into()),
                service: None,
                token_budget: 1200,
            }),
            budget: Some(1200),
            ..Start::default()
        },
    );
    run.set_pausable(true);
    let mut bodies = Vec::new();
    let asked = drive(&mut run, &mut bodies);
    (run, bodies, asked)
}

/// Answers every request (500 tokens each) until the run asks nothing; returns how many.
fn drive(run: &mut DebateRun, bodies: &mut Vec<EventBody>) -> usize {
    let mut asked = 0;
    loop {
        let next = run.poll_request();
        while let Some(e) = run.poll_event() {
            bodies.push(e);
        }
        let Some(req) = next else { return asked };
        asked += 1;
        run.handle(
            &req,
            Answered {
                reply: Ok(AgentReply::S4(S4Reply::Position(Position {
                    decision: Decision::Act,
                    confidence: 80,
                    risk: 10,
                    reasoning: "r".into(),
                }))),
                usage: Some(Usage {
                    attempts: 1,
                    latency_ms: 1,
                    prompt_tokens: 400,
                    completion_tokens: 100,
                    estimated: false,
                    ..Usage::default()
                }),
                now: "2026-01-01T00:00:00.000Z".into(),
            },
        );
    }
}

fn kinds(bodies: &[EventBody]) -> Vec<&'static str> {
    bodies.iter().map(EventBody::kind).collect()
}

/// ES-11: the spent budget pauses the debate after the third call; nothing is asked while it
/// waits; a grant resumes it where it stopped and it finishes; the log verifies.
#[test]
fn a_grant_resumes_a_paused_debate_es_11() {
    let (mut run, mut bodies, asked) = paused_run();
    assert_eq!(asked, 3);
    assert_eq!(run.paused(), Some((1500, 1200)));
    assert_eq!(kinds(&bodies).last(), Some(&"budget_paused"));
    assert!(
        run.poll_request().is_none(),
        "nothing is asked while paused"
    );
    assert_eq!(
        run.budget_action("ada", BudgetAction::Grant { tokens: 0 }),
        Err(RulingError::Invalid(
            "tokens must be from 1 to 100000000, got 0".into()
        ))
    );
    run.budget_action("ada", BudgetAction::Grant { tokens: 100_000 })
        .expect("granted");
    assert_eq!(run.paused(), None);
    let more = drive(&mut run, &mut bodies);
    assert!(more > 0, "it resumed");
    assert!(run.is_finished());
    assert!(kinds(&bodies).contains(&"budget_granted"));
    assert!(!kinds(&bodies).contains(&"budget_exhausted"));
    let log = seal_all(bodies);
    assert_eq!(check_budget(&log), Ok(None));
    recompute_decision(&log).expect("verifies");
    // Not paused any more: another grant is a conflict.
    assert!(matches!(
        run.budget_action("ada", BudgetAction::Close),
        Err(RulingError::Conflict(_))
    ));
}

/// ES-11: a close ends the paused debate with the cautious budget stop, naming the judge.
#[test]
fn a_close_ends_a_paused_debate_cautiously_es_11() {
    let (mut run, mut bodies, _) = paused_run();
    run.budget_action("bob", BudgetAction::Close)
        .expect("closed");
    drive(&mut run, &mut bodies);
    let k = kinds(&bodies);
    let at = k
        .iter()
        .position(|k| *k == "budget_closed")
        .expect("closed");
    assert_eq!(&k[at + 1..at + 2], ["budget_exhausted"]);
    assert_eq!(k.last(), Some(&"decision"));
    let log = seal_all(bodies);
    let stop = check_budget(&log).expect("valid").expect("a stop");
    assert_eq!((stop.used, stop.budget), (1500, 1200));
    let o = recompute_decision(&log).expect("verifies");
    assert!(o.budget_exhausted() && o.label() != "ACT", "{o:?}");
}

/// AG-2 + ES-11: forged pauses, grants and calls fail verification by name.
#[test]
fn forged_budget_events_fail_verification_es_11() {
    let (mut run, mut bodies, _) = paused_run();
    run.budget_action("ada", BudgetAction::Grant { tokens: 1000 })
        .expect("granted");
    drive(&mut run, &mut bodies);
    let at = |kind: &str| {
        bodies
            .iter()
            .position(|b| b.kind() == kind)
            .unwrap_or_else(|| panic!("{kind}"))
    };
    let mut bigger = bodies.clone();
    if let EventBody::Common(CommonEvent::BudgetGranted { budget, .. }) =
        &mut bigger[at("budget_granted")]
    {
        *budget += 1;
    }
    let mut early = bodies.clone();
    if let EventBody::Common(CommonEvent::BudgetPaused { used, budget }) =
        &mut early[at("budget_paused")]
    {
        *used = 700;
        *budget = 1200;
    }
    let mut ungranted = bodies.clone();
    ungranted.remove(at("budget_granted"));
    let table = [
        ("grant", bigger, "grants 1000 tokens to make 2201"),
        ("pause", early, "pauses at 700 tokens"),
        ("call", ungranted, "while the debate waited for a judge"),
    ];
    for (name, forged, needle) in table {
        let (_, why) = check_budget(&seal_all(forged)).expect_err(name);
        assert!(why.contains(needle), "{name}: {why}");
    }
}

/// LM-2: with up to `parallel` calls in flight, the budget counts what is in flight: once the
/// tokens used plus the mean cost of each call in flight reach the budget, nothing more goes
/// out until the calls running are answered. A debate overshoots its budget by at most the
/// calls that were running when it was crossed, and then decides cautiously from what exists.
#[test]
fn the_budget_counts_calls_in_flight_lm_2() {
    use crate::request::{AgentRequest, Task};
    // (parallel, cost of a call, budget)
    let cases = [
        (1, 500, 1_200),
        (4, 500, 1_200),
        (6, 500, 1_200),
        (6, 500, 3_100),
        (6, 100, 700),
        (12, 500, 2_000),
    ];
    for (parallel, cost, budget) in cases {
        let mut run = DebateRun::start(
            Debate::S4(S4Debate::new("Ship it?", AgentSpec::default_s4(), 1).expect("s4")),
            Start {
                budget: Some(budget),
                ..Start::default()
            },
        );
        let mut flight: Vec<AgentRequest> = Vec::new();
        let mut bodies = Vec::new();
        // The most calls in flight at the moment the budget was first crossed.
        let mut running_when_crossed = None;
        loop {
            while flight.len() < parallel {
                let Some(req) = run.poll_request() else { break };
                assert!(
                    run.used() < budget,
                    "nothing goes out once the budget is spent"
                );
                flight.push(req);
            }
            while let Some(e) = run.poll_event() {
                bodies.push(e);
            }
            if flight.is_empty() {
                break;
            }
            // The oldest call answers first; each costs `cost`.
            let req = flight.remove(0);
            let reply = match &req.task {
                Task::S4(S4Task::Challenge { .. }) => AgentReply::S4(S4Reply::Challenge {
                    text: "no".into(),
                    argues_for: Decision::Warn,
                }),
                _ => AgentReply::S4(S4Reply::Position(Position {
                    decision: Decision::Act,
                    confidence: 60,
                    risk: 10,
                    reasoning: "fine".into(),
                })),
            };
            let before = run.used();
            run.handle(
                &req,
                Answered {
                    reply: Ok(reply),
                    usage: Some(Usage {
                        attempts: 1,
                        prompt_tokens: cost,
                        ..Usage::default()
                    }),
                    now: "2026-01-01T00:00:00.000Z".into(),
                },
            );
            if before < budget && run.used() >= budget && running_when_crossed.is_none() {
                running_when_crossed = Some(flight.len() as u64);
            }
        }
        let crossed = running_when_crossed.unwrap_or(0);
        assert!(
            run.used() <= budget + cost * crossed.max(1),
            "parallel {parallel}: used {} of {budget}; {crossed} calls were running",
            run.used()
        );
        assert!(crossed < parallel as u64, "parallel {parallel}");
        assert!(
            bodies
                .iter()
                .any(|b| matches!(b, EventBody::Common(CommonEvent::BudgetExhausted { .. }))),
            "parallel {parallel}, budget {budget}: the debate is cut short"
        );
        assert!(
            matches!(
                bodies.last(),
                Some(EventBody::Debate(DebateEvent::Decision(_)))
            ),
            "and still decides"
        );
        assert_eq!(run.in_flight(), 0);
    }
}

/// SV-13: the server's daily limit stops a debate under its own budget: `daily_limit_reached`,
/// then a `budget_exhausted` at the tokens used and the cautious decision. The log verifies;
/// a stop that claims another budget, or a call after the daily stop, fails by name.
#[test]
fn the_daily_limit_ends_a_debate_at_what_it_used_sv_13() {
    let mut run = DebateRun::start(
        Debate::S4(S4Debate::new("Ship it?", AgentSpec::default_s4(), 1).expect("s4")),
        Start {
            backend: Some(BackendInfo {
                kind: "openai".into(),
                model: Some("m".into()),
                service: None,
                token_budget: 100_000,
            }),
            budget: Some(100_000),
            ..Start::default()
        },
    );
    let mut bodies = Vec::new();
    // Round 1 at once: three calls of 500 tokens.
    let round: Vec<_> = std::iter::from_fn(|| run.poll_request()).collect();
    assert_eq!(round.len(), 3);
    assert_eq!(run.call_estimate(), 0, "no call has cost anything yet");
    for req in &round {
        run.handle(
            req,
            Answered {
                reply: Ok(AgentReply::S4(S4Reply::Position(Position {
                    decision: Decision::Act,
                    confidence: 80,
                    risk: 10,
                    reasoning: "r".into(),
                }))),
                usage: Some(Usage {
                    attempts: 1,
                    latency_ms: 1,
                    prompt_tokens: 400,
                    completion_tokens: 100,
                    ..Usage::default()
                }),
                now: "2026-01-01T00:00:00.000Z".into(),
            },
        );
    }
    assert_eq!(run.call_estimate(), 500);
    run.stop_for_daily_limit(2_000_000, 2_000_000);
    while let Some(e) = run.poll_event() {
        bodies.push(e);
    }
    assert!(run.is_finished());
    assert!(run.poll_request().is_none(), "nothing more is asked");
    let k = kinds(&bodies);
    let daily = k
        .iter()
        .position(|k| *k == "daily_limit_reached")
        .expect("logged");
    assert_eq!(k[daily + 1], "budget_exhausted", "{k:?}");
    assert_eq!(k.last(), Some(&"decision"));
    let stop = check_budget(&seal_all(bodies.clone()))
        .expect("verifies")
        .expect("a stop");
    assert_eq!((stop.used, stop.budget, stop.calls), (1500, 1500, 3));
    assert!(recompute_decision(&seal_all(bodies.clone())).is_ok());

    let at = |kind: &str| bodies.iter().position(|b| b.kind() == kind).expect(kind);
    let mut other_budget = bodies.clone();
    if let EventBody::Common(CommonEvent::BudgetExhausted { budget, .. }) =
        &mut other_budget[at("budget_exhausted")]
    {
        *budget = 100_000;
    }
    let mut late_call = bodies.clone();
    let call = late_call[at("agent_call")].clone();
    late_call.insert(at("budget_exhausted"), call);
    for (name, forged, needle) in [
        (
            "budget",
            other_budget,
            "with a budget of 100000, not the 1500 tokens used",
        ),
        (
            "call",
            late_call,
            "after the daily limit stopped the debate",
        ),
    ] {
        let (_, why) = check_budget(&seal_all(forged)).expect_err(name);
        assert!(why.contains(needle), "{name}: {why}");
    }
}
