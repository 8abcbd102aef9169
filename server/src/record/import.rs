//! `consilium track-record import FILE.jsonl`: every line checked first (the README gives the
//! schema); one bad line is named by number and nothing is imported; otherwise every line goes
//! in one transaction.

use app::track_record::{ImportLine, PredictionRow};

use super::new_prediction_id;
use crate::db::track_record::OutcomeEntry;
use crate::db::{Store, StoreError};

/// The most bad lines one report names.
const MAX_REPORTED: usize = 20;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("nothing was imported: {}", .0.join("; "))]
    BadLines(Vec<String>),
    #[error("nothing was imported: the file has no records")]
    Empty,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, PartialEq, Eq)]
pub struct Imported {
    pub predictions: usize,
    pub outcomes: usize,
}

/// Imports `text` (JSON Lines) as `source` (`import` or `sample`), outcomes recorded by
/// `recorded_by` (`import:<file>`, `sample`).
pub async fn import(
    store: &Store,
    text: &str,
    source: &'static str,
    recorded_by: &str,
) -> Result<Imported, ImportError> {
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match ImportLine::parse(line) {
            Ok(v) => {
                let l = v.line;
                let outcome = v.outcome.map(|outcome| OutcomeEntry {
                    outcome,
                    recorded_by: recorded_by.to_owned(),
                    recorded_at: l.outcome_at.clone().unwrap_or_else(|| l.made_at.clone()),
                });
                rows.push((
                    PredictionRow {
                        id: new_prediction_id(),
                        identity: l.identity.clone(),
                        debate_id: l.debate,
                        // The agent's id in its debate: the identity's last part.
                        agent: l
                            .identity
                            .rsplit(':')
                            .next()
                            .unwrap_or(&l.identity)
                            .to_owned(),
                        held: l.held,
                        confidence: l.confidence,
                        claim: l.claim,
                        detail: None,
                        made_at: l.made_at,
                        tags: l.context,
                        source: source.into(),
                        outcome: None,
                    },
                    outcome,
                ));
            }
            Err(e) => {
                if bad.len() < MAX_REPORTED {
                    bad.push(format!("line {}: {e}", i + 1));
                }
            }
        }
    }
    if !bad.is_empty() {
        return Err(ImportError::BadLines(bad));
    }
    if rows.is_empty() {
        return Err(ImportError::Empty);
    }
    store.add_predictions(&rows).await?;
    Ok(Imported {
        predictions: rows.len(),
        outcomes: rows.iter().filter(|(_, o)| o.is_some()).count(),
    })
}
