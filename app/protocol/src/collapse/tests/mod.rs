//! WC-1…WC-8, table-driven, and the machine driven by scripted agents to every outcome.

mod order;

use serde_json::json;

use super::rules::{self, PanelVerdict, Standing};
use super::types::{GateVerdict, Step};
use super::*;
use crate::chain::seal_all;
use crate::collapse::{WcEvent, WcReply, WcTask};
use crate::event::{entries, DebateEvent};
use crate::shared::Request;
use crate::{EventBody, Machine, Outcome, ProtocolError};

fn card(id: &str, quality: f64, residual: f64, v: f64, cost: u32, gamma: f64) -> PositionCard {
    PositionCard {
        agent: id.into(),
        timestamp: "2026-11-22T00:00:00Z".into(),
        claims: vec![format!("{id} works")],
        plan: vec![PlanStep {
            action: format!("do {id}"),
            rationale: "because".into(),
        }],
        evidence: vec![Evidence {
            kind: EvidenceKind::Test,
            pointer: format!("tests/{id}"),
            quality,
        }],
        risks: vec![Risk {
            severity: Severity::Medium,
            description: format!("{id} may fail"),
            mitigation: "roll back".into(),
            residual_risk: residual,
        }],
        confidence: gamma,
        cost,
        reversibility: v,
        invariant_violations: vec![],
    }
}

#[test]
fn score_follows_the_resolved_signs_wc_2() {
    // S = 10·0.9 − 8·(0.4·0.5) + 3·0.8 − 2·(50/100) + 1·0.7 − 10·0 = 9 − 1.6 + 2.4 − 1 + 0.7 = 9.5
    let c = card("a", 0.9, 0.5, 0.8, 50, 0.7);
    let s = rules::score(&c, &Weights::default());
    assert!((s.total - 9.5).abs() < 1e-12, "{s:?}");
    assert_eq!(
        s.terms.map(|t| (t * 100.0).round() / 100.0),
        [9.0, -1.6, 2.4, -1.0, 0.7, -0.0]
    );
    // No evidence, no risks: E = 0, R = 0; each violation costs w_i.
    let mut bare = card("b", 0.0, 0.0, 1.0, 0, 1.0);
    bare.evidence.clear();
    bare.risks.clear();
    bare.invariant_violations.push(InvariantViolation {
        invariant_id: "INV-1".into(),
        description: "d".into(),
        justification: "j".into(),
        requires_approval: true,
    });
    let s = rules::score(&bare, &Weights::default());
    assert_eq!((s.e, s.r, s.i, s.total), (0.0, 0.0, 1, 3.0 + 1.0 - 10.0));
    // R is the worst risk: critical 1.0, high 0.7, medium 0.4, low 0.1, × residual.
    for (sev, w) in [
        (Severity::Critical, 1.0),
        (Severity::High, 0.7),
        (Severity::Medium, 0.4),
        (Severity::Low, 0.1),
    ] {
        let mut c = card("c", 0.5, 0.5, 0.5, 0, 0.5);
        c.risks[0].severity = sev;
        assert!((rules::risk(&c) - w * 0.5).abs() < 1e-12, "{sev:?}");
    }
}

