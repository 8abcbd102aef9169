//! The track record on the wire: agents and their credibility, predictions with
//! their outcomes, the outcome a judge records, and the import format
//! (`consilium track-record import FILE.jsonl`). Shared by the server, the CLI and the pages.

use serde::{Deserialize, Serialize};

use crate::protocol::credibility::identity::check_identity;
use crate::protocol::credibility::{Breakdown, ContextTags, Credibility};
use crate::protocol::time;

/// `GET /api/agents`: one row per agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AgentRow {
    pub identity: String,
    pub credibility: Credibility,
    /// Predictions recorded (with or without an outcome).
    pub predictions: u32,
    /// Some of its record is the bundled sample history.
    pub sample: bool,
}

/// `GET /api/agents/{identity}`: the row, CR-1's breakdown and the recent predictions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AgentDetail {
    pub identity: String,
    pub credibility: Credibility,
    pub breakdown: Breakdown,
    pub predictions: u32,
    pub sample: bool,
    /// When the credibility was computed (RFC 3339).
    pub as_of: String,
    /// Newest first, at most [`RECENT`].
    pub recent: Vec<PredictionRow>,
}

/// How many predictions an agent's page lists.
pub const RECENT: usize = 50;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PredictionRow {
    pub id: String,
    pub identity: String,
    pub debate_id: Option<String>,
    pub agent: String,
    pub held: String,
    pub confidence: f64,
    pub claim: Option<f64>,
    pub detail: Option<String>,
    pub made_at: String,
    pub tags: ContextTags,
    /// `debate`, `import` or `sample`.
    pub source: String,
    /// The latest outcome, if one was recorded.
    pub outcome: Option<OutcomeRow>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OutcomeRow {
    pub correct: bool,
    pub actual: Option<f64>,
    pub overridden: bool,
    /// Who or what recorded it: `judge:<name>`, `operator`, `import:<file>`, `sample`.
    pub recorded_by: String,
    pub recorded_at: String,
    pub note: Option<String>,
}

/// `POST /api/predictions/{id}/outcome`: exactly one of `correct`, `actual` or `ruling`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RecordOutcome {
    #[serde(default)]
    pub correct: Option<bool>,
    /// The actual value of a numeric claim; judged with [`within_tolerance`].
    #[serde(default)]
    pub actual: Option<f64>,
    /// A judge's ruling on the agent: `upheld` (right) or `overridden` (wrong, and counted in
    /// the override rate).
    #[serde(default)]
    pub ruling: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
}

/// An outcome ready to append.
#[derive(Clone, Debug, PartialEq)]
pub struct NewOutcome {
    pub correct: bool,
    pub actual: Option<f64>,
    pub overridden: bool,
    pub note: Option<String>,
}

pub const MAX_NOTE_CHARS: usize = 1000;

/// A numeric claim is right when the actual value is within 10 % of it, or within 0.01 of it
/// for claims near zero: `|actual − claim| ≤ max(0.10·|claim|, 0.01)`.
pub fn within_tolerance(claim: f64, actual: f64) -> bool {
    (actual - claim).abs() <= (0.10 * claim.abs()).max(0.01)
}

