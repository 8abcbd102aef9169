//! L5, the gate (ES-7, ES-8): a finished pipeline reopened from its log, its provisional value
//! confirmed or overridden, an override's impact and re-runs logged, and the longer log verified.

use super::machine::{outcome, overflow, run, FIRM};
use crate::chain::{recompute_decision, seal_all};
use crate::escalation::clock::wall_ms_until;
use crate::escalation::ladder::ACK_S;
use crate::escalation::{
    ChallengeAnswer, EsDebate, EsEvent, EsReply, EsTask, EvidenceVerdict, JudgeAction, RulingError,
};
use crate::event::{entries, DebateEvent};
use crate::shared::{Machine, Supervision};
use crate::{EventBody, Outcome};

/// The pipeline whose margin dispute fell back to the cautious 25 % (ES-6), as logged.
fn provisional_log() -> Vec<EventBody> {
    let bodies = run(FIRM, &overflow, None);
    assert_eq!(outcome(&bodies).provisional, ["CH-001"]);
    bodies
}

/// A minute after the log's last event (`seal_all` stamps every event at the same instant).
fn a_minute_later() -> f64 {
    crate::time::days("2026-11-22T00:00:00.000Z").expect("ts") * 86_400_000.0 + 60_000.0
}

/// Reopens the log, lets judge ada act, and returns the action's result and the whole log.
fn review(
    bodies: Vec<EventBody>,
    challenge: &str,
    action: JudgeAction,
) -> (Result<(), RulingError>, Vec<EventBody>) {
    let mut m =
        EsDebate::reopen(&entries(&seal_all(bodies.clone())), a_minute_later()).expect("reopens");
    let result = m.judge(challenge, "ada", action);
    let mut all = bodies;
    while let Some(e) = m.poll_event() {
        all.push(EventBody::from(e));
    }
    (result, all)
}

fn types_after_first_decision(bodies: &[EventBody]) -> Vec<&'static str> {
    let first = bodies
        .iter()
        .position(|b| matches!(b, EventBody::Debate(DebateEvent::Decision(_))))
        .expect("decision");
    bodies[first + 1..].iter().map(EventBody::kind).collect()
}

fn verifies(bodies: &[EventBody]) -> Result<Outcome, String> {
    recompute_decision(&seal_all(bodies.to_vec())).map_err(|e| e.to_string())
}

