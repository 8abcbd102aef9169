//! Table-driven tests of the ladder, the desk, the calculators and the impact check, named by
//! the spec ids they cover.

use super::analysis::{self, Company, Rating, GRAPH};
use super::assumptions::{assumption, Assumptions, Priority};
use super::clock;
use super::desk::{Admission, Desk, CAPACITY};
use super::impact::impact;
use super::ladder::{self, JudgeAction, Ladder, Side, Stage, Step};
use super::messages::Challenge;
use crate::protocol::credibility::{CrStatus, Credibility};

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

/// ES-10: a long pause fires every timer it passed, in order, and stops at the queue.
#[test]
fn es_10_one_late_tick_climbs_every_level_it_passed() {
    let mut l = Ladder::new(challenge("operating_margin", 0.25, 0.30), 0);
    let steps = l.tick(30 * 24 * 3600);
    assert_eq!(levels(&steps), vec![2, 3]);
    assert_eq!(l.stage, Stage::Queue, "the desk decides what happens next");
    let cases = [(0, 3600, 0), (1000, 3600, 3600), (500, 1, 0), (2500, 1, 2)];
    for (wall_ms, scale, pipeline_s) in cases {
        assert_eq!(clock::pipeline_seconds(wall_ms, scale), pipeline_s);
    }
    assert_eq!(
        clock::wall_ms_until(0, ladder::HUMAN_S, 3600),
        6_000,
        "6 h at 3600× is 6 s"
    );
    assert_eq!(clock::wall_ms_until(0, 1, 3600), 1, "never early");
    assert!(clock::check_scale(0).is_err() && clock::check_scale(86_401).is_err());
    assert_eq!(clock::show(5 * 3600 + 12 * 60), "5 h 12 min");
}

/// ES-8: seed 000's worked example — margin 25 % → 28 % moves the DCF target 12 % ($85 → $95):
/// re-run required; the risk score moves less than 0.10: update only.
#[test]
fn es_8_seed_example_margin_override_requires_the_dcf_rerun() {
    let company = Company::default();
    let before = Assumptions::default();
    let base = analysis::compute(&company, &before).expect("values");
    assert!(
        (base.target_price - 85.0).abs() < 0.5,
        "{}",
        base.target_price
    );
    let report = impact(&GRAPH, &company, &before, "operating_margin", 0.28).expect("impact");
    let find = |id: &str| report.impacts.iter().find(|i| i.analysis == id).expect(id);
    let dcf = find("dcf");
    assert!((dcf.delta - 0.12).abs() < 1e-9, "{}", dcf.delta);
    assert!(dcf.requires_rerun);
    assert_eq!((dcf.old.as_str(), dcf.new.as_str()), ("$84.94", "$95.14"));
    let risk = find("risk");
    assert!(risk.delta < 0.10 && !risk.requires_rerun, "{risk:?}");
    assert!(find("rating").requires_rerun, "HOLD → BUY");
    assert_eq!(report.plan.update_only, vec!["risk".to_owned()]);
    assert_eq!(
        report.plan.strategy, "parallel",
        "three re-runs, two independent"
    );
    assert_eq!(
        report.plan.batches,
        vec![
            vec!["dcf".to_owned(), "sensitivity".to_owned()],
            vec!["rating".to_owned()]
        ]
    );
}

/// ES-8: the graph reaches analyses transitively; small moves plan serially.
#[test]
fn es_8_affected_analyses_and_the_serial_plan() {
    let cases: [(&str, &[&str]); 4] = [
        (
            "operating_margin",
            &["dcf", "sensitivity", "risk", "rating"],
        ),
        ("discount_rate", &["dcf", "sensitivity", "rating"]),
        ("tax_rate", &["dcf", "sensitivity", "rating"]),
        ("unknown", &[]),
    ];
    for (key, expected) in cases {
        assert_eq!(analysis::affected(&GRAPH, key), expected.to_vec(), "{key}");
    }
    let company = Company::default();
    // Leverage 1.5 → 2.0: the price falls ~5 % (more net debt) and risk rises 0.035: below every
    // threshold but the rating's.
    let report = impact(
        &GRAPH,
        &company,
        &Assumptions::default(),
        "net_debt_to_ebitda",
        2.0,
    )
    .expect("impact");
    assert!(report
        .impacts
        .iter()
        .all(|i| i.delta < 0.10 || i.analysis == "rating"));
    assert!(
        report.plan.required.len() <= 2 && report.plan.strategy == "serial",
        "{:?}",
        report.plan
    );
    // An unvaluable combination is refused by name, not computed.
    let e = impact(
        &GRAPH,
        &company,
        &Assumptions::default(),
        "discount_rate",
        0.03,
    )
    .unwrap_err();
    assert!(e.contains("must exceed terminal_growth"), "{e}");
}

/// The rating's boundaries and the risk notch.
#[test]
fn es_8_rating_boundaries() {
    let c = Company {
        revenue_per_share: 10.0,
        price: 100.0,
    };
    let cases = [
        (115.0, 0.2, Rating::Buy),
        (114.0, 0.2, Rating::Hold),
        (90.0, 0.2, Rating::Sell),
        (91.0, 0.2, Rating::Hold),
        (130.0, 0.7, Rating::Hold),
        (100.0, 0.75, Rating::Sell),
    ];
    for (target, risk, want) in cases {
        assert_eq!(
            analysis::rating(&c, target, risk).0,
            want,
            "{target} at risk {risk}"
        );
    }
    assert!(assumption("operating_margin").is_some_and(|a| a.check(0.3).is_ok()));
}
