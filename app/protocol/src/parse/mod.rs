//! Reading a model's (or a remote agent's) text reply into an [`AgentReply`] (AG-1, S4-8):
//! tolerant about the wrapping, strict about the content.
//!
//! Tolerant: the JSON object may sit inside a Markdown fence or between chatter, keys may differ
//! in case, verdicts may be lower case, numbers may come as `"85"` or `"85%"`, trailing commas are
//! forgiven, extra fields are ignored, and the first object that parses is taken.
//! Strict: every required field must be present with the right type and range; anything else is
//! an error naming the field's path, which the runner logs as a parse failure (S4: `REFUSE`).
//! Each reply shape is a `serde` type ([`reply`], [`escalation`]) read through [`field::read`].

use serde_json::{Map, Value};

mod escalation;
mod extract;
pub(crate) mod field;
mod reply;
pub use extract::extract_object;

use super::collapse;
use super::request::{AgentReply, Task};
use crate::collapse::{WcReply, WcTask};
use crate::escalation::EsTask;
use crate::reconcile::{RcReply, RcTask};
use crate::round_robin::{RrReply, RrTask};
use crate::s4::{S4Reply, S4Task};
use field::read;
use reply::{ChallengeIn, CritiqueIn, EvaluationIn, PositionIn, StanceIn, VerificationIn};

/// The longest free text kept from a reply; longer text is cut with an ellipsis.
pub const MAX_REPLY_TEXT: usize = 2000;

type R<T> = Result<T, String>;

/// Parses `text` as the reply to `task` for agent `agent`. The error says what was wrong, e.g.
/// `confidence: must be a number from 0 to 100, got 150`.
pub fn parse_reply(task: &Task, agent: &str, text: &str) -> R<AgentReply> {
    // RC-3: the reconciler answers in XML, read by a real XML parser.
    if let Task::Reconcile(RcTask::Reconcile { .. }) = task {
        return super::reconcile::parse_reply(text)
            .map(|r| AgentReply::Reconcile(RcReply::Reconciliation(r)));
    }
    let obj = extract_object(text)?;
    reply_from_object(task, agent, &obj)
}

/// Builds the reply to `task` from an already-decoded JSON object (the `http` kind's body).
pub fn reply_from_object(task: &Task, agent: &str, obj: &Map<String, Value>) -> R<AgentReply> {
    let v = Value::Object(normalise(obj));
    Ok(match task {
        Task::S4(S4Task::Analyse { .. }) | Task::S4(S4Task::Revise { .. }) => {
            AgentReply::S4(S4Reply::Position(read::<PositionIn>(&v, "")?.into()))
        }
        Task::S4(S4Task::Challenge { .. }) => {
            let c: ChallengeIn = read(&v, "")?;
            AgentReply::S4(S4Reply::Challenge {
                argues_for: c.argues_for,
                text: c.text.0,
            })
        }
        Task::RoundRobin(RrTask::Turn { .. }) => {
            AgentReply::RoundRobin(RrReply::Stance(read::<StanceIn>(&v, "")?.into()))
        }
        Task::Collapse(WcTask::WriteCard { .. }) | Task::Collapse(WcTask::ReviseCard { .. }) => {
            // WC-1: a card is held to the rules of a user's card (exact keys, none unknown); the
            // author is who was asked, and the time is the log's to keep.
            let mut card = obj.clone();
            card.insert("agent".into(), Value::String(agent.to_owned()));
            card.remove("timestamp");
            AgentReply::Collapse(WcReply::Card(collapse::parse_card(
                &Value::Object(card),
                "card",
            )?))
        }
        Task::Collapse(WcTask::VerifyCard { .. }) => AgentReply::Collapse(WcReply::Verification(
            read::<VerificationIn>(&v, "")?.into(),
        )),
        Task::Collapse(WcTask::Critique { .. }) => {
            AgentReply::Collapse(WcReply::Critique(read::<CritiqueIn>(&v, "")?.into()))
        }
        Task::Collapse(WcTask::Evaluate { positions, .. }) => {
            let evaluation: collapse::PanelEvaluation = read::<EvaluationIn>(&v, "")?.into();
            // WC-5: every position scored once, and the pick one of them.
            let ids: Vec<String> = positions.iter().map(|(id, _)| id.clone()).collect();
            collapse::check_evaluation(&evaluation, &ids)?;
            if !ids.contains(&evaluation.recommendation) {
                return Err(format!(
                    "recommendation: must be one of {}, got {:?}",
                    ids.join(", "),
                    evaluation.recommendation
                ));
            }
            AgentReply::Collapse(WcReply::Evaluation(evaluation))
        }
        Task::Escalation(EsTask::Estimate { .. })
        | Task::Escalation(EsTask::AnswerChallenge { .. })
        | Task::Escalation(EsTask::WeighEvidence { .. }) => escalation::reply(task, &v)?,
        // The `http` kind answers RC in JSON with the XML reply's six fields.
        Task::Reconcile(RcTask::Reconcile { .. }) => {
            AgentReply::Reconcile(RcReply::Reconciliation(read(&v, "")?))
        }
        Task::Reconcile(RcTask::Embed { texts, .. }) => {
            let e: EmbeddingsIn = read(&v, "")?;
            if e.vectors.len() != texts.len() {
                return Err(format!(
                    "vectors: {} vectors for {} texts",
                    e.vectors.len(),
                    texts.len()
                ));
            }
            AgentReply::Reconcile(RcReply::Embeddings {
                model: e.model,
                vectors: e.vectors,
            })
        }
    })
}

