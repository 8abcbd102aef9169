//! RR-1…RR-5, table-driven, with a scripted agent driving the real machine.

use super::*;
use crate::chain::seal_all;
use crate::event::{entries, DebateEvent, EventBody};
use crate::round_robin::{RrEvent, RrReply, RrTask};
use crate::shared::{CommonEvent, Machine, Request};
use crate::ProtocolError;
use crate::{Event, Outcome};

fn agents(n: usize) -> Vec<AgentSpec> {
    let mut a = default_agents();
    for i in 3..n {
        a.push(AgentSpec::new(format!("analyst-{i}"), Role::Valuation));
    }
    a.truncate(n);
    a
}

fn pos(stance: Stance) -> RrPosition {
    RrPosition {
        stance,
        confidence: 70,
        reasoning: "because".into(),
    }
}

/// Drives a debate to its end; `script(req)` answers each turn (an `Err` is an agent failure).
fn run(
    query: &str,
    agents: Vec<AgentSpec>,
    params: RrParams,
    mut script: impl FnMut(&Request<RrTask>) -> Result<RrReply, String>,
) -> (Vec<Request<RrTask>>, Vec<EventBody>, RrOutcome) {
    let mut d = RrDebate::new(query, agents, params, 1).expect("valid debate");
    let (mut reqs, mut events) = (vec![], vec![]);
    loop {
        while let Some(e) = d.poll_event() {
            events.push(EventBody::from(e));
        }
        let Some(req) = d.poll_request() else { break };
        // RR-1: strictly one at a time.
        assert!(
            d.poll_request().is_none(),
            "a second request while one is out"
        );
        match script(&req) {
            Ok(reply) => d.handle_reply(req.id, reply).expect("reply accepted"),
            Err(e) => d.handle_failure(req.id, &e).expect("failure accepted"),
        }
        reqs.push(req);
    }
    while let Some(e) = d.poll_event() {
        events.push(EventBody::from(e));
    }
    let outcome = d.outcome().cloned().expect("finished");
    (reqs, events, outcome)
}

const Q: &str = "Should I buy Tesla stock?";

/// Everyone says `stance` from their `from_turn`-th turn on, BUY/SELL/HOLD by index before that.
fn converge_at(
    from_turn: u32,
    stance: Stance,
) -> impl FnMut(&Request<RrTask>) -> Result<RrReply, String> {
    move |req| {
        let RrTask::Turn { turn, .. } = &req.task;
        let i = DEFAULT_AGENTS
            .iter()
            .position(|(id, _)| *id == req.agent)
            .unwrap_or(0);
        let s = if *turn >= from_turn {
            stance
        } else {
            Stance::ALL[i % 3]
        };
        Ok(RrReply::Stance(pos(s)))
    }
}

#[test]
fn strict_turn_order_and_peer_positions_rr_1() {
    let (reqs, _, _) = run(
        Q,
        agents(3),
        RrParams::default(),
        converge_at(1, Stance::Buy),
    );
    let order: Vec<&str> = reqs.iter().map(|r| r.agent.as_str()).collect();
    assert_eq!(
        order,
        [
            "valuation",
            "sentiment",
            "fundamental",
            "valuation",
            "sentiment",
            "fundamental"
        ]
    );
    // Each speaker sees the latest positions of those who have spoken, not its own.
    let RrTask::Turn {
        peers, own, turn, ..
    } = &reqs[2].task;
    assert_eq!(*turn, 1);
    assert!(own.is_none());
    let seen: Vec<&str> = peers.iter().map(|p| p.agent.as_str()).collect();
    assert_eq!(seen, ["valuation", "sentiment"]);
    let RrTask::Turn {
        peers, own, turn, ..
    } = &reqs[3].task;
    assert_eq!(*turn, 2);
    assert_eq!(own.as_ref().map(|p| p.stance), Some(Stance::Buy));
    assert_eq!(peers.len(), 2);
}

