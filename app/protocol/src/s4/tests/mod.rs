//! Table-driven tests of the S4 rules; each case names the spec id it checks.

mod order;

use super::*;
use crate::event::{DebateEvent, EventBody};
use crate::run_scripted as run;
use crate::s4::{S4Event, S4Reply, S4Task};
use crate::shared::{CommonEvent, Machine, Request};
use crate::types::{AgentSpec, Decision, Position, Role, Verdict};
use crate::ProtocolError;

fn vote(agent: &str, role: Role, decision: Decision, risk: u8) -> Vote {
    Vote {
        agent: agent.into(),
        role,
        decision,
        confidence: 70,
        risk,
        reasoning: format!("{agent} says {decision}"),
    }
}

fn votes(ds: &[Decision]) -> Vec<Vote> {
    ds.iter()
        .enumerate()
        .map(|(i, d)| {
            let role = if *d == Decision::Veto {
                Role::Safety
            } else {
                Role::Utility
            };
            vote(&format!("a{i}"), role, *d, 10 + i as u8)
        })
        .collect()
}

use Decision::{Act as A, Refuse as R, Veto as V, Warn as W};

#[allow(clippy::too_many_lines)] // a test table
#[test]
fn aggregation_rules_s4_6() {
    // (spec, votes, decision, consensus, agreement %)
    let cases: &[(&str, &[Decision], Verdict, Consensus, f64)] = &[
        (
            "S4-6 unanimous ACT",
            &[A, A, A],
            Verdict::Act,
            Consensus::Unanimous,
            100.0,
        ),
        (
            "S4-6 unanimous REFUSE",
            &[R, R, R],
            Verdict::Refuse,
            Consensus::Unanimous,
            100.0,
        ),
        (
            "S4-6 2/3 ACT",
            &[A, A, W],
            Verdict::Act,
            Consensus::StrongMajority,
            66.7,
        ),
        (
            "S4-6 2/3 WARN",
            &[W, A, W],
            Verdict::Warn,
            Consensus::StrongMajority,
            66.7,
        ),
        (
            "S4-6 2/3 REFUSE",
            &[R, A, R],
            Verdict::Refuse,
            Consensus::StrongMajority,
            66.7,
        ),
        (
            "S4-6 three-way split -> WARN",
            &[A, W, R],
            Verdict::Warn,
            Consensus::Split,
            33.3,
        ),
        (
            "S4-6 veto beats a 2/3 majority",
            &[A, A, V],
            Verdict::Refuse,
            Consensus::Veto,
            66.7,
        ),
        (
            "S4-6 veto beats unanimity of the rest",
            &[A, V, A],
            Verdict::Refuse,
            Consensus::Veto,
            66.7,
        ),
        (
            "S4-1 N=2 agree",
            &[A, A],
            Verdict::Act,
            Consensus::Unanimous,
            100.0,
        ),
        (
            "S4-1 N=2 disagree -> split",
            &[A, W],
            Verdict::Warn,
            Consensus::Split,
            50.0,
        ),
        (
            "S4-6 N=4 3/4",
            &[A, A, A, W],
            Verdict::Act,
            Consensus::StrongMajority,
            75.0,
        ),
        (
            "S4-6 N=4 2-2 tie -> split",
            &[A, A, R, R],
            Verdict::Warn,
            Consensus::Split,
            50.0,
        ),
        (
            "S4-6 N=5 3/5 = 60% -> split",
            &[A, A, A, W, W],
            Verdict::Warn,
            Consensus::Split,
            60.0,
        ),
        (
            "S4-6 N=6 4/6 -> strong",
            &[W, W, W, W, A, R],
            Verdict::Warn,
            Consensus::StrongMajority,
            66.7,
        ),
    ];
    for (spec, ds, decision, consensus, pct) in cases {
        let out = aggregate(&votes(ds), vec![]);
        assert_eq!(out.decision, *decision, "{spec}");
        assert_eq!(out.consensus, *consensus, "{spec}");
        assert_eq!(out.agreement_percentage, *pct, "{spec}");
        assert_eq!(out.veto_applied, ds.contains(&V), "{spec}");
    }
}

