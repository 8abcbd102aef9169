//! QL-1: the vote baseline per protocol on constructed logs, and through a whole run.

use super::*;
use crate::collapse::{CardSubmitted, ScoreBreakdown, WcOutcome, WcOutcomeKind};
use crate::collapse::{PositionCard, WcEvent};
use crate::event::DebateEvent;
use crate::round_robin::{RrEnding, RrEvent, RrOutcome, StanceCounts};
use crate::s4::{S4Event, S4Outcome, S4Reply, S4Task};
use crate::types::{Decision, Position, Role, Verdict};

fn started(agents: Vec<AgentSpec>, config: Option<Config>) -> EventBody {
    EventBody::Debate(DebateEvent::DebateStarted {
        protocol: "p".into(),
        query: "q".into(),
        seed: 1,
        agents,
        rounds: vec![],
        config: config.map(Box::new),
        backend: None,
        context: None,
    })
}

fn s4_outcome(decision: Verdict) -> S4Outcome {
    let mut o = aggregate(&[], Vec::new());
    o.decision = decision;
    o
}

fn vote(agent: &str, role: Role, decision: Decision) -> Vote {
    Vote {
        agent: agent.into(),
        role,
        decision,
        confidence: 70,
        risk: 10,
        reasoning: String::new(),
    }
}

fn fold(bodies: &[EventBody]) -> BaselineFold {
    let mut f = BaselineFold::default();
    for b in bodies {
        f.see(b);
    }
    f
}

/// QL-1, S4: S4-6's rule on the round-1 positions; who moved toward or away from the verdict.
#[test]
fn ql_1_s4_baseline_is_the_aggregate_of_round_one() {
    use Decision::{Act, Refuse, Warn};
    let agents = AgentSpec::default_s4();
    let pos = |agent: &str, d| {
        EventBody::S4(S4Event::Position {
            agent: agent.into(),
            round: 1,
            position: Position {
                decision: d,
                confidence: 70,
                risk: 10,
                reasoning: "r".into(),
            },
        })
    };
    let role = |id: &str| agents.iter().find(|a| a.id == id).expect("agent").role;
    // (first positions, locked votes, final verdict, baseline, changed, moved toward/away)
    type Case<'a> = (
        &'a str,
        [Decision; 3],
        [Decision; 3],
        Verdict,
        &'a str,
        bool,
        &'a [(&'a str, bool)],
    );
    let cases: [Case; 3] = [
        (
            "the debate turned ACT into REFUSE",
            [Act, Act, Warn],
            [Act, Refuse, Refuse],
            Verdict::Refuse,
            "ACT",
            true,
            &[("accuracy", true), ("safety", true)],
        ),
        (
            "no one moved",
            [Act, Act, Act],
            [Act, Act, Act],
            Verdict::Act,
            "ACT",
            false,
            &[],
        ),
        (
            "one moved away, the outcome held",
            [Warn, Warn, Warn],
            [Warn, Act, Warn],
            Verdict::Warn,
            "WARN",
            false,
            &[("accuracy", false)],
        ),
    ];
    for (name, first, last, verdict, plain, changed, moved) in cases {
        let mut log = vec![started(agents.clone(), None)];
        for (a, d) in agents.iter().zip(first) {
            log.push(pos(&a.id, d));
        }
        for (a, d) in agents.iter().zip(last) {
            log.push(EventBody::S4(S4Event::Vote {
                round: 4,
                vote: vote(&a.id, role(&a.id), d),
            }));
        }
        let b = fold(&log)
            .baseline(&Outcome::S4(s4_outcome(verdict)))
            .expect("a baseline");
        assert_eq!(
            (b.decision.as_str(), b.changed_outcome, b.counted),
            (plain, changed, 3),
            "{name}"
        );
        let got: Vec<(&str, bool)> = b
            .moved
            .iter()
            .map(|m| (m.agent.as_str(), m.toward))
            .collect();
        assert_eq!(got, moved.to_vec(), "{name}");
    }
    assert_eq!(
        fold(&[started(agents, None)]).baseline(&Outcome::S4(s4_outcome(Verdict::Warn))),
        None,
        "no first positions, no baseline"
    );
}

