//! `consilium verify <file-or-url>`: re-checks an exported log with the same `app::audit` code
//! the judge's browser and the offline viewer run (SV-2).

use std::path::Path;

use app::audit::{check, parse_export, Check};

use super::error::CliError;

pub async fn run(source: &str, ca_cert: Option<&Path>) -> Result<(), CliError> {
    let text = load(source, ca_cert).await?;
    let events = parse_export(&text).map_err(CliError::Verify)?;
    match check(&events) {
        c @ Check::Verified { .. } => {
            println!("{}", c.details().join("\n"));
            Ok(())
        }
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
        resp.text().await.map_err(|e| fail(e.to_string()))
    } else {
        std::fs::read_to_string(source)
            .map_err(|e| CliError::Verify(format!("cannot read {source}: {e}")))
    }
}