#[test]
fn gates_in_order_with_their_edges_wc_3() {
    let p = WcParams::default();
    let crit = |residual: f64, mitigation: &str| {
        let mut c = card("c", 0.9, 0.1, 0.9, 10, 0.9);
        c.risks.push(Risk {
            severity: Severity::Critical,
            description: "data loss".into(),
            mitigation: mitigation.into(),
            residual_risk: residual,
        });
        c
    };
    let irreversible = |v: f64| card("c", 0.9, 0.1, v, 10, 0.9);
    let violation = |approvable: bool| {
        let mut c = card("c", 0.9, 0.1, 0.9, 10, 0.9);
        c.invariant_violations.push(InvariantViolation {
            invariant_id: "INV-7".into(),
            description: "d".into(),
            justification: "j".into(),
            requires_approval: approvable,
        });
        c
    };
    let cases: Vec<(&str, PositionCard, Option<bool>, GateVerdict)> = vec![
        (
            "clean",
            card("c", 0.9, 0.1, 0.9, 10, 0.9),
            Some(true),
            GateVerdict::Pass,
        ),
        (
            "verifier veto",
            card("c", 0.9, 0.1, 0.9, 10, 0.9),
            Some(false),
            GateVerdict::Reject,
        ),
        (
            "no receipt",
            card("c", 0.9, 0.1, 0.9, 10, 0.9),
            None,
            GateVerdict::Reject,
        ),
        (
            "approvable violation",
            violation(true),
            Some(true),
            GateVerdict::Human,
        ),
        (
            "hard violation",
            violation(false),
            Some(true),
            GateVerdict::Reject,
        ),
        (
            "critical residual exactly 0.3 passes",
            crit(0.3, ""),
            Some(true),
            GateVerdict::Pass,
        ),
        (
            "critical residual 0.31 unmitigated",
            crit(0.31, ""),
            Some(true),
            GateVerdict::Reject,
        ),
        (
            "critical residual 0.31 mitigated",
            crit(0.31, "backups"),
            Some(true),
            GateVerdict::Human,
        ),
        (
            "reversibility exactly 0.3 passes",
            irreversible(0.3),
            Some(true),
            GateVerdict::Pass,
        ),
        (
            "reversibility 0.29",
            irreversible(0.29),
            Some(true),
            GateVerdict::Human,
        ),
        // The first gate that does not pass decides: a veto before an irreversibility.
        ("order", irreversible(0.1), Some(false), GateVerdict::Reject),
    ];
    for (name, c, approved, want) in cases {
        let (checks, verdict) = rules::gates(&c, approved, &p);
        assert_eq!(checks.len(), 4, "{name}: every gate shown");
        assert_eq!(verdict, want, "{name}: {checks:?}");
    }
}

fn standing(id: &str, s: f64) -> Standing {
    Standing {
        position: id.into(),
        score: s,
        gate: GateVerdict::Pass,
    }
}

#[test]
fn convergence_edges_wc_4() {
    let p = WcParams::default();
    let cases: Vec<(&str, Vec<Standing>, u32, Step)> = vec![
        (
            "S 6.01 accepts",
            vec![standing("a", 6.01), standing("b", 1.0)],
            0,
            Step::Accept,
        ),
        (
            "S exactly 6.0 does not",
            vec![standing("a", 6.0), standing("b", 1.0)],
            0,
            Step::Reflexion,
        ),
        (
            "gap 1.99 → panel",
            vec![standing("a", 5.0), standing("b", 3.01)],
            0,
            Step::Panel,
        ),
        (
            "gap exactly 2.0 → reflexion",
            vec![standing("a", 5.0), standing("b", 3.0)],
            0,
            Step::Reflexion,
        ),
        (
            "reflexions exhausted → panel",
            vec![standing("a", 5.0), standing("b", 1.0)],
            3,
            Step::Panel,
        ),
        (
            "a single candidate reflects",
            vec![standing("a", 5.0)],
            0,
            Step::Reflexion,
        ),
        (
            "only human-gated → human",
            vec![Standing {
                gate: GateVerdict::Human,
                ..standing("a", 9.0)
            }],
            0,
            Step::Human,
        ),
        (
            "rejected → reflexion while allowed",
            vec![Standing {
                gate: GateVerdict::Reject,
                ..standing("a", 9.0)
            }],
            1,
            Step::Reflexion,
        ),
        (
            "rejected, exhausted → human",
            vec![Standing {
                gate: GateVerdict::Reject,
                ..standing("a", 9.0)
            }],
            3,
            Step::Human,
        ),
    ];
    for (name, standings, done, want) in cases {
        let (_, step, reason) = rules::converge(&standings, done, &p);
        assert_eq!(step, want, "{name}: {reason}");
    }
}

fn eval(scores: &[(&str, f64)], conf: f64) -> PanelEvaluation {
    PanelEvaluation {
        scores: scores
            .iter()
            .map(|(p, s)| PositionScore {
                position: (*p).into(),
                score: *s,
                rationale: "r".into(),
            })
            .collect(),
        recommendation: scores[0].0.into(),
        concerns: vec![],
        confidence: conf,
    }
}

