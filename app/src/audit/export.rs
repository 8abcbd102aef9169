//! Reading an export a judge opens (`consilium verify`, the offline viewer), bounded against
//! hostile files, and checking it together with the server's signature over its end.

use super::{check, signature, Check};
use crate::protocol::Event;

/// The largest export a judge's tools read: a real debate's log is tens to hundreds of KiB.
pub const MAX_EXPORT_BYTES: usize = 32 * 1024 * 1024;
/// The most events an export may hold (a real debate has well under a thousand).
pub const MAX_EXPORT_EVENTS: usize = 100_000;

/// Reads an export (`GET /api/debates/{id}/export.json`, or the `GET /api/debates/{id}` body), or a
/// bare array of events. An event that does not parse is reported by its sequence number. Hostile
/// files get a clear error in bounded time and memory: over [`MAX_EXPORT_BYTES`] or
/// [`MAX_EXPORT_EVENTS`], nested deeper than serde_json's limit (128), numbers out of range.
pub fn parse_export(text: &str) -> Result<Vec<Event>, String> {
    parse_export_full(text).map(|e| e.events)
}

/// An export as read: the debate's id and the server's signature when it carries them.
#[derive(Clone, Debug, PartialEq)]
pub struct Export {
    pub id: Option<String>,
    pub events: Vec<Event>,
    pub signature: Option<signature::LogSignature>,
}

impl Export {
    /// [`signature::check_signature`] of this export (`pinned`: a key that must have signed it).
    pub fn signature_check(&self, pinned: Option<&str>) -> signature::SignatureCheck {
        signature::check_signature(
            self.id.as_deref().unwrap_or(""),
            &self.events,
            self.signature.as_ref(),
            pinned,
        )
    }
}

/// The chain and decision check, then the signature: a signature that does not hold
/// (cut off, re-hashed, another key than the pinned one) makes the whole check fail.
pub fn check_signed(export: &Export, pinned: Option<&str>) -> (Check, signature::SignatureCheck) {
    let checked = check(&export.events);
    let signed = export.signature_check(pinned);
    let checked = match (&checked, &signed) {
        (Check::Failed { .. }, _) => checked,
        (_, signature::SignatureCheck::Failed { reason, seq }) => Check::Failed {
            reason: reason.clone(),
            seq: *seq,
        },
        _ => checked,
    };
    (checked, signed)
}

/// [`parse_export`], keeping the id and signature.
pub fn parse_export_full(text: &str) -> Result<Export, String> {
    if text.len() > MAX_EXPORT_BYTES {
        return Err(too_large(text.len()));
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a JSON document: {e}"))?;
    let mut id = None;
    let mut signature = None;
    let events = match value {
        serde_json::Value::Array(_) => value,
        serde_json::Value::Object(mut map) => {
            id = map
                .get("id")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned);
            if let Some(sig) = map.remove("signature") {
                signature = Some(
                    serde_json::from_value(sig)
                        .map_err(|e| format!("the signature is malformed: {e}"))?,
                );
            }
            map.remove("events")
                .ok_or("the JSON object has no \"events\" array")?
        }
        _ => return Err("expected a JSON object or array".into()),
    };
    let list = events.as_array().ok_or("\"events\" is not an array")?;
    if list.len() > MAX_EXPORT_EVENTS {
        return Err(format!(
            "the log has {} events; an export holds at most {MAX_EXPORT_EVENTS}",
            list.len()
        ));
    }
    let events = list
        .iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value(v.clone()).map_err(|e| {
                let seq = v
                    .get("seq")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(i as u64 + 1);
                format!("tampered at event {seq}: not a valid event ({e})")
            })
        })
        .collect::<Result<Vec<Event>, String>>()?;
    Ok(Export {
        id,
        events,
        signature,
    })
}

/// The error for a file over [`MAX_EXPORT_BYTES`] (also checked before reading one).
pub fn too_large(bytes: usize) -> String {
    format!(
        "the file is {:.1} MB; an export is at most {} MB (a debate's log is far smaller)",
        bytes as f64 / 1_048_576.0,
        MAX_EXPORT_BYTES / 1_048_576
    )
}
