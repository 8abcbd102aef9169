//! `consilium verify <file-or-url>`: re-checks an exported log with the same `app::audit` code
//! the judge's browser and the offline viewer run (SV-2).

use std::path::Path;

use app::audit::{check_signed, parse_export_full, too_large, Check, MAX_EXPORT_BYTES};

use super::error::CliError;

/// Checks the chain, the decision and the server's signature over the log's end
/// (with `key`, that key must have signed it). Exits 0 only when all hold.
pub async fn run(source: &str, ca_cert: Option<&Path>, key: Option<&str>) -> Result<(), CliError> {
    let text = load(source, ca_cert).await?;
    let export = parse_export_full(&text).map_err(CliError::Verify)?;
    let (checked, signed) = check_signed(&export, key);
    match checked {
        c @ Check::Verified { .. } => {
            outln!("{}", c.details().join("\n"));
            for line in app::audit::credibility::credibility_lines(&export.events) {
                outln!("{line}");
            }
            outln!("{}", signed.line());
            Ok(())
        }
        c @ Check::Unfinished { .. } => Err(CliError::Verify(format!(
            "{} ({})",
            c.headline(),
            signed.line()
        ))),
        c => Err(CliError::Verify(c.headline())),
    }
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
