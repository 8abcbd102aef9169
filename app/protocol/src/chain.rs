//! SV-2: the tamper-evident log. Every event carries `prev_hash` and
//! `hash = sha256(prev_hash ‖ canonical JSON of the event without its two hash fields)`, as
//! lowercase hex; the first event's `prev_hash` is 64 zeros. Canonical JSON (see the README):
//! object keys sorted by their UTF-8 bytes, no whitespace, strings escaped as serde_json does
//! (`"`, `\`, control characters; everything else verbatim UTF-8), numbers as serde_json prints
//! them (integers in decimal, floats in shortest round-trip form).

use sha2::{Digest, Sha256};

use super::event::{Event, EventBody, HexHash};

pub use super::recompute::{check_budget, recompute_decision, BudgetStop, RecomputeError};

pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The canonical JSON of an event, without `prev_hash` and `hash`.
pub fn canonical_json(event: &Event) -> String {
    String::from_utf8(canonical_bytes(event)).unwrap_or_default()
}

fn canonical_bytes(event: &Event) -> Vec<u8> {
    // Every log type serialises (plain structs, strings, numbers), so this cannot fail for a real
    // event; `verify_chain` rejects any event for which it would.
    super::canonical::to_canonical(event, &["prev_hash", "hash"]).unwrap_or_default()
}

/// `sha256(prev_hash ‖ canonical JSON)` as lowercase hex.
pub fn event_hash(prev_hash: &str, event: &Event) -> HexHash {
    hash_event(prev_hash.as_bytes(), event)
}

