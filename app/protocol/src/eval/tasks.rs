//! The task sets: Du et al.'s arithmetic, generated from a seed, or your own JSONL file.

use serde::{Deserialize, Serialize};

use crate::seeded::SplitMix64;

/// One question with its reference answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// `1`, `2`, … in the set's order.
    pub id: String,
    pub question: String,
    pub answer: String,
    /// Graded as a number (the last number in the reply) rather than an exact text.
    pub numeric: bool,
}

/// The most tasks a file may hold.
pub const MAX_TASKS: usize = 10_000;

/// Du et al. (ICML 2024), arithmetic: six integers drawn uniformly from 0–30 into
/// `a+b*c+d-e*f`, asked as "What is the result of a+b*c+d-e*f?". The same seed gives the same
/// items.
pub fn arithmetic(seed: u64, n: usize) -> Vec<Task> {
    let mut rng = SplitMix64(seed);
    (1..=n)
        .map(|i| {
            let mut x = [0i64; 6];
            for v in &mut x {
                *v = rng.below(31) as i64;
            }
            let [a, b, c, d, e, f] = x;
            Task {
                id: i.to_string(),
                question: format!("What is the result of {a}+{b}*{c}+{d}-{e}*{f}?"),
                answer: (a + b * c + d - e * f).to_string(),
                numeric: true,
            }
        })
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    question: String,
    answer: serde_json::Value,
}

/// A JSONL task file: one `{"question": "…", "answer": 42}` per line (a number is graded
/// numerically, a string by exact match). Every line is checked; the first bad one is named.
pub fn parse_jsonl(text: &str) -> Result<Vec<Task>, String> {
    let mut tasks = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(raw).map_err(|e| format!("line {n}: {e}"))?;
        let question = line.question.trim();
        if question.is_empty() || question.chars().count() > 4000 {
            return Err(format!("line {n}: question must be 1–4000 characters"));
        }
        let (answer, numeric) = match &line.answer {
            serde_json::Value::Number(x) => (x.to_string(), true),
            serde_json::Value::String(s) if !s.trim().is_empty() && s.len() <= 200 => {
                (s.trim().to_owned(), false)
            }
            other => {
                return Err(format!(
                    "line {n}: answer must be a number or a non-empty string of at most 200 bytes, got {other}"
                ))
            }
        };
        tasks.push(Task {
            id: (tasks.len() + 1).to_string(),
            question: question.to_owned(),
            answer,
            numeric,
        });
        if tasks.len() > MAX_TASKS {
            return Err(format!("at most {MAX_TASKS} tasks"));
        }
    }
    if tasks.is_empty() {
        return Err("the file holds no tasks".into());
    }
    Ok(tasks)
}
