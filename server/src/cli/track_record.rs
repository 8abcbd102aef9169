//! `consilium track-record import FILE.jsonl | --sample` and `consilium track-record sample`:
//! bring outcomes in from elsewhere, or the labelled sample history.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::error::CliError;
use crate::db::Store;
use crate::record::{import, sample};

#[derive(Args, Debug)]
pub struct TrackRecordArgs {
    /// The database the server uses (the record lives beside the debates).
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite:data/consilium.db")]
    pub database_url: String,
    #[command(subcommand)]
    pub command: TrackRecordCommand,
}

#[derive(Subcommand, Debug)]
pub enum TrackRecordCommand {
    /// Imports predictions and outcomes from a JSON Lines file (schema in the README): every
    /// line is checked first; one bad line imports nothing.
    Import {
        /// The file to import.
        #[arg(required_unless_present = "sample", conflicts_with = "sample")]
        file: Option<PathBuf>,
        /// Imports the bundled sample history for the builtin agents (labelled as sample data).
        #[arg(long)]
        sample: bool,
    },
    /// Prints the sample history (what `import --sample` imports) as JSON Lines.
    Sample {
        #[arg(long, default_value_t = sample::SEED)]
        seed: u64,
    },
}

pub async fn run(args: TrackRecordArgs) -> Result<(), CliError> {
    let now = crate::drive::now_rfc3339();
    match args.command {
        TrackRecordCommand::Sample { seed } => {
            use std::io::Write as _;
            // A closed pipe (`| head`) is not an error.
            let _ = std::io::stdout().write_all(sample::generate(seed, &now).as_bytes());
            Ok(())
        }
        TrackRecordCommand::Import { file, sample: true } => {
            let _ = file;
            let store = Store::connect(&args.database_url).await?;
            let text = sample::generate(sample::SEED, &now);
            let done = import::import(&store, &text, "sample", "sample").await?;
            outln!(
                "imported the sample history: {} predictions, {} with outcomes (labelled as sample data)",
                done.predictions, done.outcomes
            );
            Ok(())
        }
        TrackRecordCommand::Import {
            file,
            sample: false,
        } => {
            let Some(path) = file else {
                return Err(CliError::Import("give a FILE.jsonl or --sample".into()));
            };
            let text = std::fs::read_to_string(&path)
                .map_err(|e| CliError::Import(format!("cannot read {}: {e}", path.display())))?;
            let store = Store::connect(&args.database_url).await?;
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            let done = import::import(&store, &text, "import", &format!("import:{name}")).await?;
            outln!(
                "imported {}: {} predictions, {} with outcomes",
                path.display(),
                done.predictions,
                done.outcomes
            );
            Ok(())
        }
    }
}