#[test]
fn consensus_formula_wc_5() {
    // C = Σ w·s·conf / Σ w·conf: (2·0.9·1 + 1·0.3·0.5) / (2·1 + 1·0.5) = 1.95 / 2.5 = 0.78
    let (e1, e2) = (eval(&[("a", 0.9)], 1.0), eval(&[("a", 0.3)], 0.5));
    let c = rules::consensus(&[(2.0, &e1), (1.0, &e2)], &["a".into()]);
    assert!((c[0].score - 0.78).abs() < 1e-12);
    // A seat with confidence 0 counts for nothing; no seat → 0.
    let z = eval(&[("a", 0.0)], 0.0);
    assert!(
        (rules::consensus(&[(2.0, &e1), (9.0, &z)], &["a".into()])[0].score - 0.9).abs() < 1e-12
    );
    assert_eq!(rules::consensus(&[], &["a".into()])[0].score, 0.0);
    assert!((default_panel().iter().map(|s| s.weight).sum::<f64>() - 12.7).abs() < 1e-9);
}

#[test]
fn outcome_order_and_edges_wc_6() {
    let p = WcParams::default();
    let r = |a: f64, b: f64| {
        vec![
            Ranked {
                position: "a".into(),
                score: a,
            },
            Ranked {
                position: "b".into(),
                score: b,
            },
        ]
    };
    let cases: Vec<(&str, Vec<Ranked>, PanelVerdict)> = vec![
        (
            "exactly 0.70 → consensus",
            r(0.70, 0.69),
            PanelVerdict::Consensus("a".into()),
        ),
        ("0.49 → escalate", r(0.49, 0.1), PanelVerdict::Escalate),
        (
            "exactly 0.50 is not escalated",
            r(0.50, 0.1),
            PanelVerdict::Fallback("safe".into()),
        ),
        (
            "0.59 → fallback",
            r(0.59, 0.58),
            PanelVerdict::Fallback("safe".into()),
        ),
        (
            "exactly 0.60, gap 0.05 → hybrid",
            r(0.60, 0.55),
            PanelVerdict::Hybrid("a".into(), "b".into()),
        ),
        (
            "0.65, gap exactly 0.10 → fallback",
            r(0.65, 0.55),
            PanelVerdict::Fallback("safe".into()),
        ),
        (
            "0.69, gap 0.30 → fallback",
            r(0.69, 0.39),
            PanelVerdict::Fallback("safe".into()),
        ),
        (
            "a binary hair under 0.70 is 0.70",
            r(0.7 - 1e-12, 0.6),
            PanelVerdict::Consensus("a".into()),
        ),
        (
            "0.67 − 0.57 in binary is still a 0.10 gap",
            r(0.67, 0.57),
            PanelVerdict::Fallback("safe".into()),
        ),
    ];
    for (name, c, want) in cases {
        let (got, rule) = rules::panel_verdict(&c, "safe", &p);
        assert_eq!(got, want, "{name}: {rule}");
    }
}

#[test]
fn reflexion_triggers_and_memory_wc_7_wc_8() {
    let p = WcParams::default();
    let c = card("a", 0.6, 0.1, 0.9, 30, 0.8);
    assert!(
        rules::reflexion_triggers(&c, Some(true), Some(3.0), &[], 20.0, &p).is_empty(),
        "3.0, 0.6 and 30 ≤ 40 are on the edge"
    );
    let fired = rules::reflexion_triggers(
        &card("a", 0.59, 0.1, 0.9, 41, 0.8),
        Some(false),
        Some(2.9),
        &[0.9, 0.3],
        20.0,
        &p,
    );
    assert_eq!(fired.len(), 5, "{fired:?}");
    let (yes, notes) = rules::memory_write(&card("a", 0.9, 0.1, 0.9, 10, 0.9), Some(true), 9.0, &p);
    assert!(yes, "{notes:?}");
    let (no, _) = rules::memory_write(&card("a", 0.9, 0.1, 0.9, 10, 0.9), None, 9.0, &p);
    assert!(!no, "no verifier receipt");
    let (no, _) = rules::memory_write(&card("a", 0.9, 0.1, 0.9, 10, 0.9), Some(true), 6.0, &p);
    assert!(!no, "S not above the threshold");
}

