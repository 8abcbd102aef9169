//! Table-driven tests of the ladder, the desk, the calculators and the impact check, named by
//! the spec ids they cover.

use super::analysis::{self, Company, Rating, GRAPH};
use super::assumptions::{assumption, Assumptions, Priority};
use super::clock;
use super::desk::{Admission, Desk, CAPACITY};
use super::impact::impact;
use super::ladder::{self, JudgeAction, Ladder, Side, Stage, Step};
use super::messages::Challenge;
use crate::credibility::{CrStatus, Credibility};

mod docket;
mod gate;
mod machine;
mod order;

fn challenge(assumption: &str, challenged: f64, challenger: f64) -> Challenge {
    Challenge {
        id: Challenge::id_for(1),
        challenger: "strategy".into(),
        challenged: "financial".into(),
        disputed_finding: format!("{assumption} = {challenged}"),
        assumption: assumption.into(),
        challenged_value: challenged,
        challenger_value: challenger,
        basis: "guidance".into(),
        required_evidence: vec!["10-K".into()],
        escalation_timer: ladder::ACK_S,
        priority: Priority::CriticalPath,
        provisional_resolution: None,
    }
}

fn cred(score: f64, half: f64, points: u32) -> Credibility {
    Credibility {
        score: Some(score),
        low: Some(score - half),
        high: Some(score + half),
        points,
        status: CrStatus::Ok,
    }
}

fn levels(steps: &[Step]) -> Vec<u8> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Escalated { level, .. } => Some(*level),
            _ => None,
        })
        .collect()
}

fn resolution(steps: &[Step]) -> Option<&ladder::Resolution> {
    steps.iter().find_map(|s| match s {
        Step::Resolved(r) => Some(r),
        _ => None,
    })
}

/// ES-3, ES-10: each level-1 timer, on a virtual clock, at the second it runs out and not before.
#[test]
fn es_3_level_one_timers_escalate_exactly_at_their_deadline() {
    // (what the agent does, when the clock is read, the level after)
    type Act = fn(&mut Ladder) -> Vec<Step>;
    let silent: Act = |_| Vec::new();
    let ack: Act = |l| l.acknowledged(60);
    let ack_and_evidence: Act = |l| {
        let mut s = l.acknowledged(60);
        s.extend(l.evidence(120, 0.25, vec!["10-K p. 45".into()]));
        s
    };
    let cases: [(&str, Act, u64, u8); 6] = [
        ("no acknowledgement, 14:59", silent, ladder::ACK_S - 1, 1),
        ("no acknowledgement, 15:00", silent, ladder::ACK_S, 2),
        (
            "acknowledged, no evidence, 59:59",
            ack,
            ladder::EVIDENCE_S - 1,
            1,
        ),
        (
            "acknowledged, no evidence, 60:00",
            ack,
            ladder::EVIDENCE_S,
            2,
        ),
        (
            "evidence, no verdict, 59:59",
            ack_and_evidence,
            ladder::EVIDENCE_S - 1,
            1,
        ),
        (
            "evidence, no verdict, 60:00",
            ack_and_evidence,
            ladder::EVIDENCE_S,
            2,
        ),
    ];
    for (name, act, at, level) in cases {
        let mut l = Ladder::new(challenge("operating_margin", 0.25, 0.30), 0);
        act(&mut l);
        l.tick(at);
        assert_eq!(l.level, level, "{name}");
    }
}

