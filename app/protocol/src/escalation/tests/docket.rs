//! UI-4: the desk's cases from logs — held, provisional at the gate, none for other protocols or
//! interrupted pipelines — with both sides, the impact of the other position, precedents from
//! other pipelines and the desk's order.

use super::machine::{overflow, run, FIRM};
use crate::chain::seal_all;
use crate::escalation::docket::{attach_precedents, docket, order, CaseKind};
use crate::escalation::{Admission, EsDebate, EsEvent, JudgeAction};
use crate::event::{entries, DebateEvent};
use crate::shared::{Machine, Supervision};
use crate::EventBody;

fn wall() -> f64 {
    crate::time::days("2026-11-22T00:00:00.000Z").expect("ts") * 86_400_000.0 + 1_000.0
}

fn overridden(bodies: &[EventBody]) -> Vec<EventBody> {
    let mut m = EsDebate::reopen(&entries(&seal_all(bodies.to_vec())), wall()).expect("reopen");
    m.judge(
        "CH-001",
        "ada",
        JudgeAction::Override {
            value: 0.27,
            rationale: "guidance".into(),
        },
    )
    .expect("override");
    let mut all = bodies.to_vec();
    while let Some(e) = m.poll_event() {
        all.push(EventBody::from(e));
    }
    all
}

/// UI-4 + ES-7: a decided pipeline's provisional value is a gate case; its sides are the
/// challenger's and the challenged agent's values, the applied one marked, and the impact is
/// that of taking the other (ES-8: 25 % → 28 % requires the DCF re-run).
#[test]
fn a_provisional_decision_waits_at_the_gate_ui_4() {
    let log = seal_all(run(FIRM, &overflow, None));
    let got = docket("d1", &entries(&log), wall());
    assert_eq!(got.cases.len(), 1);
    let c = &got.cases[0];
    assert_eq!((c.kind, c.debate.as_str()), (CaseKind::Gate, "d1"));
    let sides: Vec<(&str, &str, f64, bool)> = c
        .sides
        .iter()
        .map(|s| (s.agent.as_str(), s.role.as_str(), s.value, s.applied))
        .collect();
    assert_eq!(
        sides,
        [
            ("valuation", "challenger", 0.25, true),
            ("financial", "challenged", 0.28, false)
        ]
    );
    let impact = c.impact.as_ref().expect("impact of the other position");
    assert_eq!(impact.new_value, 0.28);
    assert!(impact.plan.required.contains(&"dcf".to_owned()));
    assert!(c.time_left.is_some(), "the review window runs");
    assert!(got.precedents.is_empty(), "no judge has ruled yet");
}

/// UI-4: what is not a case — a reviewed gate, an interrupted pipeline, another protocol.
#[test]
fn no_case_without_something_to_decide_ui_4() {
    let bodies = run(FIRM, &overflow, None);
    let reviewed = overridden(&bodies);
    let got = docket("d2", &entries(&seal_all(reviewed)), wall());
    assert!(got.cases.is_empty());
    assert_eq!(got.precedents.len(), 1, "the override is a precedent");
    assert_eq!(got.precedents[0].method, "overridden by judge ada");
    assert_eq!(got.precedents[0].shown, "27.0 %");

    let mut cut: Vec<EventBody> = bodies
        .iter()
        .take_while(|b| !matches!(b, EventBody::Debate(DebateEvent::Decision(_))))
        .cloned()
        .collect();
    cut.push(crate::run::interruption("server stopped".into()));
    assert!(docket("d3", &entries(&seal_all(cut)), wall())
        .cases
        .is_empty());

    let mut other = bodies.clone();
    if let EventBody::Debate(DebateEvent::DebateStarted { protocol, .. }) = &mut other[0] {
        *protocol = "round_robin".into();
    }
    assert!(docket("d4", &entries(&seal_all(other)), wall())
        .cases
        .is_empty());
}

/// UI-4: a held challenge comes before the gate; precedents come from other pipelines only.
#[test]
fn the_desk_orders_cases_and_attaches_precedents_ui_4() {
    let held_run = run(FIRM, &|_: &str| Admission::Assigned("ada".into()), None);
    let upto = held_run
        .iter()
        .position(|b| matches!(b, EventBody::Escalation(EsEvent::JudgeAssigned(_))))
        .expect("assigned");
    let held = docket(
        "held",
        &entries(&seal_all(held_run[..=upto].to_vec())),
        wall(),
    );
    assert_eq!(held.cases.len(), 1);
    assert_eq!(held.cases[0].kind, CaseKind::Held);
    assert_eq!(held.cases[0].challenge.judge.as_deref(), Some("ada"));

    let gate = docket(
        "gate",
        &entries(&seal_all(run(FIRM, &overflow, None))),
        wall(),
    );
    let reviewed = docket(
        "old",
        &entries(&seal_all(overridden(&run(FIRM, &overflow, None)))),
        wall(),
    );
    let mut cases = gate.cases;
    cases.extend(held.cases);
    let mut precedents = reviewed.precedents;
    precedents.extend(gate.precedents);
    attach_precedents(&mut cases, &precedents, 3);
    order(&mut cases);
    let kinds: Vec<CaseKind> = cases.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [CaseKind::Held, CaseKind::Gate]);
    for c in &cases {
        assert_eq!(c.precedents.len(), 1, "{}", c.debate);
        assert_eq!(c.precedents[0].debate, "old");
    }
}
