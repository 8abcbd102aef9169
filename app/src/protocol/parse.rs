//! Reading a model's (or a remote agent's) text reply into an [`AgentReply`] (AG-1, S4-8):
//! tolerant about the wrapping, strict about the content.
//!
//! Tolerant: the JSON object may sit inside a Markdown fence or between chatter, keys may differ
//! in case, verdicts may be lower case, numbers may come as `"85"` or `"85%"`, trailing commas are
//! forgiven, extra fields are ignored, and the first object that parses is taken.
//! Strict: every required field must be present with the right type and range; anything else is
//! an error naming the field, which the runner logs as a parse failure (S4: counted as `REFUSE`).

use serde_json::{Map, Value};

mod escalation;
mod extract;
pub use extract::extract_object;

use super::collapse::{self, Critique, PanelEvaluation, PositionScore, Verification};
use super::request::{AgentReply, Task};
use super::round_robin::{RrPosition, Stance};
use super::types::{Decision, Position};

/// The longest free text kept from a reply; longer text is cut with an ellipsis.
pub const MAX_REPLY_TEXT: usize = 2000;

type R<T> = Result<T, String>;

/// Parses `text` as the reply to `task` for agent `agent`. The error says what was wrong, e.g.
/// `confidence: must be a number from 0 to 100, got 150`.
pub fn parse_reply(task: &Task, agent: &str, text: &str) -> R<AgentReply> {
    let obj = extract_object(text)?;
    reply_from_object(task, agent, &obj)
}

