//! SV-7 and the operator's limits in the database: judges, their sessions, and the tokens spent
//! on remote backends per day. Tokens and session ids are stored only as SHA-256 hashes.

use super::{Db, Store, StoreError};

/// A judge as stored (the token's hash stays in the database layer and the access check).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeRow {
    pub name: String,
    /// `judge` or `viewer`.
    pub role: String,
    pub token_hash: String,
    pub created_at: String,
}

impl Store {
    /// Adds a judge; `Ok(false)` when one of that name exists.
    pub async fn add_judge(&self, row: &JudgeRow) -> Result<bool, StoreError> {
        let result = on_pool!(self, pool => {
            sqlx::query(
                "INSERT INTO judges (name, role, token_hash, created_at) VALUES ($1, $2, $3, $4)",
            )
            .bind(&row.name)
            .bind(&row.role)
            .bind(&row.token_hash)
            .bind(&row.created_at)
            .execute(pool)
            .await
            .map(|_| ())
        });
        match result {
            Ok(_) => Ok(true),
            Err(e) => {
                let e = StoreError::from(e);
                if e.is_conflict() {
                    Ok(false)
                } else {
                    Err(e)
                }
            }
        }
    }

    /// Every judge, by name.
    pub async fn judges(&self) -> Result<Vec<JudgeRow>, StoreError> {
        let rows: Vec<(String, String, String, String)> = on_pool!(self, pool => {
            sqlx::query_as("SELECT name, role, token_hash, created_at FROM judges ORDER BY name")
                .fetch_all(pool)
                .await?
        });
        Ok(rows
            .into_iter()
            .map(|(name, role, token_hash, created_at)| JudgeRow {
                name,
                role,
                token_hash,
                created_at,
            })
            .collect())
    }

    /// Removes a judge and their sessions; `false` when there is none of that name.
    pub async fn remove_judge(&self, name: &str) -> Result<bool, StoreError> {
        let removed = on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query("DELETE FROM judge_sessions WHERE judge = $1")
                .bind(name)
                .execute(&mut *tx)
                .await?;
            let done = sqlx::query("DELETE FROM judges WHERE name = $1")
                .bind(name)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            done.rows_affected()
        });
        Ok(removed > 0)
    }

    /// Replaces a judge's token and ends their sessions; `false` when there is none of that name.
    pub async fn rotate_judge(&self, name: &str, token_hash: &str) -> Result<bool, StoreError> {
        let changed = on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query("DELETE FROM judge_sessions WHERE judge = $1")
                .bind(name)
                .execute(&mut *tx)
                .await?;
            let done = sqlx::query("UPDATE judges SET token_hash = $1 WHERE name = $2")
                .bind(token_hash)
                .bind(name)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            done.rows_affected()
        });
        Ok(changed > 0)
    }

    pub async fn create_session(
        &self,
        id_hash: &str,
        judge: &str,
        expires_at: &str,
    ) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("INSERT INTO judge_sessions (id_hash, judge, expires_at) VALUES ($1, $2, $3)")
                .bind(id_hash)
                .bind(judge)
                .bind(expires_at)
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    /// The judge (name, role) a live session belongs to; expired sessions are deleted on sight.
    pub async fn session(
        &self,
        id_hash: &str,
        now: &str,
    ) -> Result<Option<(String, String)>, StoreError> {
        let row: Option<(String, String, String)> = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT j.name, j.role, s.expires_at FROM judge_sessions s \
                 JOIN judges j ON j.name = s.judge WHERE s.id_hash = $1",
            )
            .bind(id_hash)
            .fetch_optional(pool)
            .await?
        });
        match row {
            Some((name, role, expires_at)) if expires_at.as_str() > now => Ok(Some((name, role))),
            Some(_) => {
                self.end_session(id_hash).await?;
                Ok(None)
            }
            None => Ok(None),
        }
    }

    pub async fn end_session(&self, id_hash: &str) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("DELETE FROM judge_sessions WHERE id_hash = $1")
                .bind(id_hash)
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    /// Adds tokens spent on a remote backend to the day's total (`day` is `YYYY-MM-DD`, UTC).
    pub async fn add_spend(&self, day: &str, tokens: u64) -> Result<(), StoreError> {
        let tokens = tokens.min(i64::MAX as u64) as i64;
        on_pool!(self, pool => {
            sqlx::query(
                "INSERT INTO token_spend (day, tokens) VALUES ($1, $2) \
                 ON CONFLICT (day) DO UPDATE SET tokens = CASE \
                 WHEN token_spend.tokens > 9223372036854775807 - excluded.tokens \
                 THEN 9223372036854775807 ELSE token_spend.tokens + excluded.tokens END",
            )
            .bind(day)
            .bind(tokens)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Tokens spent on remote backends on `day`.
    pub async fn spent(&self, day: &str) -> Result<u64, StoreError> {
        let row: Option<(i64,)> = on_pool!(self, pool => {
            sqlx::query_as("SELECT tokens FROM token_spend WHERE day = $1")
                .bind(day)
                .fetch_optional(pool)
                .await?
        });
        Ok(row.map_or(0, |(t,)| t.max(0) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(name: &str, hash: &str) -> JudgeRow {
        JudgeRow {
            name: name.into(),
            role: "judge".into(),
            token_hash: hash.into(),
            created_at: "2026-01-01T00:00:00.000Z".into(),
        }
    }

    #[tokio::test]
    async fn judges_sessions_and_spend_sv_7() {
        let store = Store::connect("sqlite::memory:").await.expect("db");
        assert!(store.add_judge(&judge("ada", "h1")).await.expect("add"));
        assert!(!store.add_judge(&judge("ada", "h2")).await.expect("dup"));
        store
            .create_session("s1", "ada", "2026-01-02T00:00:00.000Z")
            .await
            .expect("session");
        let now = "2026-01-01T12:00:00.000Z";
        assert_eq!(
            store.session("s1", now).await.expect("live"),
            Some(("ada".into(), "judge".into()))
        );
        let later = "2026-01-03T00:00:00.000Z";
        assert_eq!(store.session("s1", later).await.expect("expired"), None);
        store
            .create_session("s2", "ada", "2026-01-02T00:00:00.000Z")
            .await
            .expect("session");
        assert!(store.rotate_judge("ada", "h3").await.expect("rotate"));
        assert_eq!(store.session("s2", now).await.expect("ended"), None);
        assert_eq!(store.judges().await.expect("list")[0].token_hash, "h3");
        assert!(store.remove_judge("ada").await.expect("remove"));
        assert!(!store.remove_judge("ada").await.expect("gone"));

        store.add_spend("2026-01-01", 10).await.expect("spend");
        store
            .add_spend("2026-01-01", u64::MAX)
            .await
            .expect("spend");
        assert_eq!(
            store.spent("2026-01-01").await.expect("spent"),
            i64::MAX as u64
        );
    }
}