#[test]
fn cards_are_validated_field_by_field_wc_1() {
    let good = json!({"agent": "a", "claims": ["c"], "plan": [{"action": "x", "rationale": "y"}],
        "evidence": [{"type": "test", "pointer": "p", "quality": 0.5}],
        "risks": [{"severity": "low", "description": "d", "mitigation": "m", "residual_risk": 0.2}],
        "confidence": 0.5, "cost": 10, "reversibility": 0.5, "invariant_violations": []});
    let mut b = good.clone();
    b["agent"] = json!("b");
    assert_eq!(parse_cards(&json!([good, b])).map(|c| c.len()), Ok(2));
    let bad: Vec<(&str, serde_json::Value, &str)> = vec![
        (
            "/1/risks/0/residual_risk",
            json!(1.5),
            "cards[1].risks[0].residual_risk: must be a number from 0 to 1, got 1.5",
        ),
        (
            "/0/evidence/0/type",
            json!("rumour"),
            "cards[0].evidence[0].type: must be one of",
        ),
        (
            "/0/evidence/0/quality",
            json!("high"),
            "cards[0].evidence[0].quality",
        ),
        (
            "/0/risks/0/severity",
            json!("huge"),
            "cards[0].risks[0].severity",
        ),
        ("/0/confidence", json!(-0.1), "cards[0].confidence"),
        ("/0/cost", json!(1.5), "cards[0].cost"),
        ("/0/cost", json!(-3), "cards[0].cost"),
        ("/0/reversibility", json!(null), "cards[0].reversibility"),
        (
            "/1/agent",
            json!("a"),
            "cards[1].agent: \"a\" appears twice",
        ),
        ("/0/agent", json!("verifier"), "reserved"),
        ("/0/agent", json!("a b"), "cards[0].agent"),
        ("/0/claims", json!([]), "cards[0].claims"),
        (
            "/0/plan",
            json!([{"action": "x"}]),
            "cards[0].plan[0].rationale: missing",
        ),
        ("/0/claims", json!(["a\u{0}b"]), "control character"),
        (
            "/0/invariant_violations",
            json!([{"invariant_id": "I", "description": "d", "justification": "j", "requires_approval": "yes"}]),
            "requires_approval",
        ),
    ];
    for (pointer, value, want) in bad {
        let mut cards = json!([good.clone(), {"agent": "b", "claims": ["c"], "plan": [{"action": "x", "rationale": "y"}], "evidence": [], "risks": [{"severity": "low", "description": "d", "mitigation": "m", "residual_risk": 0.2}], "confidence": 0.5, "cost": 10, "reversibility": 0.5}]);
        *cards.pointer_mut(pointer).expect(pointer) = value;
        let err = parse_cards(&cards).expect_err(pointer);
        assert!(err.contains(want), "{pointer}: {err}");
    }
    let mut extra = good.clone();
    extra["colour"] = json!("red");
    assert!(parse_cards(&json!([extra, good]))
        .expect_err("unknown")
        .contains("cards[0].colour: unknown field"));
    assert!(parse_cards(&json!([good]))
        .expect_err("one")
        .contains("2 to 8"));
    assert!(parse_params(&json!({"hybrid_gap": -2}))
        .expect_err("p")
        .contains("config.hybrid_gap"));
    assert!(parse_params(&json!({"panel": {"oracle": 2}}))
        .expect_err("p")
        .contains("config.panel.oracle"));
    assert!(parse_params(&json!({"escalate_threshold": 0.8}))
        .expect_err("p")
        .contains("escalate"));
    assert_eq!(
        parse_params(&json!({"w_e": 5, "panel": {"verifier": 3}}))
            .map(|p| (p.weights.w_e, p.panel[3].weight)),
        Ok((5.0, 3.0))
    );
}

/// A scripted world: each author writes the given card; the verifier approves per `approve`;
/// the skeptic scores 5; each panel seat scores positions from `panel`.
struct Script {
    cards: Vec<PositionCard>,
    approve: fn(&PositionCard) -> bool,
    panel: fn(&str, usize) -> f64,
    /// Revisions improve evidence quality by this much.
    improve: f64,
}