/// Builds the reply to `task` from an already-decoded JSON object (the `http` kind's body).
pub fn reply_from_object(task: &Task, agent: &str, obj: &Map<String, Value>) -> R<AgentReply> {
    let o = Fields(obj);
    Ok(match task {
        Task::Analyse { .. } | Task::Revise { .. } => AgentReply::Position(Position {
            decision: o.decision("decision")?,
            confidence: o.percent("confidence")?,
            risk: o.percent("risk")?,
            reasoning: o.text("reasoning")?,
        }),
        Task::Challenge { .. } => AgentReply::Challenge {
            argues_for: o.argued_decision("argues_for")?,
            text: o.text("text")?,
        },
        Task::Turn { .. } => AgentReply::Stance(RrPosition {
            stance: o.stance("stance")?,
            confidence: o.percent("confidence")?,
            reasoning: o.text("reasoning")?,
        }),
        Task::WriteCard { .. } | Task::ReviseCard { .. } => {
            let mut card = obj.clone();
            card.insert("agent".into(), Value::String(agent.to_owned()));
            card.remove("timestamp");
            AgentReply::Card(collapse::parse_card(&Value::Object(card), "card")?)
        }
        Task::VerifyCard { .. } => AgentReply::Verification(Verification {
            approve: o.boolean("approve")?,
            notes: o.text("notes")?,
        }),
        Task::Critique { .. } => AgentReply::Critique(Critique {
            score: o.number("score", 0.0, 10.0)?,
            concerns: o.texts("concerns")?,
        }),
        Task::Evaluate { positions, .. } => {
            let ids: Vec<String> = positions.iter().map(|(id, _)| id.clone()).collect();
            let scores = o
                .list("scores")?
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let path = format!("scores[{i}]");
                    let s = s
                        .as_object()
                        .ok_or_else(|| format!("{path}: must be an object, got {}", kind(s)))?;
                    let f = Fields(s);
                    Ok(PositionScore {
                        position: f.text("position").map_err(|e| format!("{path}.{e}"))?,
                        score: f
                            .number("score", 0.0, 1.0)
                            .map_err(|e| format!("{path}.{e}"))?,
                        rationale: f.text("rationale").map_err(|e| format!("{path}.{e}"))?,
                    })
                })
                .collect::<R<Vec<_>>>()?;
            let evaluation = PanelEvaluation {
                scores,
                recommendation: o.text("recommendation")?,
                concerns: o.texts("concerns")?,
                confidence: o.number("confidence", 0.0, 1.0)?,
            };
            collapse::check_evaluation(&evaluation, &ids)?;
            if !ids.contains(&evaluation.recommendation) {
                return Err(format!(
                    "recommendation: must be one of {}, got {:?}",
                    ids.join(", "),
                    evaluation.recommendation
                ));
            }
            AgentReply::Evaluation(evaluation)
        }
        Task::Estimate { .. } | Task::AnswerChallenge { .. } | Task::WeighEvidence { .. } => {
            escalation::reply(task, &o)?
        }
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Field access with case-insensitive keys and errors that name the field.
struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn get(&self, key: &str) -> R<&Value> {
        self.0
            .get(key)
            .or_else(|| {
                self.0
                    .iter()
                    .find(|(k, _)| k.trim().eq_ignore_ascii_case(key))
                    .map(|(_, v)| v)
            })
            .filter(|v| !v.is_null())
            .ok_or_else(|| format!("{key}: missing"))
    }

    fn word(&self, key: &str) -> R<&str> {
        let v = self.get(key)?;
        v.as_str()
            .map(str::trim)
            .ok_or_else(|| format!("{key}: must be a string, got {}", kind(v)))
    }

    fn decision(&self, key: &str) -> R<Decision> {
        let w = self.word(key)?;
        Decision::parse(w)
            .ok_or_else(|| format!("{key}: must be one of ACT, WARN, REFUSE, VETO, got {w:?}"))
    }

    /// What a challenger argues its target should decide: a veto is the safety role's own call,
    /// not something another agent can argue for.
    fn argued_decision(&self, key: &str) -> R<Decision> {
        let w = self.word(key)?;
        Decision::parse(w)
            .filter(|d| *d != Decision::Veto)
            .ok_or_else(|| format!("{key}: must be one of ACT, WARN, REFUSE, got {w:?}"))
    }

    fn stance(&self, key: &str) -> R<Stance> {
        let w = self.word(key)?;
        Stance::parse(w).ok_or_else(|| format!("{key}: must be one of BUY, SELL, HOLD, got {w:?}"))
    }

    /// A number in `lo..=hi`; a string holding one (`"85"`, `"85%"`) is accepted.
    fn number(&self, key: &str, lo: f64, hi: f64) -> R<f64> {
        let v = self.get(key)?;
        let n = match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().trim_end_matches('%').trim().parse::<f64>().ok(),
            _ => None,
        };
        match n {
            Some(n) if n.is_finite() && (lo..=hi).contains(&n) => Ok(n),
            _ => Err(format!(
                "{key}: must be a number from {lo} to {hi}, got {v}"
            )),
        }
    }

    /// An integer percentage 0–100 (a fractional one is rounded).
    fn percent(&self, key: &str) -> R<u8> {
        self.number(key, 0.0, 100.0).map(|n| n.round() as u8)
    }

    fn boolean(&self, key: &str) -> R<bool> {
        let v = self.get(key)?;
        match v {
            Value::Bool(b) => Ok(*b),
            Value::String(s) if s.trim().eq_ignore_ascii_case("true") => Ok(true),
            Value::String(s) if s.trim().eq_ignore_ascii_case("false") => Ok(false),
            _ => Err(format!("{key}: must be true or false, got {v}")),
        }
    }

    fn text(&self, key: &str) -> R<String> {
        let s = self.word(key)?;
        if s.is_empty() {
            return Err(format!("{key}: must not be empty"));
        }
        if is_placeholder(s) {
            return Err(format!(
                "{key}: the reply repeats the form's placeholder {s:?}"
            ));
        }
        Ok(clip(s))
    }

    fn list(&self, key: &str) -> R<&Vec<Value>> {
        let v = self.get(key)?;
        v.as_array()
            .ok_or_else(|| format!("{key}: must be an array, got {}", kind(v)))
    }

    fn texts(&self, key: &str) -> R<Vec<String>> {
        self.list(key)?
            .iter()
            .enumerate()
            .map(|(i, v)| match v.as_str().map(str::trim) {
                Some(s) if !s.is_empty() => Ok(clip(s)),
                _ => Err(format!("{key}[{i}]: must be a non-empty string, got {v}")),
            })
            .collect()
    }
}

