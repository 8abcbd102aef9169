//! A saved evaluation run (JSON), and its report: accuracy with a 95 % Wilson interval, calls and
//! tokens per method, and the debate's accuracy after each round — to see agents talked out of
//! right answers.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::grade::majority;
use crate::credibility::wilson;

/// What was run, and against what. A resumed run must have the same configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EvalConfig {
    /// `arithmetic` or `file:<name>`.
    pub task_set: String,
    /// The arithmetic generator's seed (0 for a file).
    pub seed: u64,
    pub items: usize,
    pub agents: u32,
    pub rounds: u32,
    /// Self-consistency: independent samples per item.
    pub samples: u32,
    pub model: String,
    /// The endpoint's host (never its credentials).
    pub endpoint: String,
    pub temperature: f32,
    pub max_tokens: u32,
}

impl EvalConfig {
    /// The first setting that differs from `other`, named.
    pub fn difference(&self, other: &EvalConfig) -> Option<String> {
        let a = serde_json::to_value(self).ok()?;
        let b = serde_json::to_value(other).ok()?;
        let (a, b) = (a.as_object()?, b.as_object()?);
        a.iter().find_map(|(k, v)| {
            (b.get(k) != Some(v)).then(|| {
                format!(
                    "{k}: the saved run has {}, this one {v}",
                    b.get(k).unwrap_or(&serde_json::Value::Null)
                )
            })
        })
    }
}

/// One model answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// What the grader read from the reply (`None`: nothing it could read).
    pub answer: Option<String>,
    pub correct: bool,
    pub tokens: u64,
    /// The call failed (the reply counts as no answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The reply's start, for reading transcripts.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub excerpt: String,
}

/// Everything asked about one task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ItemResult {
    pub id: String,
    pub question: String,
    pub answer: String,
    pub single: Sample,
    /// Self-consistency's independent samples.
    pub samples: Vec<Sample>,
    /// The debate: `debate[round][agent]`.
    pub debate: Vec<Vec<Sample>>,
}

/// A run as saved (and resumed): its configuration and every finished item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalRun {
    pub config: EvalConfig,
    pub started_at: String,
    pub updated_at: String,
    /// Wall time spent asking, over every session of the run.
    pub wall_ms: u64,
    pub items: Vec<ItemResult>,
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Cell {
    pub method: String,
    pub correct: u32,
    pub n: u32,
    pub accuracy: f64,
    /// The 95 % Wilson interval.
    pub low: f64,
    pub high: f64,
    pub calls: u64,
    pub tokens: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Report {
    /// One agent, self-consistency, debate.
    pub cells: Vec<Cell>,
    /// The debate's majority after each round.
    pub per_round: Vec<Cell>,
    /// Items the round-1 majority had right and the final majority wrong, and the reverse.
    pub talked_out: u32,
    pub talked_into: u32,
}

fn majority_right(samples: &[Sample]) -> bool {
    let answers: Vec<Option<String>> = samples.iter().map(|s| s.answer.clone()).collect();
    majority(&answers).is_some_and(|m| {
        samples
            .iter()
            .any(|s| s.correct && s.answer.as_deref() == Some(m.as_str()))
    })
}

fn cell(method: String, right: impl Iterator<Item = bool>, calls: u64, tokens: u64) -> Cell {
    let (mut correct, mut n) = (0u32, 0u32);
    for r in right {
        n += 1;
        correct += u32::from(r);
    }
    let accuracy = if n == 0 {
        0.0
    } else {
        f64::from(correct) / f64::from(n)
    };
    let (low, high) = wilson(accuracy, n, 1.96);
    Cell {
        method,
        correct,
        n,
        accuracy,
        low,
        high,
        calls,
        tokens,
    }
}

impl EvalRun {
    pub fn report(&self) -> Report {
        let c = &self.config;
        let items = &self.items;
        let sum = |f: &dyn Fn(&ItemResult) -> Vec<&Sample>| -> (u64, u64) {
            items
                .iter()
                .flat_map(f)
                .fold((0, 0), |(n, t), s| (n + 1, t + s.tokens))
        };
        let (single_calls, single_tokens) = sum(&|i| vec![&i.single]);
        let (sc_calls, sc_tokens) = sum(&|i| i.samples.iter().collect());
        let (d_calls, d_tokens) = sum(&|i| i.debate.iter().flatten().collect());
        let last = |i: &ItemResult| i.debate.last().cloned().unwrap_or_default();
        let cells = vec![
            cell(
                "one agent".into(),
                items.iter().map(|i| i.single.correct),
                single_calls,
                single_tokens,
            ),
            cell(
                format!("self-consistency ({} samples, majority)", c.samples),
                items.iter().map(|i| majority_right(&i.samples)),
                sc_calls,
                sc_tokens,
            ),
            cell(
                format!("debate ({} agents × {} rounds)", c.agents, c.rounds),
                items.iter().map(|i| majority_right(&last(i))),
                d_calls,
                d_tokens,
            ),
        ];
        let rounds = items.iter().map(|i| i.debate.len()).max().unwrap_or(0);
        let per_round = (0..rounds)
            .map(|r| {
                let round = |i: &ItemResult| i.debate.get(r).cloned().unwrap_or_default();
                let calls = items.iter().map(|i| round(i).len() as u64).sum();
                let tokens = items.iter().flat_map(&round).map(|s| s.tokens).sum();
                cell(
                    format!("debate, round {}", r + 1),
                    items.iter().map(|i| majority_right(&round(i))),
                    calls,
                    tokens,
                )
            })
            .collect();
        let first = |i: &ItemResult| i.debate.first().cloned().unwrap_or_default();
        let talked_out = items
            .iter()
            .filter(|i| majority_right(&first(i)) && !majority_right(&last(i)))
            .count() as u32;
        let talked_into = items
            .iter()
            .filter(|i| !majority_right(&first(i)) && majority_right(&last(i)))
            .count() as u32;
        Report {
            cells,
            per_round,
            talked_out,
            talked_into,
        }
    }
}

impl Report {
    /// The table `consilium eval` prints.
    pub fn table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{:<44} {:>9} {:>17} {:>7} {:>9}",
            "method", "accuracy", "95% interval", "calls", "tokens"
        );
        let row = |t: &mut String, c: &Cell| {
            let _ = writeln!(
                t,
                "{:<44} {:>8.1}% {:>7.1}% – {:>5.1}% {:>7} {:>9}   ({} of {})",
                c.method,
                c.accuracy * 100.0,
                c.low * 100.0,
                c.high * 100.0,
                c.calls,
                c.tokens,
                c.correct,
                c.n
            );
        };
        for c in &self.cells {
            row(&mut t, c);
        }
        if !self.per_round.is_empty() {
            let _ = writeln!(t);
            for c in &self.per_round {
                row(&mut t, c);
            }
            let _ = writeln!(
                t,
                "talked out of a right answer: {} item(s); talked into one: {}",
                self.talked_out, self.talked_into
            );
        }
        t
    }
}