fn run(s: &Script, user: bool) -> (Vec<Request<WcTask>>, Vec<EventBody>, WcOutcome) {
    let authors = s
        .cards
        .iter()
        .map(|c| crate::AgentSpec::new(c.agent.clone(), crate::Role::Author))
        .collect();
    let user_cards = if user { s.cards.clone() } else { vec![] };
    let mut d =
        WcDebate::new("Pick a store", authors, user_cards, WcParams::default(), 1).expect("debate");
    let (mut reqs, mut events) = (vec![], vec![]);
    loop {
        while let Some(e) = d.poll_event() {
            events.push(EventBody::from(e));
        }
        let Some(req) = d.poll_request() else { break };
        let reply = answer(s, &req);
        d.handle_reply(req.id, reply).expect("reply");
        reqs.push(req);
    }
    let out = d.outcome().cloned().expect("finished");
    (reqs, events, out)
}

/// The scripted world's answer to one request (each panel seat scores by its place).
fn answer(s: &Script, req: &Request<WcTask>) -> WcReply {
    match &req.task {
        WcTask::WriteCard { .. } => WcReply::Card(
            s.cards
                .iter()
                .find(|c| c.agent == req.agent)
                .cloned()
                .expect("card"),
        ),
        WcTask::ReviseCard { card, .. } => {
            let mut c = card.clone();
            for e in &mut c.evidence {
                e.quality = (e.quality + s.improve).min(1.0);
            }
            WcReply::Card(c)
        }
        WcTask::VerifyCard { card, .. } => WcReply::Verification(Verification {
            approve: (s.approve)(card),
            notes: "checked".into(),
        }),
        WcTask::Critique { .. } => WcReply::Critique(Critique {
            score: 5.0,
            concerns: vec!["thin evidence".into()],
        }),
        WcTask::Evaluate { positions, .. } => {
            let seat = WcParams::default()
                .panel
                .iter()
                .position(|p| p.role.as_str() == req.agent)
                .expect("a seat");
            WcReply::Evaluation(PanelEvaluation {
                scores: positions
                    .iter()
                    .map(|(id, _)| PositionScore {
                        position: id.clone(),
                        score: (s.panel)(id, seat + 1),
                        rationale: "r".into(),
                    })
                    .collect(),
                recommendation: positions[0].0.clone(),
                concerns: vec![],
                confidence: 0.9,
            })
        }
    }
}

fn two(a: PositionCard, b: PositionCard) -> Vec<PositionCard> {
    vec![a, b]
}