fn rr_outcome(stance: Stance) -> RrOutcome {
    RrOutcome {
        stance,
        consensus_reached: true,
        ending: RrEnding::Consensus,
        agreement_percentage: 100.0,
        stance_counts: StanceCounts::default(),
        total_rounds: 2,
        total_turns: 6,
        agent_participation: Default::default(),
        reasoning: String::new(),
        vote_baseline: None,
    }
}

/// QL-1, round-robin: RR-2's consensus on the first-turn stances, HOLD without it.
#[test]
fn ql_1_round_robin_baseline_is_the_first_turn_consensus() {
    let agents = crate::round_robin::default_agents();
    let turn = |agent: &str, n: u32, stance| {
        EventBody::RoundRobin(RrEvent::Turn {
            agent: agent.into(),
            round: n as u16,
            turn: n,
            position: RrPosition {
                stance,
                confidence: 80,
                reasoning: "r".into(),
            },
        })
    };
    let ids: Vec<&str> = agents.iter().map(|a| a.id.as_str()).collect();
    let cases = [
        (
            "2 of 3 is under 75 %: HOLD",
            [Stance::Buy, Stance::Buy, Stance::Sell],
            Stance::Buy,
            "HOLD",
            true,
        ),
        ("3 of 3 BUY", [Stance::Buy; 3], Stance::Buy, "BUY", false),
    ];
    for (name, first, last, plain, changed) in cases {
        let mut log = vec![started(
            agents.clone(),
            Some(Config::RoundRobin(RrParams::default())),
        )];
        for (id, s) in ids.iter().zip(first) {
            log.push(turn(id, 1, s));
        }
        for id in &ids {
            log.push(turn(id, 2, last));
        }
        let b = fold(&log)
            .baseline(&Outcome::RoundRobin(rr_outcome(last)))
            .expect("baseline");
        assert_eq!(
            (b.decision.as_str(), b.changed_outcome),
            (plain, changed),
            "{name}"
        );
        let moved: Vec<&str> = b.moved.iter().map(|m| m.agent.as_str()).collect();
        let want: Vec<&str> = ids
            .iter()
            .zip(first)
            .filter(|(_, s)| *s != last)
            .map(|(id, _)| *id)
            .collect();
        assert_eq!(moved, want, "{name}");
        assert!(b.moved.iter().all(|m| m.toward), "{name}");
    }
}

fn card(agent: &str) -> PositionCard {
    PositionCard {
        agent: agent.into(),
        timestamp: String::new(),
        claims: vec![],
        plan: vec![],
        evidence: vec![],
        risks: vec![],
        confidence: 0.5,
        cost: 1,
        reversibility: 0.5,
        invariant_violations: vec![],
    }
}

fn submitted(position: &str, revision: u32, total: f64) -> EventBody {
    EventBody::Collapse(WcEvent::CardSubmitted(Box::new(CardSubmitted {
        round: 1,
        position: position.into(),
        revision,
        source: CardSource::Agent,
        card: card(position),
        score: ScoreBreakdown {
            e: 0.0,
            r: 0.0,
            v: 0.0,
            k: 0.0,
            gamma: 0.0,
            i: 0,
            terms: [0.0; 6],
            total,
        },
    })))
}