fn hash_event(prev_hash: &[u8], event: &Event) -> HexHash {
    thread_local! {
        /// The canonical JSON of the last event hashed on this thread, kept for its buffer.
        static CANONICAL: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let with_buffer = CANONICAL.try_with(|buffer| {
        let mut buffer = buffer.try_borrow_mut().ok()?;
        buffer.clear();
        super::canonical::write_canonical(event, &["prev_hash", "hash"], &mut buffer).ok()?;
        Some(hash_bytes(prev_hash, &buffer))
    });
    // Not reached in practice (no thread-local, or an event that cannot be canonicalised, which
    // `verify_chain` rejects): hashed with a buffer of its own.
    with_buffer
        .ok()
        .flatten()
        .unwrap_or_else(|| hash_bytes(prev_hash, &canonical_bytes(event)))
}

fn hash_bytes(prev_hash: &[u8], canonical: &[u8]) -> HexHash {
    let mut h = Sha256::new();
    h.update(prev_hash);
    h.update(canonical);
    hex(&h.finalize().into())
}

/// Lower-case hex of a SHA-256 digest, written into a buffer first (a `char` pushed at a time
/// costs a tenth of sealing an event), held inline: no allocation.
fn hex(digest: &[u8; 32]) -> HexHash {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut buffer = [0u8; 64];
    for (pair, b) in buffer.chunks_exact_mut(2).zip(digest) {
        pair[0] = DIGITS[usize::from(b >> 4)];
        pair[1] = DIGITS[usize::from(b & 15)];
    }
    // Only ASCII hex digits were written.
    HexHash::from(std::str::from_utf8(&buffer).unwrap_or_default())
}

/// Sets `prev_hash` and `hash` on an event that follows `prev_hash`. The one place hashes are made.
pub fn seal(mut event: Event, prev_hash: &str) -> Event {
    seal_in_place(&mut event, &HexHash::from(prev_hash));
    event
}

/// [`seal`] without moving the event in and out, nor allocating: the hashes are
/// held inline.
pub fn seal_in_place(event: &mut Event, prev_hash: &HexHash) {
    event.prev_hash = prev_hash.clone();
    event.hash = hash_event(prev_hash.as_bytes(), event);
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    #[error("the log is empty")]
    Empty,
    #[error("tampered at event {seq}: {reason}")]
    Tampered { seq: u64, reason: String },
}

/// Checks sequence numbers (1, 2, 3 … with no gap), links and hashes. Returns the event count.
pub fn verify_chain(events: &[Event]) -> Result<usize, ChainError> {
    if events.is_empty() {
        return Err(ChainError::Empty);
    }
    let mut prev = HexHash::from(GENESIS);
    for (i, e) in events.iter().enumerate() {
        let expected_seq = i as u64 + 1;
        let tampered = |reason: String| ChainError::Tampered { seq: e.seq, reason };
        if e.seq != expected_seq {
            return Err(tampered(format!("expected sequence number {expected_seq}")));
        }
        let canonical = super::canonical::to_canonical(e, &["prev_hash", "hash"])
            .map_err(|err| tampered(format!("cannot be canonicalised: {err}")))?;
        if e.prev_hash != prev {
            return Err(tampered(
                "prev_hash does not match the previous event's hash".into(),
            ));
        }
        let recomputed = hash_bytes(prev.as_bytes(), &canonical);
        if e.hash != recomputed {
            return Err(tampered(format!(
                "hash {} does not match its content (recomputed {})",
                short(&e.hash),
                short(&recomputed)
            )));
        }
        prev.clone_from(&e.hash);
    }
    Ok(events.len())
}

fn short(h: &str) -> &str {
    h.get(..12).unwrap_or(h)
}

/// A whole log sealed at once, numbered from 1 under one fixed timestamp, as the server's
/// sequencer would seal it: for the tests of this crate and of the crates built on it (the
/// sequencer itself seals each event as it is logged, with its own time).
pub fn seal_all(bodies: Vec<EventBody>) -> Vec<Event> {
    let mut prev = HexHash::from(GENESIS);
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| {
            let e = seal(
                Event::new(i as u64 + 1, "2026-11-22T00:00:00.000Z".into(), body),
                &prev,
            );
            prev.clone_from(&e.hash);
            e
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::DebateEvent;
    use crate::run_scripted;
    use crate::s4::S4Reply;
    use crate::s4::S4Task;
    use crate::shared::CommonEvent;
    use crate::{AgentSpec, Decision, Outcome, Position};

    fn sealed_log() -> Vec<Event> {
        let (_, bodies) = run_scripted(AgentSpec::default_s4(), |req| {
            Ok(match &req.task {
                S4Task::Challenge { .. } => S4Reply::Challenge {
                    text: "Prove it — «ünïcödé» \"quoted\"\n".into(),
                    argues_for: Decision::Warn,
                },
                _ => S4Reply::Position(Position {
                    decision: if req.agent == "accuracy" {
                        Decision::Warn
                    } else {
                        Decision::Act
                    },
                    confidence: 66,
                    risk: 10,
                    reasoning: "r".into(),
                }),
            })
        });
        seal_all(bodies)
    }

    /// The definition the README gives, via a `serde_json::Value` tree: the direct serializer must
    /// produce exactly these bytes (logs written before it must still verify).
    fn reference_canonical(event: &Event) -> String {
        fn write(v: &serde_json::Value, out: &mut String) {
            use serde_json::Value;
            match v {
                Value::Object(map) => {
                    let mut keys: Vec<&String> = map.keys().collect();
                    keys.sort_unstable();
                    out.push('{');
                    for (i, k) in keys.into_iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        out.push_str(&serde_json::to_string(k).expect("key"));
                        out.push(':');
                        write(&map[k], out);
                    }
                    out.push('}');
                }
                Value::Array(items) => {
                    out.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        write(item, out);
                    }
                    out.push(']');
                }
                other => out.push_str(&serde_json::to_string(other).expect("scalar")),
            }
        }
        let mut value = serde_json::to_value(event).expect("value");
        let map = value.as_object_mut().expect("object");
        map.remove("prev_hash");
        map.remove("hash");
        let mut out = String::new();
        write(&value, &mut out);
        out
    }

    #[test]
    fn the_direct_serializer_matches_the_reference_definition_sv_2() {
        let mut log = sealed_log();
        // Strings that need escaping, non-ASCII, and floats in the decision.
        log.push(Event::new(
            99,
            "t".into(),
            EventBody::Common(CommonEvent::Interrupted {
                by: Some("judge \u{7f} ✓".into()),
                reason: "tab\t nul\u{0} quote\" backslash\\ \u{1f} é 漢 🙂 \u{2028}".into(),
            }),
        ));
        assert!(log
            .iter()
            .any(|e| matches!(e.body, EventBody::Debate(DebateEvent::Decision(_)))));
        for e in &log {
            assert_eq!(canonical_json(e), reference_canonical(e), "event {}", e.seq);
        }
    }

    #[test]
    fn an_untouched_log_verifies_and_recomputes_sv_2() {
        let log = sealed_log();
        assert_eq!(verify_chain(&log), Ok(log.len()));
        let outcome = recompute_decision(&log).expect("recomputed");
        assert_eq!(outcome.label(), "ACT");
    }

    #[test]
    fn canonical_json_is_sorted_and_compact() {
        let log = sealed_log();
        let c = canonical_json(&log[0]);
        assert!(
            c.starts_with(r#"{"agents":[{"id":"utility","role":"utility"}"#),
            "{c}"
        );
        assert!(!c.contains("hash"), "hash fields are excluded");
        assert!(!c.contains(": ") && !c.contains(", "));
        // Survives a JSON round trip (what a verifier in another process sees).
        let back: Event =
            serde_json::from_str(&serde_json::to_string(&log[5]).expect("ser")).expect("de");
        assert_eq!(event_hash(&back.prev_hash, &back), log[5].hash);
    }

    #[test]
    fn every_kind_of_tampering_is_found_with_its_sequence_number_sv_2() {
        let log = sealed_log();
        type Tamper = fn(&mut Vec<Event>);
        let cases: Vec<(&str, Tamper, u64)> = vec![
            (
                "edited text",
                |l| l[16].ts = "2030-01-01T00:00:00.000Z".into(),
                17,
            ),
            ("edited hash", |l| l[9].hash = GENESIS.into(), 10),
            (
                "deleted event",
                |l| {
                    l.remove(4);
                },
                6,
            ),
            ("swapped events", |l| l.swap(7, 8), 9),
            ("edited first event", |l| l[0].prev_hash = "x".into(), 1),
        ];
        for (name, tamper, seq) in cases {
            let mut l = log.clone();
            tamper(&mut l);
            match verify_chain(&l) {
                Err(ChainError::Tampered { seq: at, .. }) => assert_eq!(at, seq, "{name}"),
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    /// AG-2: a budget stop must follow from the logged calls and the declared budget.
    #[allow(clippy::too_many_lines)] // a test table
    #[test]
    fn budget_claims_are_checked_against_the_logged_calls_ag_2() {
        use crate::{AgentCall, BackendInfo};
        let start = |budget: Option<u64>| {
            EventBody::Debate(DebateEvent::DebateStarted {
                protocol: "s4".into(),
                query: "q".into(),
                seed: 1,
                agents: AgentSpec::default_s4(),
                rounds: vec![],
                config: None,
                backend: budget.map(|token_budget| {
                    Box::new(BackendInfo {
                        kind: "openai".into(),
                        model: Some("m".into()),
                        token_budget,
                        service: None,
                    })
                }),
                context: None,
            })
        };
        let call = |tokens: u64| {
            EventBody::Common(CommonEvent::AgentCall(AgentCall {
                agent: "utility".into(),
                round: 1,
                backend: "openai".into(),
                attempts: 1,
                latency_ms: 3,
                prompt_tokens: tokens - 1,
                completion_tokens: 1,
                ok: true,
                estimated: false,
                retry_after_ms: 0,
                streamed: false,
                cancelled: false,
                reasked: false,
            }))
        };
        let stop = |used: u64, budget: u64| {
            EventBody::Common(CommonEvent::BudgetExhausted {
                round: 1,
                used,
                budget,
            })
        };
        let ok = |used, budget, calls| {
            Ok(Some(BudgetStop {
                used,
                budget,
                calls,
            }))
        };
        #[allow(clippy::type_complexity)] // a test table: each row spelled out
        let cases: Vec<(&str, Vec<EventBody>, Result<Option<BudgetStop>, &str>)> = vec![
            (
                "honest stop",
                vec![start(Some(100)), call(60), call(50), stop(110, 100)],
                ok(110, 100, 2),
            ),
            (
                "stop exactly at the budget",
                vec![start(Some(100)), call(100), stop(100, 100)],
                ok(100, 100, 1),
            ),
            (
                "no stop, nothing to check",
                vec![start(Some(10)), call(60)],
                Ok(None),
            ),
            (
                "no budget declared",
                vec![start(None), call(30), stop(30, 20)],
                ok(30, 20, 1),
            ),
            (
                "used does not add up",
                vec![start(Some(100)), call(60), call(50), stop(150, 100)],
                Err("event 4 says 150 tokens were used, the logged calls add up to 110"),
            ),
            (
                "stopped under budget",
                vec![start(Some(100)), call(60), stop(60, 100)],
                Err("event 3 stops the debate at 60 tokens, under its budget of 100"),
            ),
            (
                "budget differs from the declared one",
                vec![start(Some(100)), call(60), stop(60, 50)],
                Err("event 3 names a budget of 50, the debate declared 100"),
            ),
            (
                "a call after the stop",
                vec![start(Some(50)), call(60), stop(60, 50), call(5)],
                Err("event 4 is a call made after the budget ran out at event 3"),
            ),
            (
                "two stops",
                vec![start(Some(50)), call(60), stop(60, 50), stop(60, 50)],
                Err("event 4 is a second budget stop"),
            ),
            (
                "two stops",
                vec![start(Some(50)), call(60), stop(60, 50), stop(60, 50)],
                Err("event 4 is a second budget stop"),
            ),
        ];
        for (name, bodies, want) in cases {
            let log = seal_all(bodies);
            let got = check_budget(&log).map_err(|(seq, reason)| {
                assert!(reason.starts_with(&format!("event {seq} ")), "{reason}");
                reason
            });
            assert_eq!(got, want.map_err(str::to_owned), "{name}");
        }
    }

    #[test]
    fn a_forged_decision_with_a_valid_chain_is_caught_by_recomputation() {
        // Someone rewrites the decision and re-seals the chain: the hashes hold, the votes do not.
        let mut log = sealed_log();
        let last = log.len() - 1;
        if let EventBody::Debate(DebateEvent::Decision(Outcome::S4(o))) = &mut log[last].body {
            o.decision = crate::Verdict::Refuse;
        }
        let prev = log[last - 1].hash.clone();
        log[last] = seal(log[last].clone(), &prev);
        assert!(verify_chain(&log).is_ok());
        assert!(matches!(
            recompute_decision(&log),
            Err(RecomputeError::Mismatch { .. })
        ));
    }
}
