//! The escalation machine end to end on a virtual clock: scripted replies, time passed in by
//! hand, the log sealed and recomputed as `verify` does (ES-1…ES-10, SV-2).

use crate::chain::{recompute_decision, seal_all};
use crate::credibility::{
    AgentCredibility, CrStatus, Credibility, CredibilitySnapshot, EffectiveVotes,
};
use crate::escalation::rules::{covers, default_agents};
use crate::escalation::{
    Admission, ChallengeAnswer, EsDebate, EsParams, Estimate, EvidenceVerdict, JudgeAction,
    RulingError,
};
use crate::escalation::{EsEvent, EsReply, EsTask};
use crate::event::{entries, DebateEvent};
use crate::shared::{CommonEvent, Machine, Request, Supervision};
use crate::{EventBody, Outcome};

/// How the scripted agents behave in one run.
#[derive(Clone, Copy)]
pub(super) struct Script {
    /// The financial agent's operating margin (the valuation agent says 0.25).
    pub(super) margin: f64,
    /// The challenged agent: `None` never acknowledges; `Some(v)` answers with `v`.
    pub(super) answer: Option<f64>,
    /// The challenger accepts the evidence.
    pub(super) accept: bool,
}

pub(super) fn reply(req: &Request<EsTask>, s: Script) -> EsReply {
    match &req.task {
        EsTask::Estimate { assumptions, .. } => EsReply::Estimates(
            assumptions
                .iter()
                .map(|k| Estimate {
                    assumption: k.clone(),
                    value: match (k.as_str(), req.agent.as_str()) {
                        ("operating_margin", "financial") => s.margin,
                        (k, _) => crate::escalation::assumption(k).map_or(0.0, |a| a.default),
                    },
                    confidence: 0.7,
                    evidence: vec![format!("{} says so", req.agent)],
                })
                .collect(),
        ),
        EsTask::AnswerChallenge { own_value, .. } => EsReply::ChallengeAnswer(ChallengeAnswer {
            acknowledge: s.answer.is_some(),
            value: s.answer.unwrap_or(*own_value),
            evidence: vec!["the 10-K, note 4".into()],
        }),
        EsTask::WeighEvidence { .. } => EsReply::Verdict(EvidenceVerdict {
            accept: s.accept,
            reason: "read it".into(),
        }),
    }
}

/// Runs a pipeline: agents answer by `script`; whenever nobody is asked, the virtual clock
/// jumps to the next timer; queued challenges get `admission`. Returns the log's bodies.
pub(super) fn run(
    script: Script,
    admission: &dyn Fn(&str) -> Admission,
    credibility: Option<CredibilitySnapshot>,
) -> Vec<EventBody> {
    let mut m = EsDebate::new(
        "Should we buy at $80 given the cost programme?",
        default_agents(),
        EsParams {
            time_scale: 3600,
            ..EsParams::default()
        },
        7,
    )
    .expect("valid");
    if let Some(c) = &credibility {
        m.set_credibility(c);
    }
    let mut bodies = Vec::new();
    let mut wall = 0;
    for _ in 0..200 {
        for (c, _) in m.queued() {
            m.admit(&c, admission(&c));
        }
        let next = m.poll_request();
        while let Some(e) = m.poll_event() {
            let e = EventBody::from(e);
            let started = matches!(e, EventBody::Debate(DebateEvent::DebateStarted { .. }));
            bodies.push(e);
            // As `DebateRun` does: the snapshot is logged right after the start (CR-4).
            if let (true, Some(c)) = (started, &credibility) {
                bodies.push(EventBody::Common(CommonEvent::Credibility(c.clone())));
            }
        }
        if m.is_finished() {
            break;
        }
        match next {
            Some(req) => m
                .handle_reply(req.id, reply(&req, script))
                .expect("accepted"),
            None => {
                wall = m.wake_at().expect("a timer runs while nothing is asked");
                m.advance(wall);
            }
        }
    }
    assert!(m.is_finished(), "finished by wall ms {wall}");
    bodies
}

fn escalations(bodies: &[EventBody]) -> Vec<(u8, u64)> {
    bodies
        .iter()
        .filter_map(|b| match b {
            EventBody::Escalation(EsEvent::Escalated(e)) => Some((e.level, e.at)),
            _ => None,
        })
        .collect()
}

