//! RC-1…RC-5, table-driven, with seed 003's examples.
#![allow(clippy::too_many_lines, clippy::type_complexity)] // tables and scenarios read top to bottom

mod linkage;
mod order;

use super::cluster::cluster;
use super::rules::reconcile;
use super::types::{Authority, Linkage, Observation, RcConfig, RcParams, Weighed};
use super::vectors::quantise;
use super::*;
use crate::chain::{recompute_decision, seal_all};
use crate::event::DebateEvent;
use crate::reconcile::{RcEvent, RcReply, RcTask};
use crate::shared::Machine;
use crate::{EventBody, Outcome};

pub(super) fn obs(id: &str, agent: &str, content: &str, ts: &str) -> Observation {
    Observation {
        id: id.into(),
        agent: agent.into(),
        content: content.into(),
        topic_hint: None,
        timestamp: ts.into(),
        source_authority: None,
        conflicts_with: vec![],
    }
}

fn weighed(content: &str, agent: &str, credibility: f64, authority: f64, ts: &str) -> Weighed {
    Weighed {
        id: format!("{agent}-{}", content.len()),
        agent: agent.into(),
        content: content.into(),
        timestamp: ts.into(),
        source: None,
        credibility,
        authority,
        weight: 0.8 * authority + 0.2 * credibility,
    }
}

pub(super) const MON: &str = "2026-01-05T09:00:00Z";
const MON_LATER: &str = "2026-01-05T10:00:00Z";
const WED: &str = "2026-01-07T09:00:00Z";

/// RC-4 with seed 003's examples (FR-003.2…FR-003.6): who wins, whether it is a conflict, and
/// whether a human must clarify.
#[test]
fn rc4_rules_on_seed_003_examples() {
    let p = RcParams::default();
    // (case, observations, belief contains, conflicts, needs clarification, confidence > )
    let cases: Vec<(&str, Vec<Weighed>, Option<&str>, bool, bool, f64)> = vec![
        (
            "FR-003.4 simple contradiction: the credible agent wins",
            vec![
                weighed("John has 6 cats", "agent_a", 0.9, 0.5, MON),
                weighed("John has 5 cats", "agent_b", 0.3, 0.5, MON_LATER),
            ],
            Some("6 cats"),
            true,
            false,
            0.7,
        ),
        (
            "FR-003.4 unresolvable: equal credibility asks a human",
            vec![
                weighed("The meeting is at 3pm in Room A", "agent_a", 0.5, 0.5, MON),
                weighed(
                    "The meeting is at 4pm in Room B",
                    "agent_b",
                    0.5,
                    0.5,
                    MON_LATER,
                ),
            ],
            None,
            true,
            true,
            0.0,
        ),
        (
            "FR-003.3 temporal: the newer observation supersedes, and says so",
            vec![
                weighed("The project is on track", "agent_a", 0.5, 0.5, MON),
                weighed("The project is delayed", "agent_b", 0.5, 0.5, WED),
            ],
            Some("delayed (as of 2026-01-07; it supersedes"),
            false,
            false,
            0.7,
        ),
        (
            "FR-003.5 partial overlap: the specific one wins, no conflict",
            vec![
                weighed("John has 3 cats and 2 dogs", "agent_a", 0.5, 0.5, MON),
                weighed(
                    "John has several pets including cats",
                    "agent_b",
                    0.5,
                    0.5,
                    MON_LATER,
                ),
            ],
            Some("3 cats and 2 dogs"),
            false,
            false,
            0.7,
        ),
        (
            "FR-003.5 partial overlap: working from home",
            vec![
                weighed("User sometimes works from home", "agent_b", 0.5, 0.5, MON),
                weighed(
                    "User works from home Mon-Wed",
                    "agent_a",
                    0.5,
                    0.5,
                    MON_LATER,
                ),
            ],
            Some("Mon-Wed"),
            false,
            false,
            0.7,
        ),
        (
            "FR-003.6 source authority outranks credibility",
            vec![
                weighed("Revenue up 10%", "agent_a", 0.5, 0.9, MON),
                weighed("Revenue might be up 15%", "agent_b", 0.8, 0.2, MON_LATER),
            ],
            Some("Revenue up 10%"),
            true,
            false,
            0.8,
        ),
        (
            "from_debates: different verdicts contradict; equal weight asks a human",
            vec![
                weighed("On “Ship it?”: ACT — low risk", "utility", 0.5, 0.5, MON),
                weighed(
                    "On “Ship it?”: REFUSE — no rollback plan",
                    "safety",
                    0.5,
                    0.5,
                    MON_LATER,
                ),
            ],
            None,
            true,
            true,
            0.0,
        ),
        (
            "agreement: the same content from two agents",
            vec![
                weighed("Room A is booked", "agent_a", 0.5, 0.5, MON),
                weighed("Room A is booked.", "agent_b", 0.5, 0.5, MON_LATER),
            ],
            Some("Room A is booked"),
            false,
            false,
            0.7,
        ),
    ];
    for (case, o, belief, conflicts, unclear, above) in cases {
        let r = reconcile("topic", &o, &p);
        match belief {
            Some(b) => assert!(
                r.consolidated_belief
                    .as_deref()
                    .is_some_and(|c| c.contains(b)),
                "{case}: {r:?}"
            ),
            None => assert_eq!(r.consolidated_belief, None, "{case}"),
        }
        assert_eq!(r.conflicts, conflicts, "{case}: {r:?}");
        assert_eq!(r.needs_clarification, unclear, "{case}: {r:?}");
        assert_eq!(r.clarification_question.is_some(), unclear, "{case}");
        assert!(r.confidence > above || unclear, "{case}: {}", r.confidence);
        assert!(!r.reasoning.is_empty(), "{case}");
    }
}