#[test]
fn consensus_threshold_edges_rr_2() {
    // (agents, how many BUY, threshold, reached?)
    let cases: [(usize, usize, f64, bool); 7] = [
        (4, 3, 0.75, true),  // exactly 75 %
        (4, 2, 0.75, false), // 50 %
        (3, 2, 0.75, false), // 66.7 % < 75 %
        (3, 3, 0.75, true),
        (3, 2, 0.66, true),  // 66.7 % ≥ 66 %
        (3, 2, 0.67, false), // 66.7 % < 67 %
        (5, 4, 0.8, true),   // exactly 80 %
    ];
    for (n, buys, threshold, reached) in cases {
        let a = agents(n);
        let positions: Vec<Option<RrPosition>> = (0..n)
            .map(|i| Some(pos(if i < buys { Stance::Buy } else { Stance::Sell })))
            .collect();
        let params = RrParams {
            consensus_threshold: threshold,
            ..RrParams::default()
        };
        let c = check_consensus(2, &a, &positions, &vec![2; n], &params, true);
        assert_eq!(c.reached, reached, "{buys}/{n} at {threshold}");
        // A tie goes to the more cautious stance (SELL over BUY).
        let leading = if 2 * buys > n {
            Stance::Buy
        } else {
            Stance::Sell
        };
        assert_eq!(c.leading, leading, "{buys}/{n}");
        assert_eq!(c.ending.is_some(), reached, "{buys}/{n}: ends iff reached");
    }
}

#[test]
fn ties_and_missing_positions_rr_2() {
    let a = agents(4);
    let p = RrParams::default();
    // 2 BUY, 2 HOLD: the tie goes to HOLD, 50 %: no consensus.
    let tie = [
        Some(pos(Stance::Buy)),
        Some(pos(Stance::Hold)),
        Some(pos(Stance::Buy)),
        Some(pos(Stance::Hold)),
    ];
    let c = check_consensus(2, &a, &tie, &[2; 4], &p, true);
    assert_eq!(
        (c.leading, c.reached, c.agreement_percentage),
        (Stance::Hold, false, 50.0)
    );
    // An agent without a position counts against consensus: 3 of 4, not 3 of 3.
    let missing = [
        Some(pos(Stance::Sell)),
        Some(pos(Stance::Sell)),
        None,
        Some(pos(Stance::Sell)),
    ];
    let c = check_consensus(2, &a, &missing, &[2; 4], &p, true);
    assert_eq!((c.agreement_percentage, c.reached), (75.0, true));
}

