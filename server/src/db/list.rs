//! Finding old debates: newest first, a page at a time (`before` is the last id of the previous
//! page), filtered by protocol, status and decision, searched by query text.

use app::api::{DebateSummary, ForkSummary};
use app::protocol::shared::CommonEvent;
use app::protocol::EventBody;

use super::{parse_status, Db, Store, StoreError};

/// One page of `GET /api/debates`.
#[derive(Clone, Debug, Default)]
pub struct ListQuery {
    pub limit: u32,
    /// The id of the last debate on the previous page; this page starts after it.
    pub before: Option<String>,
    pub protocol: Option<String>,
    pub status: Option<String>,
    pub decision: Option<String>,
    /// Words the query text contains (case-insensitive for ASCII letters).
    pub search: Option<String>,
}

impl Store {
    /// Newest first (ties broken by insertion order).
    pub async fn list(&self, q: &ListQuery) -> Result<Vec<DebateSummary>, StoreError> {
        if let Some(before) = &q.before {
            if !self.exists(before).await? {
                return Err(StoreError::UnknownCursor(before.chars().take(64).collect()));
            }
        }
        let pattern = q.search.as_deref().map(like_pattern);
        let rows: Vec<SummaryRow> = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT id, query, protocol, status, decision, created_at, changed_outcome FROM debates \
                 WHERE ($1 IS NULL OR protocol = $1) \
                   AND ($2 IS NULL OR status = $2) \
                   AND ($3 IS NULL OR decision = $3) \
                   AND ($4 IS NULL OR lower(query) LIKE $4 ESCAPE '\\') \
                   AND ($5 IS NULL OR (created_at, rowid) < \
                        (SELECT created_at, rowid FROM debates WHERE id = $5)) \
                 ORDER BY created_at DESC, rowid DESC LIMIT $6",
            )
            .bind(q.protocol.as_deref())
            .bind(q.status.as_deref())
            .bind(q.decision.as_deref())
            .bind(pattern.as_deref())
            .bind(q.before.as_deref())
            .bind(i64::from(q.limit))
            .fetch_all(pool)
            .await?
        });
        rows.into_iter().map(summary).collect()
    }
}

impl Store {
    /// FK-3: the forks of debate `parent` (an id), newest first, at most 200.
    pub async fn forks_of(&self, parent: &str) -> Result<Vec<ForkSummary>, StoreError> {
        // Ids are hex: nothing in the pattern is a wildcard but the two `%`.
        let pattern = format!("%\"debate\":\"{parent}\"%");
        let rows: Vec<(String, String, Option<String>, String, i64, String)> = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT d.id, d.status, d.decision, d.created_at, d.seed, e.body \
                 FROM events e JOIN debates d ON d.id = e.debate_id \
                 WHERE e.seq = 1 AND e.kind = 'forked_from' AND e.body LIKE $1 \
                 ORDER BY d.created_at DESC LIMIT 200",
            )
            .bind(&pattern)
            .fetch_all(pool)
            .await?
        });
        let mut forks = Vec::with_capacity(rows.len());
        for (id, status, decision, created_at, seed, body) in rows {
            let event = super::decode(&id, 1, &body)?;
            let EventBody::Common(CommonEvent::ForkedFrom {
                debate, after_seq, ..
            }) = event.body
            else {
                continue;
            };
            if debate != parent {
                continue;
            }
            forks.push(ForkSummary {
                status: parse_status(&id, &status)?,
                id,
                after_seq,
                seed: seed as u64,
                decision,
                created_at,
                diverged_at: None,
            });
        }
        Ok(forks)
    }

    /// QL-1 on the home page: of the debates whose decision carries a vote baseline, how many
    /// the debate changed.
    pub async fn baseline_counts(&self) -> Result<app::api::BaselineCounts, StoreError> {
        let (decided, changed): (i64, i64) = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT COUNT(changed_outcome), \
                        COALESCE(SUM(CASE WHEN changed_outcome THEN 1 ELSE 0 END), 0) \
                 FROM debates",
            )
            .fetch_one(pool)
            .await?
        });
        Ok(app::api::BaselineCounts {
            decided: decided.max(0) as u64,
            changed: changed.max(0) as u64,
        })
    }
}

/// `%text%` with LIKE's wildcards escaped, lower-cased like the column it is compared with.
fn like_pattern(text: &str) -> String {
    let mut p = String::from("%");
    for c in text.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// `id, query, protocol, status, decision, created_at, changed_outcome`.
pub(super) type SummaryRow = (
    String,
    String,
    String,
    String,
    Option<String>,
    String,
    Option<bool>,
);
/// A summary row followed by `seed`.
pub(super) type DetailRow = (
    String,
    String,
    String,
    String,
    Option<String>,
    String,
    Option<bool>,
    i64,
);

pub(super) fn summary(
    (id, query, protocol, status, decision, created_at, changed_outcome): SummaryRow,
) -> Result<DebateSummary, StoreError> {
    let status = parse_status(&id, &status)?;
    Ok(DebateSummary {
        id,
        query,
        protocol,
        status,
        decision,
        created_at,
        changed_outcome,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::NewDebate;

    #[test]
    fn like_wildcards_are_literal() {
        assert_eq!(like_pattern("50%_A\\"), "%50\\%\\_a\\\\%");
    }

    #[tokio::test]
    async fn pages_filters_and_search() {
        let store = Store::connect("sqlite::memory:").await.expect("db");
        for (i, (query, protocol)) in [
            ("Ship the tax engine?", "s4"),
            ("Buy ACME shares?", "round_robin"),
            ("ship on friday?", "s4"),
            ("100% sure?", "s4"),
        ]
        .into_iter()
        .enumerate()
        {
            let id = format!("d{i}");
            let row = NewDebate {
                id: &id,
                query,
                protocol,
                seed: 1,
                created_at: "2026-01-01T00:00:00.000Z",
            };
            store.create_debate(&row, &[]).await.expect("create");
        }
        let ids = |v: Vec<DebateSummary>| v.into_iter().map(|d| d.id).collect::<Vec<_>>();
        let page = |before: Option<&str>| ListQuery {
            limit: 2,
            before: before.map(str::to_owned),
            ..ListQuery::default()
        };
        assert_eq!(
            ids(store.list(&page(None)).await.expect("p1")),
            ["d3", "d2"]
        );
        assert_eq!(
            ids(store.list(&page(Some("d2"))).await.expect("p2")),
            ["d1", "d0"]
        );
        assert!(store.list(&page(Some("d0"))).await.expect("end").is_empty());
        let err = store.list(&page(Some("nope"))).await.expect_err("cursor");
        assert!(err.to_string().contains("nope"), "{err}");

        let search = |s: &str| ListQuery {
            limit: 10,
            search: Some(s.into()),
            ..ListQuery::default()
        };
        assert_eq!(
            ids(store.list(&search("SHIP")).await.expect("s")),
            ["d2", "d0"]
        );
        assert_eq!(ids(store.list(&search("%")).await.expect("s")), ["d3"]);
        let rr = ListQuery {
            limit: 10,
            protocol: Some("round_robin".into()),
            status: Some("running".into()),
            ..ListQuery::default()
        };
        assert_eq!(ids(store.list(&rr).await.expect("rr")), ["d1"]);
    }
}
