//! `consilium verify <file-or-url>`: re-checks an exported log with the same `app::protocol` code
//! the judge's browser uses (SV-2).

use app::protocol::chain::{recompute_decision, verify_chain};
use app::protocol::{Event, EventBody};

use crate::cli::CliError;

pub async fn run(source: &str) -> Result<(), CliError> {
    let text = load(source).await?;
    let events = parse(&text)?;
    let report = check(&events).map_err(CliError::Verify)?;
    println!("{report}");
    Ok(())
}

async fn load(source: &str) -> Result<String, CliError> {
    if source.starts_with("http://") || source.starts_with("https://") {
        let fail = |e: String| CliError::Verify(format!("cannot fetch {source}: {e}"));
        let resp = reqwest::get(source)
            .await
            .map_err(|e| fail(e.to_string()))?;
        if !resp.status().is_success() {
            return Err(fail(format!("HTTP {}", resp.status())));
        }
        resp.text().await.map_err(|e| fail(e.to_string()))
    } else {
        std::fs::read_to_string(source)
            .map_err(|e| CliError::Verify(format!("cannot read {source}: {e}")))
    }
}

/// Accepts an export object with an `events` array, or a bare array of events.
pub fn parse(text: &str) -> Result<Vec<Event>, CliError> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| CliError::Verify(format!("not a JSON document: {e}")))?;
    let events = match value {
        serde_json::Value::Array(_) => value,
        serde_json::Value::Object(mut map) => map
            .remove("events")
            .ok_or_else(|| CliError::Verify("the JSON object has no \"events\" array".into()))?,
        _ => return Err(CliError::Verify("expected a JSON object or array".into())),
    };
    let list = events
        .as_array()
        .ok_or_else(|| CliError::Verify("\"events\" is not an array".into()))?;
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value(v.clone()).map_err(|e| {
                let seq = v
                    .get("seq")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(i as u64 + 1);
                CliError::Verify(format!("tampered at event {seq}: not a valid event ({e})"))
            })
        })
        .collect()
}

/// What was checked, or the first failure.
pub fn check(events: &[Event]) -> Result<String, String> {
    let n = verify_chain(events).map_err(|e| e.to_string())?;
    let mut lines = vec![format!(
        "chain: {n} events, sequence 1..{n} gap-free, every prev_hash links to its predecessor, \
         every hash matches its content"
    )];
    let finished = events
        .iter()
        .any(|e| matches!(e.body, EventBody::Decision(_)));
    if finished {
        let votes = events
            .iter()
            .filter(|e| matches!(e.body, EventBody::Vote { .. }))
            .count();
        let outcome = recompute_decision(events).map_err(|e| e.to_string())?;
        lines.push(format!(
            "decision: {} recomputed from {votes} logged votes ({}, {}% agreement, max risk {}, veto {}) — matches the log",
            outcome.decision,
            outcome.consensus.label(),
            outcome.agreement_percentage,
            outcome.max_risk,
            outcome.veto_applied
        ));
        lines.push(format!(
            "verified: {n} events, decision {} recomputed",
            outcome.decision
        ));
    } else {
        return Err(format!(
            "chain verified ({n} events), but the log has no decision to recompute (the debate did not finish)"
        ));
    }
    Ok(lines.join("\n"))
}