#[test]
fn two_thirds_threshold_edge_s4_6() {
    // 66 % exactly is a strong majority; 64 % is not.
    let mut ds = vec![A; 33];
    ds.extend(vec![W; 17]);
    let out = aggregate(&votes(&ds), vec![]);
    assert_eq!(
        (out.decision, out.consensus),
        (Verdict::Act, Consensus::StrongMajority)
    );
    assert_eq!(out.agreement_percentage, 66.0);
    let mut ds = vec![A; 32];
    ds.extend(vec![W; 18]);
    let out = aggregate(&votes(&ds), vec![]);
    assert_eq!(
        (out.decision, out.consensus),
        (Verdict::Warn, Consensus::Split)
    );
}

#[test]
fn ties_break_toward_caution_s4_6() {
    let cases: &[(&[Decision], Verdict)] = &[
        (&[A, W], Verdict::Warn),
        (&[W, A], Verdict::Warn),
        (&[A, R], Verdict::Refuse),
        (&[W, R], Verdict::Refuse),
        (&[A, W, R], Verdict::Refuse),
        (&[A, A, W, W, R], Verdict::Warn),
        (&[A, A, R, R, W], Verdict::Refuse),
        (&[A, V], Verdict::Refuse), // a veto counts as a refusal
    ];
    for (ds, majority) in cases {
        assert_eq!(aggregate(&votes(ds), vec![]).majority, *majority, "{ds:?}");
    }
}

#[test]
fn split_reasoning_states_the_counts_s4_6() {
    let out = aggregate(&votes(&[A, W, R]), vec![]);
    assert!(
        out.reasoning
            .starts_with("Agents split: 1 ACT, 1 WARN, 1 REFUSE"),
        "{}",
        out.reasoning
    );
    assert_eq!(
        out.decision_counts,
        DecisionCounts {
            act: 1,
            warn: 1,
            refuse: 1
        }
    );
}

#[test]
fn metadata_s4_7() {
    let vs = vec![
        vote("utility", Role::Utility, A, 20),
        vote("accuracy", Role::Accuracy, W, 35),
        vote("safety", Role::Safety, V, 80),
    ];
    let out = aggregate(&vs, vec!["accuracy".into()]);
    assert_eq!(out.max_risk, 80);
    assert!(out.veto_applied);
    assert_eq!(out.veto_agent.as_deref(), Some("safety"));
    assert_eq!(
        out.decision_counts,
        DecisionCounts {
            act: 1,
            warn: 1,
            refuse: 1
        }
    );
    assert_eq!(out.changed_minds, vec!["accuracy".to_string()]);
    assert!(
        out.reasoning.contains("Safety Agent exercised VETO"),
        "{}",
        out.reasoning
    );
}

#[test]
fn protocol_rules_on_positions_s4_2_s4_6() {
    // (spec, role, decision in, risk in, confidence in, decision out, risk out, confidence out)
    #[allow(clippy::type_complexity)] // a test table: each row spelled out
    let cases: &[(&str, Role, Decision, u8, u8, Decision, u8, u8)] = &[
        (
            "S4-6 safety risk 49 keeps ACT",
            Role::Safety,
            A,
            49,
            80,
            A,
            49,
            80,
        ),
        (
            "S4-6 safety risk 50 vetoes",
            Role::Safety,
            A,
            50,
            80,
            V,
            50,
            80,
        ),
        (
            "S4-6 safety risk 90 WARN vetoes",
            Role::Safety,
            W,
            90,
            80,
            V,
            90,
            80,
        ),
        (
            "S4-2 only safety may veto",
            Role::Accuracy,
            V,
            10,
            80,
            R,
            10,
            80,
        ),
        (
            "S4-2 utility high risk is not a veto",
            Role::Utility,
            A,
            90,
            80,
            A,
            90,
            80,
        ),
        (
            "S4-2 numbers clamp to 100",
            Role::Utility,
            A,
            200,
            150,
            A,
            100,
            100,
        ),
    ];
    for (spec, role, d, risk, conf, d2, risk2, conf2) in cases {
        let p = normalise(
            *role,
            Position {
                decision: *d,
                confidence: *conf,
                risk: *risk,
                reasoning: String::new(),
            },
        );
        assert_eq!(
            (p.decision, p.risk, p.confidence),
            (*d2, *risk2, *conf2),
            "{spec}"
        );
    }
}