#[test]
fn the_debate_never_ends_before_the_minimum_turns_rr_3() {
    // Unanimous from the first turn: still two rounds (min_turns_per_agent = 2).
    let (reqs, events, out) = run(
        Q,
        agents(3),
        RrParams::default(),
        converge_at(1, Stance::Buy),
    );
    assert_eq!(reqs.len(), 6);
    assert_eq!(out.ending, RrEnding::Consensus);
    assert_eq!((out.total_rounds, out.total_turns), (2, 6));
    let checks: Vec<&ConsensusCheck> = events
        .iter()
        .filter_map(|e| match e {
            EventBody::RoundRobin(RrEvent::ConsensusChecked(c)) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(checks.len(), 2);
    assert!(checks[0].reached && !checks[0].min_turns_met && checks[0].ending.is_none());
    assert!(checks[1].reached && checks[1].min_turns_met);
    // min_turns_per_agent = 3: three rounds even though everyone agrees.
    let params = RrParams {
        min_turns_per_agent: 3,
        ..RrParams::default()
    };
    let (_, _, out) = run(Q, agents(3), params, converge_at(1, Stance::Sell));
    assert_eq!((out.total_rounds, out.stance), (3, Stance::Sell));
}

#[test]
fn endings_rr_2_rr_3() {
    // (converge from turn, max_rounds) → (ending, rounds, stance)
    let never = u32::MAX;
    let cases = [
        (1, 5, RrEnding::Consensus, 2, Stance::Sell),
        (3, 5, RrEnding::Consensus, 3, Stance::Sell),
        (5, 5, RrEnding::Consensus, 5, Stance::Sell),
        (never, 5, RrEnding::MaxRounds, 5, Stance::Hold),
        (never, 2, RrEnding::MaxRounds, 2, Stance::Hold),
        (6, 5, RrEnding::MaxRounds, 5, Stance::Hold),
    ];
    for (from, max_rounds, ending, rounds, stance) in cases {
        let params = RrParams {
            max_rounds,
            ..RrParams::default()
        };
        let (_, _, out) = run(Q, agents(3), params, converge_at(from, Stance::Sell));
        assert_eq!(
            (out.ending, out.total_rounds, out.stance),
            (ending, rounds, stance),
            "from {from}, max {max_rounds}"
        );
        assert_eq!(out.consensus_reached, ending == RrEnding::Consensus);
    }
}

#[test]
fn failed_turns_get_extra_turns_rr_3() {
    // Sentiment fails its first turn: consensus after round 2, but it has spoken once, so only
    // it speaks again in an extra-turns round.
    let mut failed = false;
    let (reqs, events, out) = run(Q, agents(3), RrParams::default(), |req| {
        if req.agent == "sentiment" && !failed {
            failed = true;
            return Err("timeout".into());
        }
        Ok(RrReply::Stance(pos(Stance::Buy)))
    });
    assert_eq!(out.ending, RrEnding::Consensus);
    assert_eq!(out.total_rounds, 3);
    assert_eq!(reqs.last().map(|r| r.agent.as_str()), Some("sentiment"));
    assert_eq!(out.agent_participation.get("sentiment"), Some(&2));
    assert_eq!(out.agent_participation.get("valuation"), Some(&2));
    assert!(events.iter().any(|e| matches!(e, EventBody::Common(CommonEvent::RoundStarted { round: 3, name, expected: 1 }) if name.contains("Extra"))));
    assert!(events
        .iter()
        .any(|e| matches!(e, EventBody::Common(CommonEvent::AgentFailed { agent, .. }) if agent == "sentiment")));
}

#[test]
fn wrong_replies_and_unknown_requests_change_nothing() {
    // A reply of another protocol's kind reaches no round-robin machine: the envelope refuses it.
    let mut debate = crate::Debate::RoundRobin(
        RrDebate::new(Q, agents(3), RrParams::default(), 1).expect("debate"),
    );
    let req = debate.poll_request().expect("request");
    let wrong = crate::AgentReply::S4(crate::s4::S4Reply::Challenge {
        text: "x".into(),
        argues_for: crate::Decision::Act,
    });
    assert_eq!(
        debate.handle_reply(req.id, wrong),
        Err(ProtocolError::OtherProtocol("challenge"))
    );
    let mut d = RrDebate::new(Q, agents(3), RrParams::default(), 1).expect("debate");
    let req = d.poll_request().expect("request");
    assert!(matches!(
        d.handle_reply(99, RrReply::Stance(pos(Stance::Buy))),
        Err(ProtocolError::UnknownRequest(99))
    ));
    // The request is still open: a failure report closes it.
    d.handle_failure(req.id, "garbage").expect("failure");
    assert_eq!(
        d.poll_request().map(|r| r.agent),
        Some("sentiment".to_string())
    );
}

#[test]
fn metadata_rr_4() {
    let (_, events, out) = run(
        Q,
        agents(3),
        RrParams::default(),
        converge_at(2, Stance::Buy),
    );
    assert_eq!(out.total_turns, 6);
    assert_eq!(
        out.agent_participation.into_iter().collect::<Vec<_>>(),
        [
            ("fundamental".to_string(), 2),
            ("sentiment".to_string(), 2),
            ("valuation".to_string(), 2)
        ]
    );
    let Some(EventBody::Debate(DebateEvent::Decision(Outcome::RoundRobin(logged)))) = events.last()
    else {
        panic!("the decision is the last event")
    };
    assert_eq!(logged.stance, Stance::Buy);
    assert_eq!(logged.stance_counts.buy, 3);
}

#[test]
fn trigger_check_rr_5() {
    let cases = [
        ("Should I buy Tesla (TSLA)?", true, "should i buy"),
        ("Is NVDA a good investment right now?", true, "investment"),
        (
            "Give me a recommendation for my portfolio",
            true,
            "recommendation",
        ),
        ("Please assess Apple's latest quarter", true, "assess"),
        ("Investing in index funds?", true, "invest"),
        ("What is the capital of France?", false, ""),
        ("Tell me a joke about cats", false, ""),
        ("The reseller sold out", false, ""),
    ];
    for (query, triggered, first) in cases {
        let t = trigger(query);
        assert_eq!(t.triggered, triggered, "{query}: {:?}", t.matched);
        if triggered {
            assert!(
                t.matched.iter().any(|m| m == first),
                "{query}: {:?}",
                t.matched
            );
            assert!(t.explanation.starts_with("Debate triggered"));
        } else {
            assert!(t.explanation.starts_with("No debate needed"));
        }
    }
}

#[test]
fn an_untriggered_query_gets_one_round_rr_5() {
    let (reqs, events, out) = run(
        "What is the capital of France?",
        agents(3),
        RrParams::default(),
        converge_at(1, Stance::Hold),
    );
    assert_eq!(reqs.len(), 3);
    assert_eq!(out.ending, RrEnding::NoDebate);
    assert!(
        matches!(&events[1], EventBody::RoundRobin(RrEvent::TriggerChecked(t)) if !t.triggered),
        "the check runs first"
    );
}

#[test]
fn parameters_are_validated() {
    let bad = [
        (0.0, 2, 5, "consensus_threshold"),
        (1.5, 2, 5, "consensus_threshold"),
        (f64::NAN, 2, 5, "consensus_threshold"),
        (0.75, 0, 5, "min_turns_per_agent"),
        (0.75, 6, 5, "min_turns_per_agent"),
        (0.75, 2, 0, "max_rounds"),
        (0.75, 2, 1_001, "max_rounds"),
    ];
    for (t, min, max, field) in bad {
        let p = RrParams {
            consensus_threshold: t,
            min_turns_per_agent: min,
            max_rounds: max,
        };
        match p.validate() {
            Err(ProtocolError::BadParameter { field: f, .. }) => assert_eq!(f, field, "{p:?}"),
            other => panic!("{p:?}: {other:?}"),
        }
    }
    assert!(RrParams::default().validate().is_ok());
}

fn sealed(events: Vec<EventBody>) -> Vec<Event> {
    seal_all(events)
}

#[test]
fn the_decision_is_recomputed_from_the_log_sv_2() {
    for from in [1, 3, u32::MAX] {
        let (_, events, out) = run(
            Q,
            agents(3),
            RrParams::default(),
            converge_at(from, Stance::Buy),
        );
        let log = sealed(events);
        assert_eq!(recompute(&entries(&log)), Ok(out), "from {from}");
    }
    // A forged turn: the consensus check no longer follows.
    let (_, events, _) = run(
        Q,
        agents(3),
        RrParams::default(),
        converge_at(1, Stance::Buy),
    );
    let mut log = sealed(events);
    let i = log
        .iter()
        .position(|e| matches!(e.body, EventBody::RoundRobin(RrEvent::Turn { .. })))
        .expect("turn");
    if let EventBody::RoundRobin(RrEvent::Turn { position, .. }) = &mut log[i].body {
        position.stance = Stance::Sell;
    }
    let err = recompute(&entries(&log)).expect_err("forged");
    assert!(err.contains("consensus check of round 1"), "{err}");
}
