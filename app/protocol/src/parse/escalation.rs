//! ES replies: an agent's estimates, its answer to a challenge, and a challenger's verdict —
//! read with the same tolerance as the other replies (a fraction may come as a percentage), and
//! estimates entry by entry: the readable ones count, the others are left out.

use serde::Deserialize;
use serde_json::Value;

use super::field::{read, List, Object, Str};
use super::reply::{lines, Figure, Flag, Line, Text};
use super::R;
use crate::escalation::{ChallengeAnswer, EsReply, EsTask, Estimate, EvidenceVerdict};
use crate::request::{AgentReply, Task};

/// An assumption's value as written: in its own unit, or a fraction as a percentage.
type Amount = Figure<-1_000_000, 1_000_000>;

#[derive(Deserialize)]
struct EstimatesIn {
    /// Read entry by entry below, so one bad entry does not sink the others.
    estimates: List<Value>,
}

/// ES-1: one estimate. Which assumption it names decides how its value reads.
#[derive(Deserialize)]
struct EstimateIn {
    assumption: Str,
    value: Amount,
    confidence: Option<Figure<0, 100>>,
    evidence: Option<List<Line>>,
}

/// ES-3: the challenged agent's answer.
#[derive(Deserialize)]
struct AnswerIn {
    acknowledge: Flag,
    value: Amount,
    evidence: Option<List<Line>>,
}

/// ES-3: the challenger's verdict on the evidence.
#[derive(Deserialize)]
struct VerdictIn {
    accept: Flag,
    reason: Text,
}

