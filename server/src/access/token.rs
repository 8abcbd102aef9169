//! Secrets: random tokens and session ids from the OS's CSPRNG (256 bits), stored only as their
//! SHA-256 hashes, compared in constant time.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// What a judge's token starts with, so a leaked one is recognisable (and secret scanners find it).
pub const JUDGE_PREFIX: &str = "cj_";
/// What a session cookie's value starts with.
pub const SESSION_PREFIX: &str = "cs_";

/// A fresh secret: `prefix` then 64 hex digits (256 random bits).
pub fn new_secret(prefix: &str) -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!("{prefix}{}", hex(&bytes)))
}

/// The hex SHA-256 of a secret: what the database keeps.
pub fn hash(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// True when `secret` hashes to `stored`, without an early exit on the first differing byte.
pub fn matches(secret: &str, stored: &str) -> bool {
    hash(secret).as_bytes().ct_eq(stored.as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_random_and_only_their_hash_matches() {
        let a = new_secret(JUDGE_PREFIX).expect("rng");
        let b = new_secret(JUDGE_PREFIX).expect("rng");
        assert_ne!(a, b);
        assert_eq!(a.len(), 3 + 64);
        assert!(a.starts_with("cj_"));
        let stored = hash(&a);
        assert_eq!(stored.len(), 64);
        assert!(matches(&a, &stored));
        assert!(!matches(&b, &stored));
        assert!(!matches(&stored, &stored), "the hash itself is not a token");
    }
}