/// ES-3: the ways level 1 ends.
#[test]
fn es_3_level_one_resolves_on_acceptance_or_concession_and_climbs_on_rejection() {
    let mut l = Ladder::new(challenge("operating_margin", 0.25, 0.30), 0);
    l.acknowledged(10);
    l.evidence(20, 0.25, vec!["10-K p. 45".into()]);
    let steps = l.verdict(30, true, "");
    let r = resolution(&steps).expect("resolved");
    assert_eq!(
        (r.level, r.position, r.held_by.as_str()),
        (1, 0.25, "financial")
    );
    assert_eq!(r.method, "accepted by the challenger");
    assert_eq!(r.evidence, vec!["10-K p. 45".to_owned()], "ES-9 evidence");

    let mut l = Ladder::new(challenge("operating_margin", 0.25, 0.30), 0);
    l.acknowledged(10);
    let steps = l.evidence(20, 0.295, vec![]);
    let r = resolution(&steps).expect("a value within tolerance of the challenger's concedes");
    assert_eq!(
        (r.level, r.method.as_str()),
        (1, "conceded by the challenged agent")
    );

    let mut l = Ladder::new(challenge("operating_margin", 0.25, 0.30), 0);
    l.acknowledged(10);
    l.evidence(20, 0.25, vec![]);
    let steps = l.verdict(30, false, "peers run at 30 %");
    assert_eq!(levels(&steps), vec![2]);
    assert!(
        matches!(l.stage, Stage::Facilitator { deadline } if deadline == 30 + ladder::FACILITATOR_S)
    );

    let mut l = Ladder::new(challenge("operating_margin", 0.25, 0.30), 0);
    assert_eq!(
        levels(&l.agent_failed(5, "timed out")),
        vec![2],
        "a failed call climbs at once"
    );
}