/// ES-7/ES-8 with seed 000's example: overriding the provisional 25 % margin to 28 % moves the
/// DCF target by more than 10 %, so the impact requires re-runs; they are logged batch by batch
/// and a new decision, with nothing provisional left, ends the log — which verifies.
#[test]
fn an_override_at_the_gate_reruns_what_it_moves_es_7_es_8() {
    let (result, bodies) = review(
        provisional_log(),
        "CH-001",
        JudgeAction::Override {
            value: 0.28,
            rationale: "  the cost programme is contracted  ".into(),
        },
    );
    result.expect("the gate takes the override");
    let after = types_after_first_decision(&bodies);
    assert_eq!(
        &after[..3],
        ["judge_ruling", "challenge_resolved", "impact"]
    );
    assert_eq!(after.last(), Some(&"decision"));
    let ruling = bodies.iter().rev().find_map(|b| match b {
        EventBody::Escalation(EsEvent::JudgeRuling(j)) => Some(j.clone()),
        _ => None,
    });
    let ruling = ruling.expect("ruling");
    assert_eq!((ruling.judge.as_str(), ruling.level), ("ada", 5));
    assert!(ruling.at > 0, "pipeline time ran on to the review");
    let impact = bodies
        .iter()
        .find_map(|b| match b {
            EventBody::Escalation(EsEvent::Impact(i)) => Some(i.report.clone()),
            _ => None,
        })
        .expect("impact");
    assert_eq!((impact.old_value, impact.new_value), (0.25, 0.28));
    let dcf = impact
        .impacts
        .iter()
        .find(|i| i.analysis == "dcf")
        .expect("dcf");
    assert!(dcf.requires_rerun && dcf.delta > 0.10, "{dcf:?}");
    let reruns: Vec<Vec<String>> = bodies
        .iter()
        .filter_map(|b| match b {
            EventBody::Escalation(EsEvent::Analysis(a)) if !a.rerun.is_empty() => {
                Some(a.rerun.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(reruns, impact.plan.batches, "each batch of the plan re-ran");
    let last = outcome(&bodies);
    assert!(last.provisional.is_empty(), "{last:?}");
    assert_eq!(last.assumptions.get("operating_margin"), 0.28);
    let r = last.resolutions.last().expect("resolution");
    assert_eq!(
        (r.level, r.method.as_str(), r.provisional),
        (5, "overridden by judge ada", false)
    );
    let mut logged = Outcome::Escalation(Box::new(last));
    logged.set_vote_baseline(None);
    let recomputed = verifies(&bodies).expect("SV-2 on the longer log");
    assert_eq!(recomputed, logged);
}

/// ES-7: a confirmation keeps the cautious value — no impact, one analysis recording the
/// reviewed assumptions, a decision with nothing provisional.
#[test]
fn a_confirmation_at_the_gate_keeps_the_value_es_7() {
    let (result, bodies) = review(provisional_log(), "CH-001", JudgeAction::Confirm);
    result.expect("confirmed");
    assert_eq!(
        types_after_first_decision(&bodies),
        ["judge_ruling", "challenge_resolved", "analysis", "decision"]
    );
    let last = outcome(&bodies);
    assert!(last.provisional.is_empty());
    assert_eq!(last.assumptions.get("operating_margin"), 0.25);
    assert!(
        last.reasoning.contains("1 challenge resolved."),
        "{}",
        last.reasoning
    );
    verifies(&bodies).expect("verifies");
}

/// ES-7: what the gate refuses, by name, without writing anything.
#[test]
fn the_gate_refuses_by_name_es_7() {
    let over = |v: f64, why: &str| JudgeAction::Override {
        value: v,
        rationale: why.into(),
    };
    let conflict = |s: &str| Err(RulingError::Conflict(s.to_owned()));
    let invalid = |s: &str| Err(RulingError::Invalid(s.to_owned()));
    let table: Vec<(&str, JudgeAction, Result<(), RulingError>)> = vec![
        (
            "CH-009",
            JudgeAction::Confirm,
            invalid("this debate has no challenge 'CH-009'"),
        ),
        (
            "CH-001",
            over(0.28, "  "),
            invalid("an override needs a rationale"),
        ),
        (
            "CH-001",
            over(7.0, "why"),
            Err(RulingError::Invalid(String::new())),
        ),
        (
            "CH-001",
            JudgeAction::Redebate {
                context: "  ".into(),
            },
            invalid("a re-debate needs the context to add"),
        ),
    ];
    for (challenge, action, want) in table {
        let before = provisional_log();
        let (got, bodies) = review(before.clone(), challenge, action.clone());
        match (&got, &want) {
            // The range message is the assumption's own; its kind is what matters here.
            (Err(RulingError::Invalid(_)), Err(RulingError::Invalid(w))) if w.is_empty() => {}
            _ => assert_eq!(got, want, "{challenge} {action:?}"),
        }
        assert_eq!(bodies.len(), before.len(), "nothing logged for {action:?}");
    }
    // Once reviewed, the challenge is resolved: a second review is a conflict.
    let (_, reviewed) = review(provisional_log(), "CH-001", JudgeAction::Confirm);
    let (again, _) = review(reviewed, "CH-001", JudgeAction::Confirm);
    assert_eq!(
        again,
        conflict(
            "the pipeline has ended and CH-001 is already resolved; the gate reviews its \
             provisional decisions only"
        )
    );
}

/// SV-2 on the gate's events: a forged impact, a re-run the plan did not call for, and a
/// decision before the required re-runs each fail verification, naming the event.
#[test]
fn forged_gate_events_fail_verification_es_8() {
    let (_, good) = review(
        provisional_log(),
        "CH-001",
        JudgeAction::Override {
            value: 0.28,
            rationale: "contracted".into(),
        },
    );
    let position = |want: &str| {
        good.iter()
            .position(|b| {
                b.kind() == want && !matches!(b, EventBody::Escalation(EsEvent::Analysis(a)) if a.rerun.is_empty())
            })
            .expect(want)
    };
    let mut smaller = good.clone();
    if let EventBody::Escalation(EsEvent::Impact(i)) = &mut smaller[position("impact")] {
        i.report.impacts[0].delta /= 2.0;
    }
    let mut extra = good.clone();
    if let Some(EventBody::Escalation(EsEvent::Analysis(a))) = extra
        .iter_mut()
        .rev()
        .find(|b| matches!(b, EventBody::Escalation(EsEvent::Analysis(a)) if !a.rerun.is_empty()))
    {
        a.rerun.push("risk_extra".into());
    }
    let mut skipped = good.clone();
    skipped.retain(
        |b| !matches!(b, EventBody::Escalation(EsEvent::Analysis(a)) if !a.rerun.is_empty()),
    );
    for (name, log, needle) in [
        ("impact", smaller, "is not what ES-8 gives"),
        ("re-run", extra, "that the impact plan did not call for"),
        ("skipped", skipped, "comes before the re-runs"),
    ] {
        let err = verifies(&log).expect_err(name);
        assert!(err.contains(needle), "{name}: {err}");
    }
}

/// The gate opens only on an escalation pipeline that has logged its decision.
#[test]
fn reopen_needs_a_decided_pipeline() {
    let bodies = provisional_log();
    let cut: Vec<EventBody> = bodies
        .iter()
        .take_while(|b| !matches!(b, EventBody::Debate(DebateEvent::Decision(_))))
        .cloned()
        .collect();
    let err =
        EsDebate::reopen(&entries(&seal_all(cut)), a_minute_later()).expect_err("no decision");
    assert!(err.contains("has not reached its decision"), "{err}");
    let err = EsDebate::reopen(&entries(&[]), a_minute_later()).expect_err("empty");
    assert!(err.contains("debate_started"), "{err}");
}

/// ES-7 at the gate: a re-debate sends the provisional challenge back to its agents at level 1
/// with the judge's added context. The pipeline runs on from the log: its timers count from the
/// reopening, the challenged agent is asked first and sees the context, the challenger weighs
/// the answer, and a new analysis and decision end the log, which still verifies.
#[test]
fn es_7_a_redebate_at_the_gate_sends_the_pipeline_back_to_its_agents() {
    let before = provisional_log();
    let context = "the supply contract fixes the margin at 26%";
    let mut m =
        EsDebate::reopen(&entries(&seal_all(before.clone())), a_minute_later()).expect("reopens");
    m.judge(
        "CH-001",
        "ada",
        JudgeAction::Redebate {
            context: format!("  {context} "),
        },
    )
    .expect("sent back");
    assert!(!m.is_finished(), "the pipeline runs again");
    // Its timers count from the reopening, not from the start of the first run.
    assert_eq!(m.wake_at(), Some(wall_ms_until(0, ACK_S, 3600)));
    let mut all = before.clone();
    let mut asked = Vec::new();
    for _ in 0..20 {
        let next = m.poll_request();
        while let Some(e) = m.poll_event() {
            all.push(EventBody::from(e));
        }
        let Some(req) = next else { break };
        let reply = match &req.task {
            EsTask::AnswerChallenge {
                context: shown,
                challenge,
                ..
            } => {
                assert_eq!(shown, &[context.to_owned()], "the context is shown");
                asked.push((req.agent.clone(), challenge.id.clone()));
                EsReply::ChallengeAnswer(ChallengeAnswer {
                    acknowledge: true,
                    value: 0.26,
                    evidence: vec!["the contract".into()],
                })
            }
            EsTask::WeighEvidence { challenge, .. } => {
                asked.push((req.agent.clone(), challenge.id.clone()));
                EsReply::Verdict(EvidenceVerdict {
                    accept: true,
                    reason: "the contract settles it".into(),
                })
            }
            other => panic!("unexpected request {other:?}"),
        };
        m.handle_reply(req.id, reply).expect("accepted");
    }
    assert!(m.is_finished(), "decided again");
    assert_eq!(
        asked,
        [
            ("financial".to_owned(), "CH-001".to_owned()),
            ("valuation".to_owned(), "CH-001".to_owned())
        ],
        "the challenged agent, then the challenger"
    );
    let after = types_after_first_decision(&all);
    assert_eq!(after.first(), Some(&"judge_ruling"), "{after:?}");
    assert_eq!(after.last(), Some(&"decision"), "{after:?}");
    assert!(after.contains(&"challenge_resolved"), "{after:?}");
    let ruling = all
        .iter()
        .find_map(|b| match b {
            EventBody::Escalation(EsEvent::JudgeRuling(j)) => Some(j.clone()),
            _ => None,
        })
        .expect("ruling");
    assert_eq!(ruling.level, 5);
    assert_eq!(
        ruling.action,
        JudgeAction::Redebate {
            context: context.into()
        }
    );
    let decided = outcome(&all);
    assert!(decided.provisional.is_empty(), "{decided:?}");
    assert!((decided.assumptions.get("operating_margin") - 0.26).abs() < 1e-12);
    let level_one = decided
        .resolutions
        .iter()
        .find(|r| r.challenge == "CH-001")
        .expect("resolved");
    assert_eq!((level_one.level, level_one.provisional), (1, false));
    // SV-2: the longer log recomputes to its last decision.
    let Ok(Outcome::Escalation(v)) = verifies(&all) else {
        panic!("verifies: {:?}", verifies(&all));
    };
    assert_eq!(v.assumptions, decided.assumptions);
}