pub(super) fn outcome(bodies: &[EventBody]) -> crate::escalation::EsOutcome {
    match bodies.last() {
        Some(EventBody::Debate(DebateEvent::Decision(Outcome::Escalation(o)))) => (**o).clone(),
        other => panic!("ends with an escalation decision, got {other:?}"),
    }
}

fn verified(bodies: Vec<EventBody>) -> Vec<EventBody> {
    let log = seal_all(bodies.clone());
    let logged = match &log.last().expect("events").body {
        EventBody::Debate(DebateEvent::Decision(o)) => o.clone(),
        _ => panic!("decision"),
    };
    let recomputed = recompute_decision(&log).expect("SV-2 recompute");
    let mut logged = logged;
    logged.set_vote_baseline(None);
    assert_eq!(recomputed, logged, "SV-2: verify recomputes the decision");
    bodies
}

pub(super) const FIRM: Script = Script {
    margin: 0.28,
    answer: Some(0.28),
    accept: false,
};

pub(super) fn overflow(_: &str) -> Admission {
    Admission::Overflow
}

/// ES-2: agreeing specialists raise no challenge; a margin 3 points apart raises one,
/// critical-path, from the reviewer (valuation) against the owner (financial).
#[test]
fn disagreement_raises_a_challenge_es_2() {
    let agree = run(
        Script {
            margin: 0.25,
            ..FIRM
        },
        &overflow,
        None,
    );
    assert!(!agree
        .iter()
        .any(|b| matches!(b, EventBody::Escalation(EsEvent::ChallengeRaised { .. }))));
    let o = outcome(&verified(agree));
    assert!(o.resolutions.is_empty() && o.provisional.is_empty());

    let bodies = run(FIRM, &overflow, None);
    let raised: Vec<_> = bodies
        .iter()
        .filter_map(|b| match b {
            EventBody::Escalation(EsEvent::ChallengeRaised { challenge, .. }) => {
                Some(challenge.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(raised.len(), 1);
    let c = &raised[0];
    assert_eq!(
        (
            c.id.as_str(),
            c.challenger.as_str(),
            c.challenged.as_str(),
            c.assumption.as_str()
        ),
        ("CH-001", "valuation", "financial", "operating_margin")
    );
    assert_eq!(c.priority.as_str(), "critical-path");
    // ES-1: every finding is a typed message with its assumption and value.
    let findings = bodies
        .iter()
        .filter(|b| matches!(b, EventBody::Escalation(EsEvent::Message { round: 1, .. })))
        .count();
    let agents = default_agents();
    let want: usize = (0..agents.len()).map(|i| covers(&agents, i).len()).sum();
    assert_eq!(findings, want);
}

/// ES-3…ES-6 as a table: how the agents behave → the levels climbed (with their pipeline
/// times) → the value applied and whether it is provisional (then, at the decision, at the gate:
/// level 5, ES-7).
#[test]
fn ladder_paths_es_3_to_es_6() {
    struct Case {
        name: &'static str,
        script: Script,
        admission: fn(&str) -> Admission,
        climbs: Vec<(u8, u64)>,
        value: f64,
        provisional: bool,
    }
    let judge = |_: &str| Admission::Assigned("ada".into());
    let cases = [
        Case {
            name: "ES-3 the challenged agent concedes",
            script: Script {
                answer: Some(0.25),
                ..FIRM
            },
            admission: overflow,
            climbs: vec![],
            value: 0.25,
            provisional: false,
        },
        Case {
            name: "ES-3 the challenger accepts the evidence",
            script: Script {
                accept: true,
                ..FIRM
            },
            admission: overflow,
            climbs: vec![],
            value: 0.28,
            provisional: false,
        },
        Case {
            name: "ES-3→4→5→6 rejected, no record, no judge: the cautious margin, provisionally",
            script: FIRM,
            admission: overflow,
            climbs: vec![(2, 0), (3, 0), (4, 0), (5, 0)],
            value: 0.25,
            provisional: true,
        },
        Case {
            name: "ES-3 no acknowledgement within 15 minutes climbs at 900 s",
            script: Script {
                answer: None,
                ..FIRM
            },
            admission: overflow,
            climbs: vec![(2, 900), (3, 900), (4, 900), (5, 900)],
            value: 0.25,
            provisional: true,
        },
        Case {
            name: "ES-5 a judge holds it 6 hours, then ES-6",
            script: FIRM,
            admission: judge,
            climbs: vec![(2, 0), (3, 0), (4, 6 * 3600), (5, 6 * 3600)],
            value: 0.25,
            provisional: true,
        },
    ];
    for case in cases {
        let bodies = verified(run(case.script, &case.admission, None));
        assert_eq!(escalations(&bodies), case.climbs, "{}", case.name);
        let o = outcome(&bodies);
        assert_eq!(o.resolutions.len(), 1, "{}", case.name);
        let r = &o.resolutions[0];
        assert_eq!(
            (r.position, r.provisional),
            (case.value, case.provisional),
            "{}",
            case.name
        );
        assert_eq!(
            o.provisional.len(),
            usize::from(case.provisional),
            "{}",
            case.name
        );
        if case.provisional {
            assert!(bodies
                .iter()
                .any(|b| matches!(b, EventBody::Escalation(EsEvent::ProvisionalDecision(_)))));
            assert_eq!(r.level, 4);
            assert!(
                o.reasoning
                    .contains("1 provisional decision requires review"),
                "{}",
                o.reasoning
            );
        }
    }
}

fn snapshot(valuation: f64, financial: f64, points: u32) -> CredibilitySnapshot {
    let c = |score: f64| Credibility {
        score: Some(score),
        low: Some(score - 0.05),
        high: Some(score + 0.05),
        points,
        status: CrStatus::Ok,
    };
    CredibilitySnapshot {
        as_of: "2026-01-01T00:00:00Z".into(),
        half_life_days: 180.0,
        agents: [("valuation", valuation), ("financial", financial)]
            .into_iter()
            .map(|(a, s)| AgentCredibility {
                agent: a.into(),
                identity: format!("builtin:{a}"),
                credibility: c(s),
                sample: false,
            })
            .collect(),
        effective: EffectiveVotes {
            votes: 2,
            effective: None,
            pairs: Vec::new(),
            note: String::new(),
        },
    }
}

/// ES-4: with ≥ 5 points each and a differential above 0.25 the facilitator resolves to the
/// more credible agent at level 2; verify checks the ruling against the logged credibility.
#[test]
fn facilitator_resolves_by_credibility_es_4() {
    let table = [
        (0.9, 0.5, 6, Some(0.25)),
        (0.5, 0.9, 6, Some(0.28)),
        (0.9, 0.5, 4, None),
        (0.7, 0.6, 9, None),
    ];
    for (valuation, financial, points, want) in table {
        let bodies = verified(run(
            FIRM,
            &overflow,
            Some(snapshot(valuation, financial, points)),
        ));
        let r = outcome(&bodies).resolutions[0].clone();
        match want {
            Some(v) => assert_eq!((r.level, r.position, r.provisional), (2, v, false)),
            None => assert_eq!((r.level, r.provisional), (4, true)),
        }
    }
}

/// SV-2: a provisional value edited to the bolder position (and re-hashed) fails verify.
#[test]
fn a_bolder_provisional_value_fails_verification_es_6() {
    let mut bodies = run(FIRM, &overflow, None);
    for b in &mut bodies {
        if let EventBody::Escalation(EsEvent::ProvisionalDecision(r)) = b {
            r.resolution.position = 0.28;
        }
    }
    let err = recompute_decision(&seal_all(bodies)).expect_err("refused");
    assert!(err.to_string().contains("not the most cautious"), "{err}");
}

/// The budget stop: no more calls, open challenges take their cautious value provisionally.
#[test]
fn the_budget_stop_falls_back_cautiously() {
    let mut m = EsDebate::new("margin?", default_agents(), EsParams::default(), 1).expect("ok");
    let mut bodies = Vec::new();
    let mut asked = 0;
    while let Some(req) = m.poll_request() {
        asked += 1;
        m.handle_reply(req.id, reply(&req, FIRM)).expect("ok");
        while let Some(e) = m.poll_event() {
            bodies.push(EventBody::from(e));
        }
        if matches!(req.task, EsTask::AnswerChallenge { .. }) {
            m.exhaust(5000, 4000);
            break;
        }
    }
    while let Some(e) = m.poll_event() {
        bodies.push(EventBody::from(e));
    }
    assert!(asked >= 5);
    // No `agent_call` was logged here, so only the protocol's own recompute applies.
    let o = outcome(&bodies);
    let recomputed = crate::escalation::recompute(&entries(&seal_all(bodies))).expect("recompute");
    assert_eq!(recomputed, o);
    assert!(o.budget_exhausted);
    assert_eq!(o.resolutions[0].position, 0.25);
    assert!(o.resolutions[0].provisional);
}

/// Runs the FIRM script with a judge at the desk; once the challenge is held, `action` is taken
/// by judge ada (its result returned), then the pipeline runs to its end.
fn ruled(action: JudgeAction) -> (Result<(), RulingError>, Vec<EventBody>) {
    let mut m = EsDebate::new("margins?", default_agents(), EsParams::default(), 2).expect("ok");
    let mut bodies = Vec::new();
    let mut result = None;
    for _ in 0..200 {
        for (c, _) in m.queued() {
            m.admit(&c, Admission::Assigned("ada".into()));
        }
        if result.is_none() && !m.held().is_empty() {
            result = Some(m.judge("CH-001", "ada", action.clone()));
        }
        let next = m.poll_request();
        while let Some(e) = m.poll_event() {
            bodies.push(EventBody::from(e));
        }
        if m.is_finished() {
            break;
        }
        match next {
            Some(req) => m.handle_reply(req.id, reply(&req, FIRM)).expect("accepted"),
            None => m.advance(m.wake_at().expect("a timer")),
        }
    }
    (result.expect("the challenge was held"), bodies)
}

/// ES-7 as a table: what a judge does with a held challenge → the log's outcome.
#[test]
fn judges_rulings_es_7() {
    let override_to = |v: f64, why: &str| JudgeAction::Override {
        value: v,
        rationale: why.into(),
    };
    // A binding ruling at level 3.
    let (ok, bodies) = ruled(override_to(0.265, "guidance"));
    assert_eq!(ok, Ok(()));
    let bodies = verified(bodies);
    let r = outcome(&bodies).resolutions[0].clone();
    assert_eq!((r.level, r.position, r.provisional), (3, 0.265, false));
    assert_eq!(r.method, "ruled by judge ada");
    assert!(bodies
        .iter()
        .any(|b| matches!(b, EventBody::Escalation(EsEvent::JudgeRuling(j)) if j.judge == "ada" && j.level == 3)));
    // Refused by name: bad input, and the wrong moment.
    let table = [
        (override_to(2.0, "x"), "outside"),
        (override_to(0.26, "  "), "rationale"),
        (JudgeAction::Redebate { context: "".into() }, "context"),
    ];
    for (action, needle) in table {
        match ruled(action).0 {
            Err(RulingError::Invalid(e)) => assert!(e.contains(needle), "{e}"),
            other => panic!("{other:?}"),
        }
    }
    match ruled(JudgeAction::Confirm).0 {
        Err(RulingError::Conflict(e)) => assert!(e.contains("no provisional decision"), "{e}"),
        other => panic!("{other:?}"),
    }
    // A re-debate sends it back to the agents (level 1), who are asked again.
    let (ok, bodies) = ruled(JudgeAction::Redebate {
        context: "the Q3 call guided to 26 %".into(),
    });
    assert_eq!(ok, Ok(()));
    let bodies = verified(bodies);
    let answers = bodies
        .iter()
        .filter(|b| matches!(b, EventBody::Escalation(EsEvent::Message { message, .. }) if message.from == "financial" && message.to.is_some()))
        .count();
    assert_eq!(answers, 2, "asked again after the re-debate");
}

/// SV-2: a judge's value edited after the fact (and re-hashed) fails verification.
#[test]
fn a_resolution_that_does_not_follow_the_ruling_fails_verification_es_7() {
    let (_, mut bodies) = ruled(JudgeAction::Override {
        value: 0.265,
        rationale: "guidance".into(),
    });
    for b in &mut bodies {
        if let EventBody::Escalation(EsEvent::ChallengeResolved(r)) = b {
            r.resolution.position = 0.27;
        }
    }
    let err = recompute_decision(&seal_all(bodies)).expect_err("refused");
    assert!(
        err.to_string().contains("does not follow judge ada"),
        "{err}"
    );
}