/// ES-4: the facilitator's rule, each edge.
#[test]
fn es_4_facilitator_resolves_only_on_a_clear_differential_with_enough_record() {
    let cases = [
        (
            "clear, narrow intervals",
            cred(0.85, 0.05, 40),
            cred(0.55, 0.05, 40),
            Ok(Side::Challenger),
        ),
        (
            "clear, challenged is better",
            cred(0.40, 0.05, 40),
            cred(0.80, 0.05, 40),
            Ok(Side::Challenged),
        ),
        (
            "exactly 0.25 does not exceed",
            cred(0.80, 0.05, 40),
            cred(0.55, 0.05, 40),
            Err("does not exceed 0.250"),
        ),
        (
            "wide intervals raise the bar",
            cred(0.85, 0.20, 8),
            cred(0.55, 0.15, 8),
            Err("does not exceed 0.350"),
        ),
        (
            "4 points are too few",
            cred(0.95, 0.05, 4),
            cred(0.10, 0.05, 40),
            Err("the challenger has 4 record points"),
        ),
        (
            "1 point, singular",
            cred(0.95, 0.05, 40),
            cred(0.10, 0.05, 1),
            Err("the challenged agent has 1 record point ("),
        ),
        (
            "no score at all",
            cred(0.95, 0.05, 40),
            Credibility {
                score: None,
                low: None,
                high: None,
                points: 0,
                status: CrStatus::InsufficientData,
            },
            Err("0 record points"),
        ),
    ];
    for (name, a, b, expected) in cases {
        match (ladder::facilitate(&a, &b), expected) {
            (Ok(side), Ok(want)) => assert_eq!(side, want, "{name}"),
            (Err(e), Err(part)) => assert!(e.contains(part), "{name}: {e}"),
            (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
        }
    }
    // On the ladder: a resolution at level 2 records the more credible side's value.
    let mut l = Ladder::new(challenge("operating_margin", 0.25, 0.30), 0);
    l.agent_failed(1, "down");
    let steps = l.facilitate(2, &cred(0.9, 0.03, 30), &cred(0.5, 0.03, 30));
    let r = resolution(&steps).expect("resolved at level 2");
    assert_eq!(
        (r.level, r.position, r.held_by.as_str()),
        (2, 0.30, "strategy")
    );
    // Too little record: to the queue.
    let mut l = Ladder::new(challenge("operating_margin", 0.25, 0.30), 0);
    l.agent_failed(1, "down");
    assert_eq!(
        levels(&l.facilitate(2, &cred(0.9, 0.03, 3), &cred(0.5, 0.03, 30))),
        vec![3]
    );
    assert_eq!(l.stage, Stage::Queue);
}

fn at_queue(assumption: &str, challenged: f64, challenger: f64) -> Ladder {
    let mut l = Ladder::new(challenge(assumption, challenged, challenger), 0);
    l.tick(ladder::ACK_S);
    l.tick(ladder::ACK_S + ladder::FACILITATOR_S);
    assert_eq!(l.stage, Stage::Queue);
    l
}

/// ES-5, ES-6: a judge's six hours, then the most cautious value, provisionally.
#[test]
fn es_5_es_6_an_unanswered_judge_times_out_to_the_cautious_fallback() {
    let mut l = at_queue("operating_margin", 0.25, 0.30);
    let t = 10_000;
    l.assigned(t, "ada");
    assert!(l.tick(t + ladder::HUMAN_S - 1).is_empty());
    let steps = l.tick(t + ladder::HUMAN_S);
    assert_eq!(levels(&steps), vec![4]);
    let r = resolution(&steps).expect("provisional");
    assert!(r.provisional);
    assert_eq!((r.position, r.held_by.as_str()), (0.25, "financial"));
    assert_eq!(
        r.review_by,
        Some(t + ladder::HUMAN_S + ladder::REVIEW_S),
        "ES-9 review deadline"
    );
    assert_eq!(r.alternatives.len(), 2, "ES-9 alternatives");
    assert!(r
        .rationale
        .as_deref()
        .unwrap_or("")
        .contains("lowest operating_margin"));
    assert_eq!(l.challenge.provisional_resolution, Some(0.25), "ES-2");
}

/// ES-6: the most cautious position depends on what the assumption is.
#[test]
fn es_6_the_most_cautious_position_per_assumption_kind() {
    let cases = [
        (
            "operating_margin",
            0.25,
            0.30,
            0.25,
            "lower margin → lower price",
        ),
        ("revenue_growth", 0.12, 0.06, 0.06, "lower growth"),
        (
            "discount_rate",
            0.08,
            0.10,
            0.10,
            "higher discount → lower price",
        ),
        (
            "net_debt_to_ebitda",
            1.0,
            2.5,
            2.5,
            "more leverage → higher risk",
        ),
        ("tax_rate", 0.21, 0.25, 0.25, "higher tax"),
    ];
    for (key, challenged, challenger, cautious, why) in cases {
        let mut l = at_queue(key, challenged, challenger);
        let steps = l.overflow(5_000, false);
        let r = resolution(&steps).expect("provisional");
        assert_eq!(r.position, cautious, "{key}: {why}");
    }
}

/// ES-5: the desk's limits, balancing, overflow and deferral, and its order.
#[test]
fn es_5_desk_holds_three_per_judge_then_overflows_or_defers() {
    let mut desk = Desk::new(vec!["ada".into(), "bo".into()]);
    let mut given = Vec::new();
    for n in 0..2 * CAPACITY {
        let p = [
            Priority::Supporting,
            Priority::ValuationImpact,
            Priority::CriticalPath,
        ][n % 3];
        given.push(desk.admit(&format!("d/CH-{n}"), p, n as u64));
    }
    assert!(given.iter().all(|a| matches!(a, Admission::Assigned(_))));
    assert_eq!((desk.load("ada"), desk.load("bo")), (3, 3), "balanced");
    assert_eq!(
        desk.admit("d/X", Priority::CriticalPath, 9),
        Admission::Overflow
    );
    assert_eq!(
        desk.admit("d/Y", Priority::ValuationImpact, 9),
        Admission::Overflow
    );
    assert_eq!(
        desk.admit("d/Z", Priority::Supporting, 9),
        Admission::Deferred
    );
    assert_eq!(
        desk.admit("d/CH-0", Priority::Supporting, 0),
        given[0],
        "admitting twice keeps the first judge"
    );
    desk.release("d/CH-1");
    assert!(matches!(
        desk.admit("d/X", Priority::CriticalPath, 10),
        Admission::Assigned(_)
    ));
    let order: Vec<(Priority, u64)> = desk.queue().iter().map(|h| (h.priority, h.since)).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted, "priority first, then arrival");
    assert_eq!(order[0], (Priority::CriticalPath, 2));
    assert_eq!(
        Desk::new(vec![]).admit("d/A", Priority::CriticalPath, 0),
        Admission::Overflow,
        "no judges"
    );
}