/// A small model may copy the reply form instead of filling it in: `"<one or two sentences>"`.
fn is_placeholder(s: &str) -> bool {
    let bare = s
        .trim_matches(|c: char| c == '<' || c == '>' || c == '.' || c.is_whitespace())
        .to_lowercase();
    (s.starts_with('<') && s.ends_with('>'))
        || [
            "one or two sentences",
            "your challenge, one or two sentences",
            "one sentence",
        ]
        .contains(&bare.as_str())
}

/// Control characters other than tabs and line breaks are dropped; over-long text is cut.
fn clip(s: &str) -> String {
    let clean: String = s
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect();
    if clean.chars().count() <= MAX_REPLY_TEXT {
        clean
    } else {
        let mut out: String = clean.chars().take(MAX_REPLY_TEXT - 1).collect();
        out.push('…');
        out
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::protocol::types::Role;

    fn analyse() -> Task {
        Task::Analyse {
            query: Arc::from("q"),
        }
    }

    fn position(text: &str) -> R<Position> {
        match parse_reply(&analyse(), "safety", text)? {
            AgentReply::Position(p) => Ok(p),
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
        let card = match parse_reply(&Task::WriteCard { query: q.clone() }, "author_1", card_json) {
            Ok(AgentReply::Card(c)) => c,
            other => panic!("WC-1 card: {other:?}"),
        };
        assert_eq!(card.agent, "author_1");
        let cases: Vec<(Task, &str, Result<&str, &str>)> = vec![
            (
                Task::Challenge {
                    query: q.clone(),
                    own: own.clone(),
                    target: "t".into(),
                    target_role: Role::Utility,
                    target_reasoning: "x".into(),
                },
                r#"{"argues_for":"warn","text":"You ignore the outage risk."}"#,
                Ok("challenge"),
            ),
            (
                Task::Challenge {
                    query: q.clone(),
                    own: own.clone(),
                    target: "t".into(),
                    target_role: Role::Safety,
                    target_reasoning: "x".into(),
                },
                r#"{"argues_for":"VETO","text":"Block it."}"#,
                Err(r#"argues_for: must be one of ACT, WARN, REFUSE, got "VETO""#),
            ),
            (
                Task::Turn {
                    query: q.clone(),
                    turn: 1,
                    own: None,
                    peers: vec![],
                },
                r#"{"stance":"buy","confidence":70,"reasoning":"cheap"}"#,
                Ok("stance"),
            ),
            (
                Task::Turn {
                    query: q.clone(),
                    turn: 1,
                    own: None,
                    peers: vec![],
                },
                r#"{"stance":"STRONG BUY","confidence":70,"reasoning":"cheap"}"#,
                Err(r#"stance: must be one of BUY, SELL, HOLD, got "STRONG BUY""#),
            ),
            (
                Task::VerifyCard {
                    query: q.clone(),
                    card: card.clone(),
                },
                r#"{"approve":"true","notes":"ok"}"#,
                Ok("verification"),
            ),
            (
                Task::Critique {
                    query: q.clone(),
                    card: card.clone(),
                },
                r#"{"score":11,"concerns":["x"]}"#,
                Err("score: must be a number from 0 to 10, got 11"),
            ),
            (
                Task::Evaluate {
                    query: q.clone(),
                    positions: vec![("p1".into(), card.clone()), ("p2".into(), card.clone())],
                },
                r#"{"scores":[{"position":"p1","score":0.8,"rationale":"a"},{"position":"p2","score":0.4,"rationale":"b"}],"recommendation":"p1","concerns":[],"confidence":0.9}"#,
                Ok("evaluation"),
            ),
            (
                Task::Evaluate {
                    query: q.clone(),
                    positions: vec![("p1".into(), card.clone()), ("p2".into(), card.clone())],
                },
                r#"{"scores":[{"position":"p1","score":0.8,"rationale":"a"}],"recommendation":"p1","concerns":[],"confidence":0.9}"#,
                Err("evaluation.scores: position p2 scored 0 times, expected once"),
            ),
            (
                Task::WriteCard { query: q.clone() },
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
}
