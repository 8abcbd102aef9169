//! Each ended log's signature, stored with its last events ([`Store::append_signed`];
//! the database refuses to change it).

use app::audit::signature::LogSignature;

use super::{Db, Store, StoreError};

impl Store {
    /// The signature over a debate's log as it ends now: the latest of its ends (a gate
    /// review ends it again, ES-7), or the one written before signatures were kept per end.
    pub async fn signature(&self, debate: &str) -> Result<Option<LogSignature>, StoreError> {
        let row: Option<(String,)> = on_pool!(self, pool => {
            sqlx::query_as(
                "SELECT body FROM (SELECT body, seq FROM log_signatures WHERE debate_id = $1 \
                 UNION ALL SELECT body, -1 AS seq FROM signatures WHERE debate_id = $1) s \
                 ORDER BY seq DESC LIMIT 1",
            )
            .bind(debate)
            .fetch_optional(pool)
            .await?
        });
        row.map(|(body,)| {
            serde_json::from_str(&body).map_err(|e| StoreError::Corrupt {
                debate: debate.to_owned(),
                seq: 0,
                error: format!("its signature is unreadable: {e}"),
            })
        })
        .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::NewDebate;

    /// The database refuses to change or delete events and signatures.
    #[tokio::test]
    async fn events_and_signatures_are_append_only() {
        let store = Store::connect("sqlite::memory:").await.expect("db");
        let mut seq = crate::drive::Sequencer::new();
        let first = vec![seq.stamp(app::protocol::run::interruption("x".into()))];
        let row = NewDebate::sample("d1");
        store.create_debate(&row, &[]).await.expect("create");
        let signer = crate::signing::Signer::ephemeral().expect("key");
        let sig = signer.sign("d1", 1, &first[0].hash);
        store
            .append_signed("d1", &first, Some(&sig))
            .await
            .expect("append and sign");
        assert_eq!(store.signature("d1").await.expect("read"), Some(sig));
        for sql in [
            "UPDATE events SET body = 'x'",
            "DELETE FROM events",
            "UPDATE log_signatures SET body = 'x'",
            "DELETE FROM log_signatures",
        ] {
            let err = store.execute_raw(sql).await.expect_err(sql);
            assert!(err.to_string().contains("append-only"), "{sql}: {err}");
        }
    }
}