impl RecordOutcome {
    /// The outcome for a prediction with numeric claim `claim`, or what is wrong with the body.
    pub fn resolve(&self, claim: Option<f64>) -> Result<NewOutcome, String> {
        let note = match self.note.as_deref().map(str::trim) {
            Some(n) if n.chars().count() > MAX_NOTE_CHARS => {
                return Err(format!(
                    "note: {} characters; the limit is {MAX_NOTE_CHARS}",
                    n.chars().count()
                ))
            }
            Some(n) if !n.is_empty() => Some(n.to_owned()),
            _ => None,
        };
        let given = [
            self.correct.is_some(),
            self.actual.is_some(),
            self.ruling.is_some(),
        ];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err(
                "give exactly one of: \"correct\" (true or false), \"actual\" (a number, for a \
                 numeric claim) or \"ruling\" (\"upheld\" or \"overridden\")"
                    .into(),
            );
        }
        let (correct, actual, overridden) = if let Some(c) = self.correct {
            (c, None, false)
        } else if let Some(a) = self.actual {
            if !a.is_finite() {
                return Err("actual: must be a finite number".into());
            }
            let Some(claim) = claim else {
                return Err(
                    "actual: this prediction makes no numeric claim; send {\"correct\": true} \
                     or {\"correct\": false}"
                        .into(),
                );
            };
            (within_tolerance(claim, a), Some(a), false)
        } else {
            match self.ruling.as_deref() {
                Some("upheld") => (true, None, false),
                Some("overridden") => (false, None, true),
                Some(other) => {
                    return Err(format!(
                        "ruling: expected \"upheld\" or \"overridden\", got \"{other}\""
                    ))
                }
                None => unreachable!("one field is given"),
            }
        };
        Ok(NewOutcome {
            correct,
            actual,
            overridden,
            note,
        })
    }
}

/// One line of `consilium track-record import FILE.jsonl`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportLine {
    /// The agent's identity (`builtin:safety`, `openai:<model>:<role>`, …).
    pub identity: String,
    /// What it held (`ACT`, `BUY`, a claim), 1–500 characters.
    pub held: String,
    /// 0–1.
    pub confidence: f64,
    /// When it was made (RFC 3339).
    pub made_at: String,
    /// Groups predictions made in one debate (CR-3 compares agents within one).
    #[serde(default)]
    pub debate: Option<String>,
    #[serde(default)]
    pub claim: Option<f64>,
    #[serde(default)]
    pub context: ContextTags,
    /// The outcome, if known: `{"correct": …}`, `{"actual": …}` or `{"ruling": …}`.
    #[serde(default)]
    pub outcome: Option<RecordOutcome>,
    /// When the outcome was recorded (RFC 3339); `made_at` when absent.
    #[serde(default)]
    pub outcome_at: Option<String>,
}

/// An import line that passed every check.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidImport {
    pub line: ImportLine,
    pub outcome: Option<NewOutcome>,
}

impl ImportLine {
    /// Parses and checks one line; the error names the field.
    pub fn parse(text: &str) -> Result<ValidImport, String> {
        let mut de = serde_json::Deserializer::from_str(text);
        let mut line: ImportLine =
            serde_path_to_error::deserialize(&mut de).map_err(|e| match e.path().to_string() {
                p if p == "." => e.inner().to_string(),
                p => format!("{p}: {}", e.inner()),
            })?;
        check_identity(&line.identity)?;
        let held = line.held.trim();
        if held.is_empty() || held.chars().count() > 500 {
            return Err("held: must be 1–500 characters".into());
        }
        line.held = held.to_owned();
        if !(0.0..=1.0).contains(&line.confidence) {
            return Err(format!(
                "confidence: must be from 0 to 1, got {}",
                line.confidence
            ));
        }
        if time::days(&line.made_at).is_none() {
            return Err(format!(
                "made_at: not an RFC 3339 time (like 2026-01-31T12:00:00Z): \"{}\"",
                line.made_at
            ));
        }
        if let Some(at) = &line.outcome_at {
            if time::days(at).is_none() {
                return Err(format!("outcome_at: not an RFC 3339 time: \"{at}\""));
            }
        }
        if let Some(d) = &line.debate {
            if d.is_empty()
                || d.len() > 64
                || !d
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            {
                return Err("debate: 1–64 letters, digits, '-' or '_'".into());
            }
        }
        if line.claim.is_some_and(|c| !c.is_finite()) {
            return Err("claim: must be a finite number".into());
        }
        line.context = line.context.normalised()?;
        let outcome = match &line.outcome {
            Some(o) => Some(o.resolve(line.claim).map_err(|e| format!("outcome.{e}"))?),
            None => None,
        };
        Ok(ValidImport { line, outcome })
    }
}