#[allow(clippy::too_many_lines)] // a test table
#[test]
fn every_outcome_is_reachable_and_recomputed_wc_4_wc_6() {
    use WcOutcomeKind::*;
    let yes: fn(&PositionCard) -> bool = |_| true;
    let cases: Vec<(&str, Script, WcOutcomeKind, Option<&str>)> = vec![
        (
            "strong card accepted",
            Script {
                cards: two(
                    card("a", 0.9, 0.1, 0.9, 10, 0.9),
                    card("b", 0.2, 0.9, 0.5, 90, 0.4),
                ),
                approve: yes,
                panel: |_, _| 0.5,
                improve: 0.0,
            },
            Accepted,
            Some("a"),
        ),
        (
            "close → panel agrees",
            Script {
                cards: two(
                    card("a", 0.5, 0.3, 0.5, 40, 0.6),
                    card("b", 0.45, 0.3, 0.5, 40, 0.6),
                ),
                approve: yes,
                panel: |p, _| if p == "a" { 0.9 } else { 0.4 },
                improve: 0.0,
            },
            ConsensusReached,
            Some("a"),
        ),
        (
            "close → near tie → hybrid",
            Script {
                cards: two(
                    card("a", 0.5, 0.3, 0.5, 40, 0.6),
                    card("b", 0.45, 0.3, 0.5, 40, 0.6),
                ),
                approve: yes,
                panel: |p, _| match p {
                    "a" => 0.65,
                    "b" => 0.62,
                    _ => 0.8,
                },
                improve: 0.0,
            },
            HybridSynthesized,
            Some("hybrid"),
        ),
        (
            "close → weak → safe fallback",
            Script {
                cards: two(
                    card("a", 0.5, 0.3, 0.5, 40, 0.6),
                    card("b", 0.45, 0.2, 0.5, 40, 0.6),
                ),
                approve: yes,
                panel: |p, _| if p == "a" { 0.55 } else { 0.3 },
                improve: 0.0,
            },
            SafeFallback,
            Some("b"),
        ),
        (
            "close → no agreement → human",
            Script {
                cards: two(
                    card("a", 0.5, 0.3, 0.5, 40, 0.6),
                    card("b", 0.45, 0.3, 0.5, 40, 0.6),
                ),
                approve: yes,
                panel: |_, _| 0.3,
                improve: 0.0,
            },
            EscalatedToHuman,
            None,
        ),
        (
            "irreversible only → human",
            Script {
                cards: two(
                    card("a", 0.9, 0.1, 0.1, 10, 0.9),
                    card("b", 0.9, 0.1, 0.2, 10, 0.9),
                ),
                approve: yes,
                panel: |_, _| 0.9,
                improve: 0.0,
            },
            EscalatedToHuman,
            None,
        ),
        (
            "reflexion lifts a card over 6",
            Script {
                cards: two(
                    card("a", 0.2, 0.1, 0.9, 10, 0.9),
                    card("b", 0.1, 0.9, 0.5, 90, 0.4),
                ),
                approve: yes,
                panel: |_, _| 0.9,
                improve: 0.3,
            },
            Accepted,
            Some("a"),
        ),
        (
            "reflexions exhausted → panel",
            Script {
                cards: two(
                    card("a", 0.2, 0.1, 0.9, 10, 0.9),
                    card("b", 0.1, 0.9, 0.5, 90, 0.4),
                ),
                approve: yes,
                panel: |p, _| if p == "a" { 0.8 } else { 0.2 },
                improve: 0.0,
            },
            ConsensusReached,
            Some("a"),
        ),
    ];
    for (name, script, want, chosen) in cases {
        for user in [false, true] {
            let (_, events, out) = run(&script, user);
            assert_eq!(
                out.outcome, want,
                "{name} (user cards {user}): {}",
                out.reasoning
            );
            assert_eq!(out.chosen.as_deref(), chosen, "{name}");
            let log = seal_all(events);
            assert_eq!(
                recompute(&entries(&log)),
                Ok(out.clone()),
                "{name}: the log recomputes"
            );
            // The judge's what-if with the same parameters reproduces the decision.
            let w = what_if(&entries(&log), &WcParams::default());
            if w.unknown.is_none() {
                assert_eq!(
                    w.outcome,
                    Some(out.outcome),
                    "{name}: what-if with the logged parameters"
                );
            }
        }
    }
}

#[test]
fn reflexion_is_bounded_and_logged_wc_4_wc_7() {
    let s = Script {
        cards: two(
            card("a", 0.2, 0.1, 0.9, 10, 0.9),
            card("b", 0.1, 0.9, 0.5, 90, 0.4),
        ),
        approve: |_| true,
        panel: |_, _| 0.9,
        improve: 0.0,
    };
    let (reqs, events, out) = run(&s, false);
    assert_eq!(out.reflexions, 3);
    let starts: Vec<&EventBody> = events
        .iter()
        .filter(|e| matches!(e, EventBody::Collapse(WcEvent::ReflexionStarted(_))))
        .collect();
    assert_eq!(starts.len(), 3);
    let EventBody::Collapse(WcEvent::ReflexionStarted(r)) = starts[0] else {
        unreachable!()
    };
    assert!(
        r.triggers
            .iter()
            .any(|t| t.contains("evidence quality 0.20 < 0.6")),
        "{:?}",
        r.triggers
    );
    assert_eq!(
        reqs.iter()
            .filter(|r| matches!(r.task, WcTask::Critique { .. }))
            .count(),
        3
    );
    assert_eq!(
        reqs.iter()
            .filter(|r| matches!(r.task, WcTask::Evaluate { .. }))
            .count(),
        7
    );
}

