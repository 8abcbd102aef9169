//! The track record — predictions and their outcomes, both append-only (migration
//! 0006). The latest outcome of a prediction is the one that counts.

use app::protocol::credibility::{ContextTags, Point};
use app::protocol::time;
use app::track_record::{NewOutcome, OutcomeRow, PredictionRow};
use sqlx::Row;

use super::{Db, Store, StoreError};

/// An outcome to append, with who recorded it and when.
#[derive(Clone, Debug, PartialEq)]
pub struct OutcomeEntry {
    pub outcome: NewOutcome,
    pub recorded_by: String,
    pub recorded_at: String,
}

/// One point of an agent's record as CR-1 and CR-3 read it.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordPoint {
    pub debate: Option<String>,
    pub point: Point,
    pub sample: bool,
}

/// One row per agent: identity, predictions, whether any is sample data.
pub type AgentCount = (String, u32, bool);

const SELECT: &str = "SELECT p.id, p.identity, p.debate_id, p.agent, p.held, p.confidence, \
     p.claim, p.detail, p.made_at, p.regime, p.sector, p.metric, p.horizon, p.size, p.stage, \
     p.source, o.correct, o.actual, o.overridden, o.recorded_by, o.recorded_at, o.note \
     FROM predictions p LEFT JOIN outcomes o ON o.id = \
     (SELECT MAX(o2.id) FROM outcomes o2 WHERE o2.prediction_id = p.id)";

pub(crate) const INSERT_PREDICTION: &str =
    "INSERT INTO predictions (id, identity, debate_id, agent, held, \
     confidence, claim, detail, made_at, regime, sector, metric, horizon, size, stage, source) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) \
     ON CONFLICT DO NOTHING";

const INSERT_OUTCOME: &str = "INSERT INTO outcomes (prediction_id, correct, actual, overridden, \
     recorded_by, recorded_at, note) VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// Binds a prediction ([`PredictionRow`]; its outcome is stored apart) to [`INSERT_PREDICTION`].
macro_rules! insert_prediction {
    ($p:expr) => {{
        let p = $p;
        sqlx::query($crate::db::track_record::INSERT_PREDICTION)
            .bind(&p.id)
            .bind(&p.identity)
            .bind(&p.debate_id)
            .bind(&p.agent)
            .bind(&p.held)
            .bind(p.confidence)
            .bind(p.claim)
            .bind(&p.detail)
            .bind(&p.made_at)
            .bind(&p.tags.regime)
            .bind(&p.tags.sector)
            .bind(&p.tags.metric)
            .bind(&p.tags.horizon)
            .bind(&p.tags.size)
            .bind(&p.tags.stage)
            .bind(&p.source)
    }};
}

/// [`insert_prediction!`] on SQLite's writer thread (a debate's end, `sqlite_writer.rs`).
pub(super) fn insert_prediction_sqlite(
    c: &rusqlite::Connection,
    p: &PredictionRow,
) -> Result<(), StoreError> {
    let t = &p.tags;
    c.prepare_cached(INSERT_PREDICTION)?
        .execute(rusqlite::params![
            p.id,
            p.identity,
            p.debate_id,
            p.agent,
            p.held,
            p.confidence,
            p.claim,
            p.detail,
            p.made_at,
            t.regime,
            t.sector,
            t.metric,
            t.horizon,
            t.size,
            t.stage,
            p.source
        ])?;
    Ok(())
}

/// Binds an outcome of prediction `$id` to [`INSERT_OUTCOME`].
macro_rules! insert_outcome {
    ($id:expr, $o:expr) => {{
        let o = $o;
        sqlx::query(INSERT_OUTCOME)
            .bind($id)
            .bind(o.outcome.correct)
            .bind(o.outcome.actual)
            .bind(o.outcome.overridden)
            .bind(&o.recorded_by)
            .bind(&o.recorded_at)
            .bind(&o.outcome.note)
    }};
}
pub(super) use insert_prediction;

/// Reads one row of [`SELECT`] (either driver's row type).
macro_rules! prediction_row {
    ($r:expr) => {{
        let r = $r;
        let tags = ContextTags {
            regime: r.try_get(9)?,
            sector: r.try_get(10)?,
            metric: r.try_get(11)?,
            horizon: r.try_get(12)?,
            size: r.try_get(13)?,
            stage: r.try_get(14)?,
        };
        let correct: Option<bool> = r.try_get(16)?;
        let outcome = match correct {
            Some(correct) => Some(OutcomeRow {
                correct,
                actual: r.try_get(17)?,
                overridden: r.try_get(18)?,
                recorded_by: r.try_get(19)?,
                recorded_at: r.try_get(20)?,
                note: r.try_get(21)?,
            }),
            None => None,
        };
        PredictionRow {
            id: r.try_get(0)?,
            identity: r.try_get(1)?,
            debate_id: r.try_get(2)?,
            agent: r.try_get(3)?,
            held: r.try_get(4)?,
            confidence: r.try_get(5)?,
            claim: r.try_get(6)?,
            detail: r.try_get(7)?,
            made_at: r.try_get(8)?,
            tags,
            source: r.try_get(15)?,
            outcome,
        }
    }};
}