/// QL-1, collapse: the best initial card by S; an escalation changes the outcome.
#[test]
fn ql_1_collapse_baseline_is_the_best_initial_card() {
    let log = [
        started(vec![], None),
        submitted("alpha", 0, 0.5),
        submitted("beta", 0, 0.7),
        submitted("gamma", 0, 0.7),
        submitted("alpha", 1, 0.9),
    ];
    let f = fold(&log);
    let outcome = |chosen: Option<&str>| {
        Outcome::Collapse(WcOutcome {
            outcome: WcOutcomeKind::Accepted,
            chosen: chosen.map(str::to_owned),
            score: None,
            consensus: None,
            reflexions: 1,
            memory_write: false,
            memory_notes: vec![],
            reasoning: String::new(),
            budget_exhausted: false,
            vote_baseline: None,
        })
    };
    let cases = [
        (
            Some("beta"),
            false,
            "the first card with the best S wins a tie",
        ),
        (Some("alpha"), true, "reflexion lifted alpha past it"),
        (None, true, "escalated to a human"),
    ];
    for (chosen, changed, name) in cases {
        let b = f.baseline(&outcome(chosen)).expect("baseline");
        assert_eq!(
            (b.decision.as_str(), b.changed_outcome, b.counted),
            ("beta", changed, 3),
            "{name}"
        );
        assert_eq!(b.moved.len(), 1, "alpha revised its card");
        assert_eq!(b.moved[0].toward, chosen == Some("alpha"), "{name}");
    }
}

/// QL-1 through a whole run: the decision event carries the baseline, `verify`'s recompute
/// agrees, and a baseline edited (and the chain re-hashed) is caught.
#[test]
fn ql_1_the_decision_carries_the_baseline_and_verify_recomputes_it() {
    use crate::chain::{recompute_decision, seal_all};
    use crate::request::{AgentReply, Task};
    use crate::run::{Answered, DebateRun, Start};
    use crate::s4::S4Debate;
    use crate::Debate;

    let debate = Debate::S4(S4Debate::new("Ship it?", AgentSpec::default_s4(), 1).expect("s4"));
    let mut run = DebateRun::start(debate, Start::default());
    let mut bodies = Vec::new();
    loop {
        let next = run.poll_request();
        while let Some(e) = run.poll_event() {
            bodies.push(e);
        }
        let Some(req) = next else { break };
        let position = |decision| {
            AgentReply::S4(S4Reply::Position(Position {
                decision,
                confidence: 80,
                risk: 10,
                reasoning: "r".into(),
            }))
        };
        let reply = match req.task {
            Task::S4(S4Task::Analyse { .. }) => position(Decision::Act),
            Task::S4(S4Task::Challenge { .. }) => AgentReply::S4(S4Reply::Challenge {
                text: "too risky".into(),
                argues_for: Decision::Refuse,
            }),
            _ => position(Decision::Refuse),
        };
        run.handle(
            &req,
            Answered {
                reply: Ok(reply),
                usage: None,
                now: "2026-01-01T00:00:00.000Z".into(),
            },
        );
    }
    let mut log = seal_all(bodies.clone());
    let Some(EventBody::Debate(DebateEvent::Decision(o))) = log.last().map(|e| &e.body) else {
        panic!("a decision");
    };
    let b = o
        .vote_baseline()
        .expect("the decision carries its baseline")
        .clone();
    assert_eq!(
        (b.decision.as_str(), b.changed_outcome, b.moved.len()),
        ("ACT", true, 3)
    );
    assert_eq!(o.label(), "REFUSE");
    assert_eq!(
        recompute_decision(&log).map(|o| o.vote_baseline().cloned()),
        Ok(Some(b))
    );
    let json = serde_json::to_value(&log.last().expect("event").body).expect("json");
    assert_eq!(
        json["vote_baseline"]["decision"], "ACT",
        "the contract's field"
    );
    assert_eq!(json["vote_baseline"]["changed_outcome"], true);

    // A forger claims the debate changed nothing, and re-hashes the chain.
    if let Some(EventBody::Debate(DebateEvent::Decision(o))) = bodies.last_mut() {
        let mut forged = o.vote_baseline().cloned().expect("baseline");
        forged.changed_outcome = false;
        o.set_vote_baseline(Some(forged));
    }
    log = seal_all(bodies);
    let e = recompute_decision(&log).expect_err("caught").to_string();
    assert!(e.contains("vote baseline"), "{e}");
}