/// Keys trimmed and lower-cased at every depth (an exact key wins over its variants), and null
/// fields dropped: a model's `"Risk": null` is a missing risk, not a type error.
fn normalise(o: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in o.iter().filter(|(_, v)| !v.is_null()) {
        let key = k.trim().to_ascii_lowercase();
        if key == *k {
            out.insert(key, normalise_within(v));
        } else {
            out.entry(key).or_insert_with(|| normalise_within(v));
        }
    }
    out
}

fn normalise_within(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(normalise(o)),
        Value::Array(a) => Value::Array(a.iter().map(normalise_within).collect()),
        v => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::types::{Decision, Position, Role};

    fn analyse() -> Task {
        Task::S4(S4Task::Analyse {
            query: Arc::from("q"),
        })
    }

    fn position(text: &str) -> R<Position> {
        match parse_reply(&analyse(), "safety", text)? {
            AgentReply::S4(S4Reply::Position(p)) => Ok(p),
            other => Err(format!("wrong kind {}", other.kind())),
        }
    }

    /// AG-1/S4-8: what real small models send, and what the parser makes of it.
    #[test]
    fn tolerant_wrapping_strict_values() {
        let ok = |d: Decision, c: u8, r: u8| {
            move |p: Position| {
                assert_eq!((p.decision, p.confidence, p.risk), (d, c, r));
            }
        };
        #[allow(clippy::type_complexity)] // a test table: each row spelled out
        let cases: &[(&str, &str, Result<(Decision, u8, u8), &str>)] = &[
            (
                "plain",
                r#"{"decision":"WARN","confidence":70,"risk":40,"reasoning":"r"}"#,
                Ok((Decision::Warn, 70, 40)),
            ),
            (
                "fenced with chatter",
                "Sure! Here is my answer:\n```json\n{\"decision\": \"act\", \"confidence\": 80, \"risk\": 10, \"reasoning\": \"fine\"}\n```\nHope it helps {",
                Ok((Decision::Act, 80, 10)),
            ),
            (
                "numbers as strings and percent",
                r#"{"decision":"REFUSE","confidence":"85%","risk":"60","reasoning":"r"}"#,
                Ok((Decision::Refuse, 85, 60)),
            ),
            (
                "trailing comma, capitalised keys, extra field",
                r#"{"Decision":"VETO","Confidence":90,"Risk":75,"Reasoning":"bad","mood":"x",}"#,
                Ok((Decision::Veto, 90, 75)),
            ),
            (
                "first of repeated objects",
                r#"{"decision":"ACT","confidence":60,"risk":5,"reasoning":"a"} {"decision":"REFUSE","confidence":60,"risk":5,"reasoning":"b"}"#,
                Ok((Decision::Act, 60, 5)),
            ),
            (
                "braces inside strings",
                r#"{"decision":"WARN","confidence":50,"risk":50,"reasoning":"use {curly} braces"}"#,
                Ok((Decision::Warn, 50, 50)),
            ),
            ("empty", "   ", Err("empty reply")),
            ("prose only", "I think we should act.", Err("no JSON object in the reply")),
            (
                "cut off at max_tokens",
                r#"{"decision":"ACT","confidence":80,"risk":10,"reasoning":"because the"#,
                Err("the reply's JSON object is cut off (no closing brace)"),
            ),
            (
                "template echoed",
                r#"{"decision": "ACT|WARN|REFUSE|VETO", "confidence": 50, "risk": 50, "reasoning": "x"}"#,
                Err(r#"decision: must be one of ACT, WARN, REFUSE, VETO, got "ACT|WARN|REFUSE|VETO""#),
            ),
            (
                "out of range",
                r#"{"decision":"ACT","confidence":150,"risk":10,"reasoning":"x"}"#,
                Err("confidence: must be a number from 0 to 100, got 150"),
            ),
            (
                "missing field",
                r#"{"decision":"ACT","confidence":50,"reasoning":"x"}"#,
                Err("risk: missing"),
            ),
            (
                "empty reasoning",
                r#"{"decision":"ACT","confidence":50,"risk":1,"reasoning":"  "}"#,
                Err("reasoning: must not be empty"),
            ),
            (
                "placeholder copied",
                r#"{"decision":"WARN","confidence":0,"risk":100,"reasoning":"One or two sentences"}"#,
                Err(r#"reasoning: the reply repeats the form's placeholder "One or two sentences""#),
            ),
            (
                "wrong type",
                r#"{"decision":1,"confidence":50,"risk":1,"reasoning":"x"}"#,
                Err("decision: must be a string, got a number"),
            ),
            (
                "single quotes",
                "{'decision': 'ACT', 'confidence': 50, 'risk': 1, 'reasoning': 'x'}",
                Err("the reply's JSON object does not parse: key must be a string at line 1 column 2"),
            ),
        ];
        for (name, text, want) in cases {
            match (position(text), want) {
                (Ok(p), Ok((d, c, r))) => ok(*d, *c, *r)(p),
                (Err(e), Err(w)) => assert_eq!(&e, w, "AG-1 {name}"),
                (got, want) => panic!("AG-1 {name}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// One table row per task kind: the reply shape each expects.
    #[allow(clippy::too_many_lines)] // a test table
    #[test]
    fn every_task_kind() {
        let q: Arc<str> = Arc::from("q");
        let own = Position {
            decision: Decision::Act,
            confidence: 50,
            risk: 10,
            reasoning: "r".into(),
        };
        let card_json = r#"{"claims":["c"],"plan":[{"action":"a","rationale":"r"}],"evidence":[],"risks":[],"confidence":0.7,"cost":5,"reversibility":0.9,"invariant_violations":[]}"#;
        let card = match parse_reply(
            &Task::Collapse(WcTask::WriteCard { query: q.clone() }),
            "author_1",
            card_json,
        ) {
            Ok(AgentReply::Collapse(WcReply::Card(c))) => c,
            other => panic!("WC-1 card: {other:?}"),
        };
        assert_eq!(card.agent, "author_1");
        let cases: Vec<(Task, &str, Result<&str, &str>)> = vec![
            (
                Task::S4(S4Task::Challenge {
                    query: q.clone(),
                    own: own.clone(),
                    target: "t".into(),
                    target_role: Role::Utility,
                    target_reasoning: "x".into(),
                }),
                r#"{"argues_for":"warn","text":"You ignore the outage risk."}"#,
                Ok("challenge"),
            ),
            (
                Task::S4(S4Task::Challenge {
                    query: q.clone(),
                    own: own.clone(),
                    target: "t".into(),
                    target_role: Role::Safety,
                    target_reasoning: "x".into(),
                }),
                r#"{"argues_for":"VETO","text":"Block it."}"#,
                Err(r#"argues_for: must be one of ACT, WARN, REFUSE, got "VETO""#),
            ),
            (
                Task::RoundRobin(RrTask::Turn {
                    query: q.clone(),
                    turn: 1,
                    own: None,
                    peers: vec![],
                }),
                r#"{"stance":"buy","confidence":70,"reasoning":"cheap"}"#,
                Ok("stance"),
            ),
            (
                Task::RoundRobin(RrTask::Turn {
                    query: q.clone(),
                    turn: 1,
                    own: None,
                    peers: vec![],
                }),
                r#"{"stance":"STRONG BUY","confidence":70,"reasoning":"cheap"}"#,
                Err(r#"stance: must be one of BUY, SELL, HOLD, got "STRONG BUY""#),
            ),
            (
                Task::Collapse(WcTask::VerifyCard {
                    query: q.clone(),
                    card: card.clone(),
                }),
                r#"{"approve":"true","notes":"ok"}"#,
                Ok("verification"),
            ),
            (
                Task::Collapse(WcTask::Critique {
                    query: q.clone(),
                    card: card.clone(),
                }),
                r#"{"score":11,"concerns":["x"]}"#,
                Err("score: must be a number from 0 to 10, got 11"),
            ),
            (
                Task::Collapse(WcTask::Evaluate {
                    query: q.clone(),
                    positions: vec![("p1".into(), card.clone()), ("p2".into(), card.clone())],
                }),
                r#"{"scores":[{"position":"p1","score":0.8,"rationale":"a"},{"position":"p2","score":0.4,"rationale":"b"}],"recommendation":"p1","concerns":[],"confidence":0.9}"#,
                Ok("evaluation"),
            ),
            (
                Task::Collapse(WcTask::Evaluate {
                    query: q.clone(),
                    positions: vec![("p1".into(), card.clone()), ("p2".into(), card.clone())],
                }),
                r#"{"scores":[{"position":"p1","score":0.8,"rationale":"a"}],"recommendation":"p1","concerns":[],"confidence":0.9}"#,
                Err("evaluation.scores: position p2 scored 0 times, expected once"),
            ),
            (
                Task::Collapse(WcTask::WriteCard { query: q.clone() }),
                r#"{"claims":["c"],"plan":[{"action":"a","rationale":"r"}],"evidence":[],"risks":[],"confidence":1.7,"cost":5,"reversibility":0.9,"invariant_violations":[]}"#,
                Err("card.confidence: must be a number from 0 to 1, got 1.7"),
            ),
        ];
        for (task, text, want) in cases {
            let got = parse_reply(&task, "a", text);
            match (got, want) {
                (Ok(r), Ok(kind)) => assert_eq!(r.kind(), kind, "{text}"),
                (Err(e), Err(w)) => assert_eq!(e, w, "{text}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// Paths run into nested objects and lists; keys are read in any case at every depth, a
    /// null field is a missing one; a card keeps its exact keys (WC-1).
    #[test]
    fn errors_name_the_path() {
        let q: Arc<str> = Arc::from("q");
        let card_json = r#"{"claims":["c"],"plan":[{"action":"a","rationale":"r"}],"evidence":[],"risks":[],"confidence":0.7,"cost":5,"reversibility":0.9}"#;
        let card = match parse_reply(
            &Task::Collapse(WcTask::WriteCard { query: q.clone() }),
            "author_1",
            card_json,
        ) {
            Ok(AgentReply::Collapse(WcReply::Card(c))) => c,
            other => panic!("WC-1 card: {other:?}"),
        };
        let cases: Vec<(Task, &str, &str)> = vec![
            (
                Task::Collapse(WcTask::Evaluate {
                    query: q.clone(),
                    positions: vec![("p1".into(), card.clone()), ("p2".into(), card.clone())],
                }),
                r#"{"Scores":[{"POSITION":"p1","Score":"0.8","rationale":"a"},{"position":"p2","score":2,"rationale":"b"}],"recommendation":"p1","concerns":[],"confidence":0.9}"#,
                "scores[1].score: must be a number from 0 to 1, got 2",
            ),
            (
                Task::Collapse(WcTask::Evaluate {
                    query: q.clone(),
                    positions: vec![("p1".into(), card.clone())],
                }),
                r#"{"scores":[{"position":"p1","score":0.5,"rationale":"a"}],"recommendation":"p1","concerns":["ok", 3],"confidence":0.9}"#,
                "concerns[1]: must be a non-empty string, got 3",
            ),
            (
                Task::Collapse(WcTask::Evaluate {
                    query: q.clone(),
                    positions: vec![("p1".into(), card.clone())],
                }),
                r#"{"scores":["p1"],"recommendation":"p1","concerns":[],"confidence":0.9}"#,
                "scores[0]: must be an object, got a string",
            ),
            (
                Task::Collapse(WcTask::Critique {
                    query: q.clone(),
                    card: card.clone(),
                }),
                r#"{"score":"7","concerns":"none"}"#,
                "concerns: must be an array, got a string",
            ),
            (
                Task::Collapse(WcTask::VerifyCard {
                    query: q.clone(),
                    card: card.clone(),
                }),
                r#"{"approve":true,"notes":null}"#,
                "notes: missing",
            ),
            (
                Task::Collapse(WcTask::WriteCard { query: q.clone() }),
                r#"{"Claims":["c"],"plan":[{"action":"a","rationale":"r"}],"evidence":[],"risks":[],"confidence":0.7,"cost":5,"reversibility":0.9}"#,
                "card.Claims: unknown field; expected one of agent, timestamp, claims, plan, evidence, risks, confidence, cost, reversibility, invariant_violations",
            ),
        ];
        for (task, text, want) in cases {
            assert_eq!(
                parse_reply(&task, "a", text),
                Err(want.to_owned()),
                "{text}"
            );
        }
    }
}

/// RC-1 from the `http` kind: `{"model": "…", "vectors": [[…], …]}`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct EmbeddingsIn {
    model: String,
    vectors: Vec<Vec<f32>>,
}