/// RC-1: embeddings group the observations; hints and `conflicts_with` link without them; a
/// topic of two agents saying different things is a potential conflict.
#[test]
fn rc1_clustering_by_similarity_hints_and_links() {
    let mut o = vec![
        obs("o1", "a", "meeting 3pm", MON),
        obs("o2", "b", "meeting 4pm", MON),
        obs("o3", "a", "revenue up", MON),
        obs("o4", "c", "cats", MON),
        obs("o5", "c", "dogs", MON),
    ];
    o[4].conflicts_with = vec!["o4".into()];
    let v = |x: &[f32]| quantise(x).expect("vector");
    let vectors = vec![
        v(&[1.0, 0.1, 0.0]),
        v(&[0.95, 0.2, 0.0]),
        v(&[0.0, 1.0, 0.0]),
        v(&[0.0, 0.0, 1.0]),
        v(&[0.0, -1.0, 0.3]),
    ];
    let topics = cluster(&o, &vectors, &centroid_at(0.7));
    let ids: Vec<Vec<&str>> = topics
        .iter()
        .map(|t| t.observation_ids.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(ids, vec![vec!["o1", "o2"], vec!["o3"], vec!["o4", "o5"]]);
    assert!(topics[0].potential_conflict);
    assert!(!topics[1].potential_conflict);
    assert!(
        topics[0].members[1].why.starts_with("similarity"),
        "{:?}",
        topics[0].members
    );
    assert!(
        topics[2].members[1].why.contains("conflicts_with"),
        "{:?}",
        topics[2].members
    );
    // A hint groups, and two different hints never share a topic, however similar.
    o[0].topic_hint = Some("Meeting time".into());
    o[1].topic_hint = Some("room".into());
    o[2].topic_hint = Some("meeting TIME".into());
    let topics = cluster(&o, &vectors, &centroid_at(0.7));
    assert_eq!(topics[0].observation_ids, vec!["o1", "o3"]);
    assert_eq!(topics[0].label, "Meeting time");
    assert_eq!(topics[1].observation_ids, vec!["o2"]);
}

/// RC-1…RC-5 end to end on the machine: one embedding request, one reconciler request per topic
/// of two or more (never per pair), beliefs with their weights, and a log that recomputes.
#[test]
fn the_machine_reconciles_and_the_log_recomputes() {
    let mut o = vec![
        obs("o1", "agent_a", "The meeting is at 3pm in Room A", MON),
        obs(
            "o2",
            "agent_b",
            "The meeting is at 4pm in Room B",
            MON_LATER,
        ),
        obs("o3", "agent_a", "Revenue up 10%", MON),
        obs("o4", "agent_b", "Revenue might be up 15%", MON_LATER),
        obs("o5", "agent_c", "It rained in Paris", MON),
    ];
    o[2].source_authority = Some(Authority {
        score: 0.9,
        source: Some("CEO earnings call".into()),
    });
    o[3].source_authority = Some(Authority {
        score: 0.2,
        source: Some("Reddit rumor".into()),
    });
    let config = RcConfig {
        params: RcParams::default(),
        observations: o,
        from_debates: vec![],
    };
    let mut d = RcDebate::new("What do we believe?", config, 7).expect("valid");
    let mut bodies = Vec::new();
    let mut asked = Vec::new();
    loop {
        let next = d.poll_request();
        while let Some(e) = d.poll_event() {
            bodies.push(EventBody::from(e));
        }
        let Some(req) = next else { break };
        asked.push(req.task.expects());
        let reply = match &req.task {
            RcTask::Embed { texts, .. } => RcReply::Embeddings {
                model: "test".into(),
                vectors: texts
                    .iter()
                    .map(|t| {
                        if t.contains("meeting") {
                            vec![1.0, 0.1, 0.0]
                        } else if t.contains("Revenue") {
                            vec![0.1, 1.0, 0.0]
                        } else {
                            vec![0.0, 0.0, 1.0]
                        }
                    })
                    .collect(),
            },
            RcTask::Reconcile {
                label,
                observations,
                params,
                ..
            } => RcReply::Reconciliation(reconcile(label, observations, params)),
        };
        d.handle_reply(req.id, reply).expect("accepted");
    }
    assert!(d.is_finished());
    assert_eq!(
        asked,
        vec!["embeddings", "reconciliation", "reconciliation"],
        "one call per topic of two"
    );
    let topics = bodies
        .iter()
        .filter(|b| matches!(b, EventBody::Reconcile(RcEvent::Topic(_))))
        .count();
    assert_eq!(topics, 3);
    let beliefs: Vec<&super::Belief> = bodies
        .iter()
        .filter_map(|b| match b {
            EventBody::Reconcile(RcEvent::Belief(b)) => Some(&**b),
            _ => None,
        })
        .collect();
    assert_eq!(beliefs.len(), 3);
    let revenue = beliefs
        .iter()
        .find(|b| b.observation_ids == ["o3", "o4"])
        .expect("revenue");
    assert_eq!(
        revenue.consolidated_belief.as_deref(),
        Some("Revenue up 10%")
    );
    assert!(revenue.weights[0].why.contains("CEO earnings call"));
    let meeting = beliefs
        .iter()
        .find(|b| b.observation_ids == ["o1", "o2"])
        .expect("meeting");
    assert!(meeting.needs_clarification);
    let single = beliefs
        .iter()
        .find(|b| b.observation_ids == ["o5"])
        .expect("rain");
    assert_eq!(single.by, SINGLE);
    let log = seal_all(bodies);
    let Some(EventBody::Debate(DebateEvent::Decision(Outcome::Reconcile(o)))) =
        log.last().map(|e| &e.body)
    else {
        panic!("a decision")
    };
    assert_eq!((o.topics, o.resolved, o.needs_clarification), (3, 2, 1));
    assert_eq!(o.verdict, RcVerdict::NeedsClarification);
    let again = recompute_decision(&log).expect("SV-2 recompute");
    assert_eq!(again.label(), "NEEDS_CLARIFICATION");
    // A tampered weight is found.
    let mut tampered = log.clone();
    for e in &mut tampered {
        if let EventBody::Reconcile(RcEvent::Belief(b)) = &mut e.body {
            b.weights[0].credibility = 0.99;
        }
    }
    let tampered = seal_all(tampered.into_iter().map(|e| e.body).collect());
    assert!(recompute_decision(&tampered).is_err());
    // So is a builtin reconciler's answer rewritten (and the chain sealed again).
    let mut rewritten = log.clone();
    for e in &mut rewritten {
        if let EventBody::Reconcile(RcEvent::Belief(b)) = &mut e.body {
            if b.by == super::RECONCILER {
                b.reasoning = "trust me".into();
            }
        }
    }
    let rewritten = seal_all(rewritten.into_iter().map(|e| e.body).collect());
    let err = recompute_decision(&rewritten).expect_err("a rewritten answer");
    assert!(
        err.to_string()
            .contains("differs from the one the rules give"),
        "{err}"
    );
}

/// S4-8 for RC: a failed embedder falls back to the lexical grouping (named), a failed topic
/// is unresolved with its reason, and a spent budget leaves the rest unresolved.
#[test]
fn failures_fall_back_and_say_so() {
    let o = vec![
        obs("o1", "a", "The meeting is at 3pm in Room A", MON),
        obs("o2", "b", "The meeting is at 4pm in Room B", MON_LATER),
    ];
    let config = RcConfig {
        params: RcParams {
            similarity_threshold: 0.3,
            linkage: Linkage::Centroid,
            ..RcParams::default()
        },
        observations: o,
        from_debates: vec![],
    };
    let mut d = RcDebate::new("q", config, 1).expect("valid");
    let mut bodies = Vec::new();
    while let Some(req) = d.poll_request() {
        d.handle_failure(req.id, "connection refused")
            .expect("known request");
        while let Some(e) = d.poll_event() {
            bodies.push(EventBody::from(e));
        }
    }
    while let Some(e) = d.poll_event() {
        bodies.push(EventBody::from(e));
    }
    let model = bodies.iter().find_map(|b| match b {
        EventBody::Reconcile(RcEvent::Embedded(e)) => Some(e.model.clone()),
        _ => None,
    });
    assert_eq!(model.as_deref(), Some(vectors::LEXICAL));
    let belief = bodies
        .iter()
        .find_map(|b| match b {
            EventBody::Reconcile(RcEvent::Belief(b)) => Some(b.clone()),
            _ => None,
        })
        .expect("a belief");
    assert!(belief.needs_clarification);
    assert_eq!(belief.unresolved.as_deref(), Some("connection refused"));
    assert!(matches!(
        bodies.last(),
        Some(EventBody::Debate(DebateEvent::Decision(_)))
    ));
    let log = seal_all(bodies);
    recompute_decision(&log).expect("the lexical fallback recomputes");
}

/// RC-1 input checks name the field.
#[test]
fn observations_are_checked_per_field() {
    let ok = serde_json::json!([
        {"id": "o1", "agent": "a", "content": "x", "timestamp": MON, "source_authority": "Reddit rumor"},
        {"id": "o2", "agent": "b", "content": "y", "timestamp": MON, "source_authority": 0.7, "conflicts_with": ["o1"]}
    ]);
    let parsed = parse_observations(&ok).expect("valid");
    assert_eq!(
        parsed[0].source_authority.as_ref().map(|a| a.score),
        Some(0.2)
    );
    let cases = [
        (serde_json::json!({}), "observations: must be a list"),
        (serde_json::json!([]), "at least one"),
        (
            serde_json::json!([{"id": "o1", "agent": "a", "content": "x", "timestamp": "monday"}]),
            "observations[0].timestamp",
        ),
        (
            serde_json::json!([{"id": "o1", "agent": "a", "content": "", "timestamp": MON}]),
            "observations[0].content: must not be empty",
        ),
        (
            serde_json::json!([{"id": "o1", "agent": "a", "content": "x", "timestamp": MON, "conflicts_with": ["o9"]}]),
            "observations[0].conflicts_with[0]",
        ),
        (
            serde_json::json!([{"id": "o1", "agent": "a", "content": "x", "timestamp": MON}, {"id": "o1", "agent": "b", "content": "y", "timestamp": MON}]),
            "observations[1].id",
        ),
        (
            serde_json::json!([{"id": "o1", "agent": "a", "content": "x", "timestamp": MON, "source_authority": 2.0}]),
            "source_authority",
        ),
        (
            serde_json::json!([{"id": "o1", "agent": "reconciler", "content": "x", "timestamp": MON}]),
            "protocol's own agent",
        ),
        (
            serde_json::json!([{"id": "o1", "agent": "a", "content": "x", "timestamp": MON, "colour": "red"}]),
            "colour",
        ),
        (
            serde_json::json!([{"id": "o 1", "agent": "a", "content": "x", "timestamp": MON}]),
            "observations[0].id",
        ),
    ];
    for (input, want) in cases {
        let e = parse_observations(&input).expect_err(want);
        assert!(e.contains(want), "{want}: {e}");
    }
    let many: Vec<serde_json::Value> = (0..501)
        .map(|i| serde_json::json!({"id": format!("o{i}"), "agent": "a", "content": "x", "timestamp": MON}))
        .collect();
    let e = parse_observations(&serde_json::Value::Array(many)).expect_err("too many");
    assert!(e.contains("500"), "{e}");
    let e = parse_params(&serde_json::json!({"similarity_threshold": 2})).expect_err("range");
    assert!(e.contains("config.similarity_threshold"), "{e}");
}

pub(super) fn centroid_at(similarity_threshold: f64) -> RcParams {
    RcParams {
        linkage: Linkage::Centroid,
        similarity_threshold,
        ..RcParams::default()
    }
}