pub(super) fn pos(decision: Decision, reasoning: &str) -> Position {
    Position {
        decision,
        confidence: 70,
        risk: 10,
        reasoning: reasoning.into(),
    }
}

/// Each agent analyses `ACT` with reasoning "<id> r1", challenges with "<id> vs <target>", and in
/// round 3 the utility agent switches to WARN.
fn scripted(req: &Request<S4Task>) -> Result<S4Reply, String> {
    Ok(match &req.task {
        S4Task::Analyse { .. } => S4Reply::Position(pos(A, &format!("{} r1", req.agent))),
        S4Task::Challenge { target, .. } => S4Reply::Challenge {
            text: format!("{} vs {target}", req.agent),
            argues_for: W,
        },
        S4Task::Revise { own, .. } if req.role == Role::Utility => {
            S4Reply::Position(pos(W, &format!("was {}, now WARN", own.decision)))
        }
        S4Task::Revise { own, .. } => S4Reply::Position(own.clone()),
    })
}

pub(super) fn agents(n: usize) -> Vec<AgentSpec> {
    let roles = [Role::Utility, Role::Accuracy, Role::Safety];
    (0..n)
        .map(|i| AgentSpec::new(format!("{}-{i}", roles[i % 3].as_str()), roles[i % 3]))
        .collect()
}