/// The reply to an escalation task, from the reply's normalised object.
pub(super) fn reply(task: &Task, v: &Value) -> R<AgentReply> {
    Ok(match task {
        Task::Escalation(EsTask::Estimate { assumptions, .. }) => {
            let EstimatesIn { estimates } = read(v, "")?;
            // An entry that cannot be read is left out, and so is a second value for the
            // same assumption; a reply with no readable entry is a failure naming the first.
            let mut good: Vec<Estimate> = Vec::new();
            let mut first_error = None;
            for (i, entry) in estimates.0.iter().enumerate() {
                match estimate(entry, &format!("estimates[{i}]"), assumptions) {
                    Ok(e) if !good.iter().any(|g| g.assumption == e.assumption) => good.push(e),
                    Ok(_) => {}
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            match (good.is_empty(), first_error) {
                (true, Some(e)) => return Err(e),
                (true, None) => return Err("estimates: must list at least one value".into()),
                _ => AgentReply::Escalation(EsReply::Estimates(good)),
            }
        }
        Task::Escalation(EsTask::AnswerChallenge { challenge, .. }) => {
            let a: AnswerIn = read(v, "")?;
            AgentReply::Escalation(EsReply::ChallengeAnswer(ChallengeAnswer {
                acknowledge: a.acknowledge.0,
                value: assumption_value(&a.value, &challenge.assumption)
                    .map_err(|e| format!("value: {e}"))?,
                evidence: a.evidence.map(lines).unwrap_or_default(),
            }))
        }
        Task::Escalation(EsTask::WeighEvidence { .. }) => {
            let w: VerdictIn = read(v, "")?;
            AgentReply::Escalation(EsReply::Verdict(EvidenceVerdict {
                accept: w.accept.0,
                reason: w.reason.0,
            }))
        }
        _ => return Err("not an escalation task".into()),
    })
}

/// ES-1: one entry of `estimates`, under `path`: the assumption must be one asked for.
fn estimate(entry: &Value, path: &str, assumptions: &[String]) -> R<Estimate> {
    let Object(e) = read::<Object<EstimateIn>>(entry, path)?;
    let key = e.assumption.0.trim().to_lowercase();
    if !assumptions.contains(&key) {
        return Err(format!(
            "{path}.assumption: must be one of {}, got {key:?}",
            assumptions.join(", ")
        ));
    }
    Ok(Estimate {
        value: assumption_value(&e.value, &key).map_err(|err| format!("{path}.value: {err}"))?,
        // Confidence is the agent's word on its value; unsaid, it is 0.5. A percentage
        // (`"80%"`, 80) is read as one.
        confidence: e.confidence.map_or(0.5, |c| {
            if c.value > 1.0 {
                c.value / 100.0
            } else {
                c.value
            }
        }),
        evidence: e.evidence.map(lines).unwrap_or_default(),
        assumption: key,
    })
}

/// ES: an assumption's value in its own unit. A fraction given as a percentage (`"28%"`,
/// or 28 where the range stops at 1) is read as one, so 28 means 0.28.
fn assumption_value(a: &Amount, assumption: &str) -> R<f64> {
    let spec = crate::escalation::assumption(assumption)
        .ok_or_else(|| format!("unknown assumption {assumption:?}"))?;
    let n = a.value;
    let n =
        if spec.unit == "fraction" && (a.percent || n.abs() > spec.max.abs().max(spec.min.abs())) {
            n / 100.0
        } else {
            n
        };
    spec.check(n)
}

#[cfg(test)]
mod tests {
    use crate::escalation::EsReply;
    use crate::escalation::EsTask;
    use std::sync::Arc;

    use super::super::parse_reply;
    use crate::escalation::{Challenge, Priority};
    use crate::request::{AgentReply, Task};

    fn estimate() -> Task {
        Task::Escalation(EsTask::Estimate {
            query: Arc::from("q"),
            assumptions: vec!["operating_margin".into(), "net_debt_to_ebitda".into()],
            company: Default::default(),
        })
    }

    /// ES-1 replies: fractions may come as percentages, ratios may not; unknown assumptions and
    /// out-of-range values are refused by path.
    #[test]
    fn estimates_are_read_tolerantly_and_checked_strictly_es_1() {
        #[allow(clippy::type_complexity)] // a test table: each row spelled out
        let table: [(&str, Result<(f64, f64), &str>); 6] = [
            (
                r#"{"estimates": [{"assumption": "operating_margin", "value": 0.28, "confidence": 0.8}]}"#,
                Ok((0.28, 0.8)),
            ),
            (
                r#"{"estimates": [{"assumption": "Operating_Margin", "value": "28%", "confidence": "80%"}]}"#,
                Ok((0.28, 0.8)),
            ),
            (
                r#"{"estimates": [{"assumption": "operating_margin", "value": 28, "confidence": 80}]}"#,
                Ok((0.28, 0.8)),
            ),
            (
                r#"{"estimates": [{"assumption": "net_debt_to_ebitda", "value": 2.5, "confidence": 0.5}]}"#,
                Ok((2.5, 0.5)),
            ),
            (
                r#"{"estimates": [{"assumption": "tax_rate", "value": 0.2, "confidence": 0.5}]}"#,
                Err("estimates[0].assumption: must be one of"),
            ),
            (
                r#"{"estimates": [{"assumption": "net_debt_to_ebitda", "value": 40, "confidence": 0.5}]}"#,
                Err("estimates[0].value: net_debt_to_ebitda: 40 is outside"),
            ),
        ];
        for (text, want) in table {
            let got = parse_reply(&estimate(), "financial", text);
            match (got, want) {
                (Ok(AgentReply::Escalation(EsReply::Estimates(list))), Ok((v, c))) => {
                    assert_eq!((list[0].value, list[0].confidence), (v, c), "{text}");
                }
                (Err(e), Err(needle)) => assert!(e.contains(needle), "{text}: {e}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn challenge_answers_and_verdicts_es_3() {
        let challenge = Challenge {
            id: "CH-001".into(),
            challenger: "valuation".into(),
            challenged: "financial".into(),
            disputed_finding: "margin".into(),
            assumption: "operating_margin".into(),
            challenged_value: 0.28,
            challenger_value: 0.25,
            basis: "peers".into(),
            required_evidence: vec![],
            escalation_timer: 900,
            priority: Priority::CriticalPath,
            provisional_resolution: None,
        };
        let answer = Task::Escalation(EsTask::AnswerChallenge {
            query: Arc::from("q"),
            challenge: challenge.clone(),
            own_value: 0.28,
            context: Vec::new(),
        });
        match parse_reply(
            &answer,
            "financial",
            r#"{"acknowledge": "true", "value": "27%", "evidence": ["10-K"]}"#,
        ) {
            Ok(AgentReply::Escalation(EsReply::ChallengeAnswer(a))) => {
                assert_eq!((a.acknowledge, a.value, a.evidence.len()), (true, 0.27, 1))
            }
            other => panic!("{other:?}"),
        }
        let weigh = Task::Escalation(EsTask::WeighEvidence {
            query: Arc::from("q"),
            challenge,
            value: 0.28,
            evidence: vec![],
        });
        let err = parse_reply(&weigh, "valuation", r#"{"accept": "maybe", "reason": "x"}"#)
            .expect_err("bad");
        assert!(err.contains("accept: must be true or false"), "{err}");
    }
}
