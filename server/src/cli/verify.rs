//! `consilium verify <file-or-url>`: re-checks an exported log with the same `app::audit` code
//! the judge's browser and the offline viewer run (SV-2).

use std::path::Path;

use app::audit::signature::SignatureCheck;
use app::audit::{check_signed, parse_export_full, too_large, Check, MAX_EXPORT_BYTES};

use super::error::CliError;

use app::protocol::shared::CommonEvent;

/// Checks the chain, the decision and the server's signature over the log's end (with `key`,
/// that very key must have signed it). Exits 0 only when all hold; a log without a signature
/// fails unless `allow_unsigned` (SV-16). A fork's lineage is checked against `parent` (FK-2).
pub async fn run(
    source: &str,
    ca_cert: Option<&Path>,
    key: Option<&str>,
    allow_unsigned: bool,
    parent: Option<&str>,
) -> Result<(), CliError> {
    let pinned = key.map(pinned_key).transpose()?;
    let text = load(source, ca_cert).await?;
    let export = parse_export_full(&text).map_err(CliError::Verify)?;
    lineage(&export.events, parent, ca_cert).await?;
    let (checked, signed) = check_signed(&export, pinned.as_deref());
    match checked {
        c @ Check::Verified { .. } => {
            outln!("{}", c.details().join("\n"));
            for line in app::audit::credibility::credibility_lines(&export.events) {
                outln!("{line}");
            }
            match (&signed, &export.signature) {
                (SignatureCheck::Signed { key_id }, Some(sig)) => {
                    outln!("signed by {key_id}: public key {}", sig.public_key);
                    if pinned.is_none() {
                        outln!(
                            "key not pinned: the signature proves the log is unchanged since the \
                             holder of this key signed it, not who holds the key; compare it with \
                             the server's (GET /api/keys) or pass --key"
                        );
                    }
                    Ok(())
                }
                (SignatureCheck::Unsigned, _) if allow_unsigned => {
                    outln!("{} (accepted: --allow-unsigned)", signed.line());
                    Ok(())
                }
                (SignatureCheck::Unsigned, _) => Err(CliError::Verify(format!(
                    "{}: nothing shows who wrote it or that it was not re-hashed after an edit; \
                     pass --allow-unsigned to accept it (a log written before logs were signed)",
                    signed.line()
                ))),
                _ => {
                    outln!("{}", signed.line());
                    Ok(())
                }
            }
        }
        c @ Check::Unfinished { .. } => Err(CliError::Verify(format!(
            "{} ({})",
            c.headline(),
            signed.line()
        ))),
        c => Err(CliError::Verify(c.headline())),
    }
}

/// FK-2: a fork's lineage, against its parent's export when given (whose own chain must verify).
async fn lineage(
    events: &[app::protocol::Event],
    parent: Option<&str>,
    ca_cert: Option<&Path>,
) -> Result<(), CliError> {
    let parent_events = match parent {
        Some(source) => {
            let text = load(source, ca_cert).await?;
            let export = parse_export_full(&text)
                .map_err(|e| CliError::Verify(format!("--parent {source}: {e}")))?;
            app::protocol::chain::verify_chain(&export.events).map_err(|e| {
                CliError::Verify(format!("--parent {source}: its chain does not verify: {e}"))
            })?;
            Some(export.events)
        }
        None => None,
    };
    let is_fork = matches!(
        events.first().map(|e| &e.body),
        Some(app::protocol::EventBody::Common(
            CommonEvent::ForkedFrom { .. }
        ))
    );
    if parent.is_some() && !is_fork {
        return Err(CliError::Verify(
            "--parent: this log is not a fork (it does not open with forked_from)".into(),
        ));
    }
    let lines = app::protocol::run::check_lineage(events, parent_events.as_deref())
        .map_err(|e| CliError::Verify(format!("lineage: {e}")))?;
    for line in lines {
        outln!("{line}");
    }
    Ok(())
}