/// ES-7: the gate's three actions, and judges refused where they cannot act.
#[test]
fn es_7_gate_review_confirms_overrides_or_sends_back() {
    let provisional = || {
        let mut l = at_queue("operating_margin", 0.25, 0.30);
        l.overflow(20_000, false);
        l
    };
    let mut l = provisional();
    let steps = l
        .judge(21_000, "ada", JudgeAction::Confirm)
        .expect("confirm");
    let r = resolution(&steps).expect("final");
    assert_eq!((r.level, r.position, r.provisional), (5, 0.25, false));
    assert!(l.is_closed());
    assert!(l
        .judge(21_001, "ada", JudgeAction::Confirm)
        .unwrap_err()
        .contains("already resolved"));

    let mut l = provisional();
    let steps = l
        .judge(
            21_000,
            "ada",
            JudgeAction::Override {
                value: 0.28,
                rationale: "management guidance".into(),
            },
        )
        .expect("override");
    let r = resolution(&steps).expect("final");
    assert_eq!(
        (r.level, r.position, r.held_by.as_str()),
        (5, 0.28, "judge:ada")
    );
    assert_eq!(r.method, "overridden by judge ada");

    let cases = [
        (
            JudgeAction::Override {
                value: 0.28,
                rationale: " ".into(),
            },
            "needs a rationale",
        ),
        (
            JudgeAction::Override {
                value: 1.4,
                rationale: "x".into(),
            },
            "operating_margin: 1.4 is outside",
        ),
        (
            JudgeAction::Redebate { context: "".into() },
            "needs the context",
        ),
    ];
    for (action, part) in cases {
        let mut l = provisional();
        let e = l.judge(21_000, "ada", action).unwrap_err();
        assert!(e.contains(part), "{e}");
        assert_eq!(l.level, 5, "a refused action leaves it reviewable");
    }

    let mut l = provisional();
    let steps = l
        .judge(
            21_000,
            "ada",
            JudgeAction::Redebate {
                context: "Q3 guidance is out".into(),
            },
        )
        .expect("re-debate");
    assert_eq!(
        steps,
        vec![Step::Redebate {
            context: "Q3 guidance is out".into()
        }]
    );
    assert_eq!((l.level, l.deadline()), (1, Some(21_000 + ladder::ACK_S)));

    let mut l = Ladder::new(challenge("operating_margin", 0.25, 0.30), 0);
    let e = l.judge(1, "ada", JudgeAction::Confirm).unwrap_err();
    assert!(e.contains("is at level 1; judges act from level 3"), "{e}");
    // Level 3: a ruling binds.
    let mut l = at_queue("operating_margin", 0.25, 0.30);
    l.assigned(7_000, "ada");
    let steps = l
        .judge(
            7_100,
            "ada",
            JudgeAction::Override {
                value: 0.30,
                rationale: "peers".into(),
            },
        )
        .expect("ruling");
    let r = resolution(&steps).expect("binding");
    assert_eq!(
        (r.level, r.held_by.as_str(), r.method.as_str()),
        (3, "strategy", "ruled by judge ada")
    );
}

mod impact;

/// ES-7: the value a judge's added context states, read in the assumption's own unit: a
/// percentage (or a number beyond a fraction's range) as per cent, the first value in range
/// wins, and text without one states nothing.
#[test]
fn es_7_a_value_stated_in_a_judges_context() {
    let table: [(&str, &str, Option<f64>); 8] = [
        (
            "operating_margin",
            "the contract fixes the margin at 26%",
            Some(0.26),
        ),
        (
            "operating_margin",
            "the contract fixes it at 26 %",
            Some(0.26),
        ),
        ("operating_margin", "guidance says 0.27", Some(0.27)),
        ("operating_margin", "guidance says 27.5", Some(0.275)),
        ("operating_margin", "in 2027 the margin is 90 %", None),
        ("operating_margin", "the margin falls to -5 %", Some(-0.05)),
        ("operating_margin", "look at the supplier contract", None),
        (
            "net_debt_to_ebitda",
            "leverage of 2.5 after the deal",
            Some(2.5),
        ),
    ];
    for (key, text, want) in table {
        let got = assumption(key).expect(key).value_in(text);
        match (got, want) {
            (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{text}: {g} vs {w}"),
            _ => assert_eq!(got, want, "{text}"),
        }
    }
}
