//! A log that proves its author. When a log ends, the server that wrote it
//! signs its last hash with its Ed25519 key; anyone re-hashing an edited log by hand cannot
//! re-sign it, and a log cut before its end no longer reaches the signed hash. Checked here, by the
//! same code in `consilium verify`, the audit page and the offline viewer.

use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::protocol::Event;

/// The signature a finished or interrupted log ends with (in the export, beside `events`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct LogSignature {
    /// `ed25519`.
    pub algorithm: String,
    /// The first 16 hex digits of SHA-256 of the public key: how people name the key.
    pub key_id: String,
    /// The 32-byte public key, hex.
    pub public_key: String,
    /// The last event's sequence number and hash: what was signed (with the debate id).
    pub seq: u64,
    pub hash: String,
    /// The 64-byte signature, hex.
    pub signature: String,
}

/// The bytes signed: the scheme, the debate, and where its log ends.
pub fn message(debate_id: &str, seq: u64, hash: &str) -> Vec<u8> {
    format!("consilium-log-v1\n{debate_id}\n{seq}\n{hash}").into_bytes()
}

/// A key's id: the first 16 hex digits of SHA-256 of its 32 bytes.
pub fn key_id(public_key: &[u8]) -> String {
    let digest = Sha256::digest(public_key);
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// What the signature check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignatureCheck {
    /// Signed by this key, over this very log's end.
    Signed { key_id: String },
    /// No signature (a log still running, or written before signing existed).
    Unsigned,
    /// Why the log cannot be trusted as written by its signer, and the event it concerns.
    Failed { reason: String, seq: Option<u64> },
}

impl SignatureCheck {
    pub fn line(&self) -> String {
        match self {
            SignatureCheck::Signed { key_id } => format!("signed by {key_id}"),
            SignatureCheck::Unsigned => "not signed: the log does not prove its author".into(),
            SignatureCheck::Failed { reason, .. } => reason.clone(),
        }
    }
}

/// Checks `signature` against the log (`debate_id`, `events`). With `pinned` (a public key in
/// hex, or a key id) the log must be signed by that key.
pub fn check_signature(
    debate_id: &str,
    events: &[Event],
    signature: Option<&LogSignature>,
    pinned: Option<&str>,
) -> SignatureCheck {
    let fail = |reason: String, seq: Option<u64>| SignatureCheck::Failed { reason, seq };
    let Some(sig) = signature else {
        return match pinned {
            Some(p) => fail(
                format!("not signed, but a signature by the pinned key {p} is required"),
                None,
            ),
            None => SignatureCheck::Unsigned,
        };
    };
    let Some(key_bytes) = hex32(&sig.public_key) else {
        return fail(
            "the signature's public key is not 32 bytes of hex".into(),
            None,
        );
    };
    let id = key_id(&key_bytes);
    if id != sig.key_id {
        return fail(
            format!(
                "the signature names key {} but carries key {id}",
                sig.key_id
            ),
            None,
        );
    }
    if let Some(p) = pinned.map(str::trim) {
        if !p.eq_ignore_ascii_case(&sig.public_key) && !p.eq_ignore_ascii_case(&id) {
            return fail(format!("signed by {id}, not by the pinned key {p}"), None);
        }
    }
    let Some(last) = events.last() else {
        return fail("a signed log with no events".into(), None);
    };
    if last.seq < sig.seq {
        return fail(
            format!(
                "tampered: the log was cut off; it ends at event {} but its signature covers \
                 event {}",
                last.seq, sig.seq
            ),
            Some(last.seq),
        );
    }
    if last.seq > sig.seq {
        return fail(
            format!(
                "tampered: events after the signed end (event {}) were added",
                sig.seq
            ),
            Some(sig.seq + 1),
        );
    }
    if !last.hash.eq_ignore_ascii_case(&sig.hash) {
        return fail(
            format!(
                "tampered at event {}: its hash is not the one the server signed (the log was \
                 edited and re-hashed)",
                last.seq
            ),
            Some(last.seq),
        );
    }
    let (Ok(key), Some(raw)) = (
        VerifyingKey::from_bytes(&key_bytes),
        hex_bytes(&sig.signature).filter(|b| b.len() == 64),
    ) else {
        return fail("the signature or its key is malformed".into(), None);
    };
    let mut bytes = [0u8; 64];
    bytes.copy_from_slice(&raw);
    let signed = Signature::from_bytes(&bytes);
    match key.verify(&message(debate_id, sig.seq, &sig.hash), &signed) {
        Ok(()) => SignatureCheck::Signed { key_id: id },
        Err(_) => fail(
            format!("the signature by {id} does not match this log (forged, or another debate's)"),
            Some(sig.seq),
        ),
    }
}

fn hex32(s: &str) -> Option<[u8; 32]> {
    let b = hex_bytes(s)?;
    b.try_into().ok()
}

pub fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