impl Store {
    /// Appends predictions, each with the outcome it already has (an import), in one
    /// transaction: all or nothing. A debate's prediction stored before is left as it is.
    pub async fn add_predictions(
        &self,
        rows: &[(PredictionRow, Option<OutcomeEntry>)],
    ) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            for (p, outcome) in rows {
                insert_prediction!(p).execute(&mut *tx).await?;
                if let Some(o) = outcome {
                    insert_outcome!(&p.id, o).execute(&mut *tx).await?;
                }
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// The prediction `id` (with its latest outcome), if it exists.
    pub async fn prediction(&self, id: &str) -> Result<Option<PredictionRow>, StoreError> {
        let sql = format!("{SELECT} WHERE p.id = $1");
        Ok(on_pool!(self, pool => {
            match sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(pool).await? {
                Some(r) => Some(prediction_row!(r)),
                None => None,
            }
        }))
    }

    /// Appends an outcome to prediction `id`.
    pub async fn add_outcome(&self, id: &str, entry: &OutcomeEntry) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            insert_outcome!(id, entry).execute(pool).await?;
        });
        Ok(())
    }

    /// An agent's predictions, newest first, at most `limit`.
    pub async fn predictions_of(
        &self,
        identity: &str,
        limit: usize,
    ) -> Result<Vec<PredictionRow>, StoreError> {
        let sql = format!("{SELECT} WHERE p.identity = $1 ORDER BY p.made_at DESC, p.id LIMIT $2");
        self.prediction_rows(sql, Some(identity), Some(limit)).await
    }

    /// The predictions recorded by debate `id`, in agent order.
    pub async fn predictions_in(&self, debate: &str) -> Result<Vec<PredictionRow>, StoreError> {
        let sql = format!("{SELECT} WHERE p.debate_id = $1 ORDER BY p.agent");
        self.prediction_rows(sql, Some(debate), None).await
    }

    async fn prediction_rows(
        &self,
        sql: String,
        key: Option<&str>,
        limit: Option<usize>,
    ) -> Result<Vec<PredictionRow>, StoreError> {
        let limit = limit.map(|l| i64::try_from(l).unwrap_or(i64::MAX));
        Ok(on_pool!(self, pool => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(key);
            if let Some(l) = limit {
                q = q.bind(l);
            }
            let rows = q.fetch_all(pool).await?;
            let mut out = Vec::with_capacity(rows.len());
            for r in rows {
                out.push(prediction_row!(r));
            }
            out
        }))
    }

    /// Every outcome-bearing point of an agent's record (CR-1), oldest first. A time that does
    /// not parse (it cannot: imports and debates are checked) is left out.
    pub async fn points(&self, identity: &str) -> Result<Vec<RecordPoint>, StoreError> {
        #[allow(clippy::type_complexity)] // one row of the query, as sqlx decodes it
        let rows: Vec<(
            Option<String>,
            String,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            String,
            bool,
            bool,
        )> = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT p.debate_id, p.made_at, p.regime, p.sector, p.metric, p.horizon, \
                 p.size, p.stage, p.source, o.correct, o.overridden \
                 FROM predictions p JOIN outcomes o ON o.id = \
                 (SELECT MAX(o2.id) FROM outcomes o2 WHERE o2.prediction_id = p.id) \
                 WHERE p.identity = $1 ORDER BY p.made_at",
            )
            .bind(identity)
            .fetch_all(pool)
            .await?
        });
        Ok(rows
            .into_iter()
            .filter_map(
                |(
                    debate,
                    made_at,
                    regime,
                    sector,
                    metric,
                    horizon,
                    size,
                    stage,
                    source,
                    correct,
                    overridden,
                )| {
                    Some(RecordPoint {
                        debate,
                        sample: source == "sample",
                        point: Point {
                            at: time::days(&made_at)?,
                            correct,
                            overridden,
                            tags: ContextTags {
                                regime,
                                sector,
                                metric,
                                horizon,
                                size,
                                stage,
                            },
                        },
                    })
                },
            )
            .collect())
    }

    /// Every agent with a record: identity, predictions, whether any is sample data.
    pub async fn agents(&self) -> Result<Vec<AgentCount>, StoreError> {
        let rows: Vec<(String, i64, i64)> = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT identity, COUNT(*), SUM(CASE WHEN source = 'sample' THEN 1 ELSE 0 END) \
                 FROM predictions GROUP BY identity ORDER BY identity",
            )
            .fetch_all(pool)
            .await?
        });
        Ok(rows
            .into_iter()
            .map(|(i, n, s)| (i, u32::try_from(n).unwrap_or(u32::MAX), s > 0))
            .collect())
    }
}