/// `--key`: the whole public key, as 64 hex digits or base64 of its 32 bytes, or a file holding
/// either; returned as hex. A key id (16 hex digits, 64 bits) is refused: anyone can make a key
/// whose id starts the same way, given time, and only the whole key pins its holder.
fn pinned_key(arg: &str) -> Result<String, CliError> {
    let arg = arg.trim();
    let from_file = std::path::Path::new(arg).is_file();
    let text = if from_file {
        std::fs::read_to_string(arg)
            .map_err(|e| CliError::Verify(format!("--key {arg}: cannot read it: {e}")))?
    } else {
        arg.to_owned()
    };
    let text = text.trim();
    let bytes = if text.len() == 64 && text.chars().all(|c| c.is_ascii_hexdigit()) {
        (0..32)
            .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16))
            .collect::<Result<Vec<u8>, _>>()
            .ok()
    } else {
        base64_32(text)
    };
    match bytes {
        Some(b) if b.len() == 32 => Ok(b.iter().map(|x| format!("{x:02x}")).collect()),
        _ if text.len() == 16 && text.chars().all(|c| c.is_ascii_hexdigit()) => {
            Err(CliError::Verify(format!(
                "--key {text} is a key id: it names a key but does not pin it; give the whole \
                 public key (64 hex digits or base64, from the server's GET /api/keys) or a \
                 file holding it"
            )))
        }
        _ => Err(CliError::Verify(format!(
            "--key {}: not an Ed25519 public key (64 hex digits, or base64 of 32 bytes){}",
            if from_file { "the file" } else { "the value" },
            if from_file {
                format!(" in {arg}")
            } else {
                String::new()
            }
        ))),
    }
}

/// Base64 (standard or URL-safe alphabet, padded or not) of exactly 32 bytes.
fn base64_32(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        })
    };
    let body = text.trim_end_matches('=');
    if body.len() != 43 {
        return None;
    }
    let mut bits = 0u32;
    let mut held = 0;
    let mut out = Vec::with_capacity(32);
    for c in body.bytes() {
        bits = (bits << 6) | digit(c)?;
        held += 6;
        if held >= 8 {
            held -= 8;
            out.push(u8::try_from((bits >> held) & 0xff).ok()?);
        }
    }
    // 43 digits carry 258 bits: the last 2 must be zero padding.
    (bits & ((1 << held) - 1) == 0 && out.len() == 32).then_some(out)
}

async fn load(source: &str, ca_cert: Option<&Path>) -> Result<String, CliError> {
    if source.starts_with("http://") || source.starts_with("https://") {
        let fail = |e: String| CliError::Verify(format!("cannot fetch {source}: {e}"));
        let resp = crate::outbound::client(ca_cert)?
            .get(source)
            .send()
            .await
            .map_err(|e| fail(crate::agents::remote::root_cause(&e)))?;
        if !resp.status().is_success() {
            return Err(fail(format!("HTTP {}", resp.status())));
        }
        // Read at most the limit (and a byte more, to know it was exceeded).
        let mut resp = resp;
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| fail(e.to_string()))? {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_EXPORT_BYTES {
                return Err(CliError::Verify(too_large(body.len())));
            }
        }
        utf8(source, body)
    } else {
        let size = std::fs::metadata(source)
            .map_err(|e| CliError::Verify(format!("cannot read {source}: {e}")))?
            .len();
        if size > MAX_EXPORT_BYTES as u64 {
            return Err(CliError::Verify(too_large(size as usize)));
        }
        let bytes = std::fs::read(source)
            .map_err(|e| CliError::Verify(format!("cannot read {source}: {e}")))?;
        utf8(source, bytes)
    }
}

fn utf8(source: &str, bytes: Vec<u8>) -> Result<String, CliError> {
    String::from_utf8(bytes).map_err(|e| {
        CliError::Verify(format!(
            "{source} is not UTF-8 text (invalid byte at offset {}): not an export",
            e.utf8_error().valid_up_to()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::{base64_32, pinned_key};

    #[test]
    fn a_key_is_pinned_whole_sv_16() {
        let hex = "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29";
        let b64 = "O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik=";
        let table: [(&str, Option<&str>); 6] = [
            (hex, Some(hex)),
            (b64, Some(hex)),
            (b64.trim_end_matches('='), Some(hex)),
            ("3b6a27bcceb6a42d", None), // a key id: refused
            ("not a key", None),
            ("O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2i", None), // 31.5 bytes
        ];
        for (arg, want) in table {
            assert_eq!(pinned_key(arg).ok().as_deref(), want, "{arg}");
        }
        let id = pinned_key("3b6a27bcceb6a42d").expect_err("a key id");
        assert!(id.to_string().contains("does not pin"), "{id}");
        assert!(
            base64_32("O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2il").is_none(),
            "stray bits"
        );
    }
}
