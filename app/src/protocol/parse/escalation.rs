//! ES replies: an agent's estimates, its answer to a challenge, and a challenger's verdict —
//! read with the same tolerance as the other replies (a fraction may come as a percentage), and
//! estimates entry by entry: the readable ones count, the others are left out.

use serde_json::Value;

use super::{kind, Fields, R};
use crate::protocol::escalation::{ChallengeAnswer, Estimate, EvidenceVerdict};
use crate::protocol::request::{AgentReply, Task};

/// The reply to an escalation task.
pub(super) fn reply(task: &Task, o: &Fields<'_>) -> R<AgentReply> {
    Ok(match task {
        Task::Estimate { assumptions, .. } => {
            let list = o
                .list("estimates")?
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let path = format!("estimates[{i}]");
                    let e = e
                        .as_object()
                        .ok_or_else(|| format!("{path}: must be an object, got {}", kind(e)))?;
                    let f = Fields(e);
                    let key = f.word("assumption").map_err(|e| format!("{path}.{e}"))?;
                    let key = key.trim().to_lowercase();
                    if !assumptions.contains(&key) {
                        return Err(format!(
                            "{path}.assumption: must be one of {}, got {key:?}",
                            assumptions.join(", ")
                        ));
                    }
                    Ok(Estimate {
                        value: f
                            .assumption_value("value", &key)
                            .map_err(|e| format!("{path}.{e}"))?,
                        // Confidence is the agent's word on its value; unsaid, it is 0.5.
                        confidence: if f.get("confidence").is_ok() {
                            f.fraction("confidence")
                                .map_err(|e| format!("{path}.{e}"))?
                        } else {
                            0.5
                        },
                        evidence: f
                            .optional_texts("evidence")
                            .map_err(|e| format!("{path}.{e}"))?,
                        assumption: key,
                    })
                })
                .collect::<Vec<R<Estimate>>>();
            // An entry that cannot be read is left out, and so is a second value for the
            // same assumption; a reply with no readable entry is a failure naming the first.
            let mut good: Vec<Estimate> = Vec::new();
            let mut first_error = None;
            for entry in list {
                match entry {
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
                _ => AgentReply::Estimates(good),
            }
        }
        Task::AnswerChallenge { challenge, .. } => AgentReply::ChallengeAnswer(ChallengeAnswer {
            acknowledge: o.boolean("acknowledge")?,
            value: o.assumption_value("value", &challenge.assumption)?,
            evidence: o.optional_texts("evidence")?,
        }),
        Task::WeighEvidence { .. } => AgentReply::Verdict(EvidenceVerdict {
            accept: o.boolean("accept")?,
            reason: o.text("reason")?,
        }),
        _ => return Err("not an escalation task".into()),
    })
}

impl Fields<'_> {
    /// ES: an assumption's value in its own unit. A fraction given as a percentage (`"28%"`,
    /// or 28 where the range stops at 1) is read as one, so 28 means 0.28.
    fn assumption_value(&self, key: &str, assumption: &str) -> R<f64> {
        let spec = crate::protocol::escalation::assumption(assumption)
            .ok_or_else(|| format!("{key}: unknown assumption {assumption:?}"))?;
        let v = self.get(key)?;
        let percent = matches!(v, Value::String(s) if s.trim().ends_with('%'));
        let n = self.number(key, -1e6, 1e6)?;
        let n = if spec.unit == "fraction"
            && (percent || n.abs() > spec.max.abs().max(spec.min.abs()))
        {
            n / 100.0
        } else {
            n
        };
        spec.check(n).map_err(|e| format!("{key}: {e}"))
    }

    /// A confidence 0–1; a percentage (`"80%"`, 80) is read as one.
    fn fraction(&self, key: &str) -> R<f64> {
        let n = self.number(key, 0.0, 100.0)?;
        Ok(if n > 1.0 { n / 100.0 } else { n })
    }

    /// A list of texts that may be absent (then empty).
    fn optional_texts(&self, key: &str) -> R<Vec<String>> {
        if self.get(key).is_ok() {
            self.texts(key)
        } else {
            Ok(Vec::new())
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::parse_reply;
    use crate::protocol::escalation::{Challenge, Priority};
    use crate::protocol::request::{AgentReply, Task};

    fn estimate() -> Task {
        Task::Estimate {
            query: Arc::from("q"),
            assumptions: vec!["operating_margin".into(), "net_debt_to_ebitda".into()],
            company: Default::default(),
        }
    }

    /// ES-1 replies: fractions may come as percentages, ratios may not; unknown assumptions and
    /// out-of-range values are refused by path.
    #[test]
    fn estimates_are_read_tolerantly_and_checked_strictly_es_1() {
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
                (Ok(AgentReply::Estimates(list)), Ok((v, c))) => {
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
        let answer = Task::AnswerChallenge {
            query: Arc::from("q"),
            challenge: challenge.clone(),
            own_value: 0.28,
        };
        match parse_reply(
            &answer,
            "financial",
            r#"{"acknowledge": "true", "value": "27%", "evidence": ["10-K"]}"#,
        ) {
            Ok(AgentReply::ChallengeAnswer(a)) => {
                assert_eq!((a.acknowledge, a.value, a.evidence.len()), (true, 0.27, 1))
            }
            other => panic!("{other:?}"),
        }
        let weigh = Task::WeighEvidence {
            query: Arc::from("q"),
            challenge,
            value: 0.28,
            evidence: vec![],
        };
        let err = parse_reply(&weigh, "valuation", r#"{"accept": "maybe", "reason": "x"}"#)
            .expect_err("bad");
        assert!(err.contains("accept: must be true or false"), "{err}");
    }
}