#[test]
fn rounds_and_challenge_count_for_n_agents_s4_1_s4_3() {
    for n in 2..=MAX_AGENTS {
        let (reqs, events) = run(agents(n), scripted);
        let per_round = |r: u16| reqs.iter().filter(|q| q.round == r).count();
        assert_eq!(per_round(1), n, "S4-2 N={n}");
        assert_eq!(per_round(2), n * (n - 1), "S4-3 N={n}");
        assert_eq!(per_round(3), n, "S4-4 N={n}");
        assert_eq!(per_round(4), 0, "S4-5 votes are locked, no agent call");
        let mut pairs: Vec<(String, String)> = events
            .iter()
            .filter_map(|e| match e {
                EventBody::S4(S4Event::Challenge { from, to, .. }) => {
                    Some((from.clone(), to.clone()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(pairs.len(), n * (n - 1), "S4-3 N·(N−1) challenges, N={n}");
        assert!(
            pairs.iter().all(|(f, t)| f != t),
            "S4-3 nobody challenges itself"
        );
        pairs.sort();
        pairs.dedup();
        assert_eq!(
            pairs.len(),
            n * (n - 1),
            "S4-3 every ordered pair once, N={n}"
        );
        let votes = events
            .iter()
            .filter(|e| matches!(e, EventBody::S4(S4Event::Vote { .. })))
            .count();
        assert_eq!(votes, n, "S4-5 one vote per agent");
        assert!(
            matches!(
                events.last(),
                Some(EventBody::Debate(DebateEvent::Decision(_)))
            ),
            "decision is last"
        );
    }
}

#[test]
fn information_flow_s4_2_s4_3_s4_4() {
    let (reqs, _) = run(AgentSpec::default_s4(), scripted);
    for req in &reqs {
        match &req.task {
            // S4-2: round 1 sees the query only — the type has no other field.
            S4Task::Analyse { query } => assert_eq!(&**query, "Is the sky blue?"),
            // S4-3: own round-1 position and the target's round-1 reasoning.
            S4Task::Challenge {
                own,
                target,
                target_reasoning,
                ..
            } => {
                assert_eq!(own.reasoning, format!("{} r1", req.agent));
                assert_eq!(*target_reasoning, format!("{target} r1"));
                assert_ne!(*target, req.agent);
            }
            // S4-4: own round-1 position and exactly the challenges aimed at it.
            S4Task::Revise {
                own, challenges, ..
            } => {
                assert_eq!(own.reasoning, format!("{} r1", req.agent));
                assert_eq!(challenges.len(), 2);
                for c in challenges {
                    assert_eq!(c.text, format!("{} vs {}", c.from, req.agent));
                    assert_ne!(c.from, req.agent);
                }
            }
        }
    }
}

#[test]
fn revisions_are_tracked_s4_4_s4_7() {
    let (_, events) = run(AgentSpec::default_s4(), scripted);
    let changed: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            EventBody::S4(S4Event::Revision {
                agent,
                before,
                after,
                changed: true,
                ..
            }) => Some((agent.clone(), before.decision, after.decision)),
            _ => None,
        })
        .collect();
    assert_eq!(changed, vec![("utility".to_string(), A, W)]);
    let Some(EventBody::Debate(DebateEvent::Decision(crate::Outcome::S4(out)))) = events.last()
    else {
        panic!("no decision")
    };
    assert_eq!(out.changed_minds, vec!["utility".to_string()]);
    assert_eq!(out.decision, Verdict::Act); // 2 ACT, 1 WARN
    assert_eq!(out.consensus, Consensus::StrongMajority);
}

#[test]
fn event_order_and_thinking_s4_event_log() {
    let (_, events) = run(AgentSpec::default_s4(), scripted);
    let kinds: Vec<&str> = events.iter().map(|e| e.kind()).collect();
    assert_eq!(kinds[0], "debate_started");
    assert_eq!(kinds[1], "round_started");
    // Every message is preceded by a thinking event of the same agent.
    assert_eq!(kinds.iter().filter(|k| **k == "thinking").count(), 12);
    assert_eq!(kinds.iter().filter(|k| **k == "round_started").count(), 4);
    assert_eq!(*kinds.last().expect("events"), "decision");
}

#[test]
fn failures_never_stall_and_count_as_refuse_s4_8() {
    // The accuracy agent fails every call.
    let (_, events) = run(AgentSpec::default_s4(), |req| {
        if req.agent == "accuracy" {
            Err("timed out after 30s".into())
        } else {
            scripted(req)
        }
    });
    let failed = events
        .iter()
        .filter(|e| matches!(e, EventBody::Common(CommonEvent::AgentFailed { agent, .. }) if agent == "accuracy"))
        .count();
    assert_eq!(
        failed,
        1 + 2 + 1,
        "one per call: round 1, two challenges, round 3"
    );
    let challenges = events
        .iter()
        .filter(|e| matches!(e, EventBody::S4(S4Event::Challenge { .. })))
        .count();
    assert_eq!(challenges, 6, "a failed challenge is still recorded");
    let vote = events.iter().find_map(|e| match e {
        EventBody::S4(S4Event::Vote { vote, .. }) if vote.agent == "accuracy" => {
            Some(vote.decision)
        }
        _ => None,
    });
    assert_eq!(
        vote,
        Some(R),
        "S4-8 a failed agent counts as REFUSE, never ACT"
    );
}

#[test]
fn bad_setups_and_replies_are_errors() {
    assert_eq!(
        S4Debate::new("q", agents(1), 0).err(),
        Some(ProtocolError::TooFewAgents(1))
    );
    assert_eq!(
        S4Debate::new("q", agents(9), 0).err(),
        Some(ProtocolError::TooManyAgents(9, MAX_AGENTS))
    );
    let dup = vec![
        AgentSpec::new("x", Role::Utility),
        AgentSpec::new("x", Role::Safety),
    ];
    assert_eq!(
        S4Debate::new("q", dup, 0).err(),
        Some(ProtocolError::DuplicateAgent("x".into()))
    );
    let mut d = S4Debate::new("q", agents(3), 0).expect("valid");
    let req = d.poll_request().expect("a request");
    let wrong = S4Reply::Challenge {
        text: "x".into(),
        argues_for: A,
    };
    assert!(matches!(
        d.handle_reply(req.id, wrong),
        Err(ProtocolError::WrongReply { .. })
    ));
    assert_eq!(
        d.handle_reply(99, S4Reply::Position(pos(A, "x"))),
        Err(ProtocolError::UnknownRequest(99))
    );
    // After an error the request is still outstanding and can be answered.
    assert_eq!(
        d.handle_reply(req.id, S4Reply::Position(pos(A, "x"))),
        Ok(())
    );
    assert_eq!(
        d.handle_reply(req.id, S4Reply::Position(pos(A, "x"))),
        Err(ProtocolError::UnknownRequest(req.id)),
        "a request is answered once"
    );
}