#[test]
fn failures_are_cautious_and_tampering_is_found() {
    let authors = vec![
        crate::AgentSpec::new("a", crate::Role::Author),
        crate::AgentSpec::new("b", crate::Role::Author),
    ];
    let mut d = WcDebate::new("q", authors, vec![], WcParams::default(), 1).expect("debate");
    let r1 = d.poll_request().expect("a writes");
    let r2 = d.poll_request().expect("b writes");
    // A wrong reply kind is refused and leaves the request open; an out-of-range card too.
    let wrong = WcReply::Critique(Critique {
        score: 1.0,
        concerns: vec![],
    });
    assert!(matches!(
        d.handle_reply(r1.id, wrong),
        Err(ProtocolError::WrongReply { .. })
    ));
    let mut bad = card("a", 1.7, 0.1, 0.9, 10, 0.9);
    bad.evidence[0].quality = 1.7;
    match d.handle_reply(r1.id, WcReply::Card(bad)) {
        Err(ProtocolError::InvalidCard(e)) => assert!(e.contains("evidence[0].quality"), "{e}"),
        other => panic!("{other:?}"),
    }
    d.handle_failure(r1.id, "garbage").expect("failure");
    d.handle_reply(r2.id, WcReply::Card(card("b", 0.9, 0.1, 0.9, 10, 0.9)))
        .expect("b");
    // Only b's card goes on; the verifier fails: no receipt, so it is rejected, never accepted.
    let v = d.poll_request().expect("verify b");
    assert!(matches!(v.task, WcTask::VerifyCard { .. }));
    assert!(d.poll_request().is_none(), "one card to verify");
    d.handle_failure(v.id, "timeout").expect("failure");
    let mut events = vec![];
    while let Some(e) = d.poll_event() {
        events.push(EventBody::from(e));
    }
    assert!(events
        .iter()
        .any(|e| matches!(e, EventBody::Collapse(WcEvent::CardVerified(v)) if !v.approve)));
    assert!(events.iter().any(
        |e| matches!(e, EventBody::Collapse(WcEvent::Converged(c)) if c.step == Step::Reflexion)
    ));

    // Tampering with a logged score or a panel score is found by the replay.
    let s = Script {
        cards: two(
            card("a", 0.5, 0.3, 0.5, 40, 0.6),
            card("b", 0.45, 0.3, 0.5, 40, 0.6),
        ),
        approve: |_| true,
        panel: |p, _| if p == "a" { 0.9 } else { 0.4 },
        improve: 0.0,
    };
    let (_, events, _) = run(&s, false);
    let mut forged = events.clone();
    for e in &mut forged {
        if let EventBody::Collapse(WcEvent::CardSubmitted(c)) = e {
            c.score.total += 1.0;
            break;
        }
    }
    assert!(recompute(&entries(&seal_all(forged)))
        .expect_err("forged score")
        .contains("card score"));
    let mut forged = events;
    for e in &mut forged {
        if let EventBody::Collapse(WcEvent::PanelEvaluated(p)) = e {
            p.evaluation.scores[0].score = 0.0;
        }
    }
    let err = recompute(&entries(&seal_all(forged))).expect_err("forged panel");
    assert!(err.contains("panel consensus"), "{err}");
}

#[test]
fn wc_events_round_trip_as_collapse_outcomes() {
    let s = Script {
        cards: two(
            card("a", 0.5, 0.3, 0.5, 40, 0.6),
            card("b", 0.45, 0.3, 0.5, 40, 0.6),
        ),
        approve: |_| true,
        panel: |p, _| match p {
            "a" => 0.65,
            "b" => 0.62,
            _ => 0.8,
        },
        improve: 0.0,
    };
    let (_, events, _) = run(&s, true);
    for e in seal_all(events) {
        let back: crate::Event =
            serde_json::from_str(&serde_json::to_string(&e).expect("ser")).expect("de");
        assert_eq!(back, e);
        if let EventBody::Debate(DebateEvent::Decision(o)) = &back.body {
            assert!(matches!(o, Outcome::Collapse(_)));
        }
    }
}
