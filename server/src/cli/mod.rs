//! The `consilium` command line: `serve` (the default), `eval`, `judge`, `track-record` and
//! `verify`. The benchmarks are a binary of their own, `consilium-bench` (src/bin).

// Declared first: its `out!`/`outln!` macros are used by every command below.
#[macro_use]
pub mod out;

mod error;
pub mod eval;
mod exposure;
pub mod judge;
pub mod serve;
mod serve_args;
pub mod track_record;
pub mod verify;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub use error::CliError;
pub use serve::serve;
pub use serve_args::ServeArgs;

#[derive(Parser, Debug)]
#[command(
    name = "consilium",
    version,
    about = "Structured debates between AI agents, live in the browser"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub serve: ServeArgs,
}

#[derive(Subcommand, Debug)]
#[allow(clippy::large_enum_variant)] // parsed once at start
pub enum Command {
    /// Serve the web app and the API (the default).
    Serve(ServeArgs),
    /// QL-2: one agent vs self-consistency vs debate on a task set, on a real model.
    Eval(eval::EvalArgs),
    /// Manage judges (SV-7): add, list, remove, rotate.
    Judge(judge::JudgeArgs),
    /// The agents' track record: import outcomes, or the labelled sample history.
    TrackRecord(track_record::TrackRecordArgs),
    /// Check an exported log: its hash chain, the decision recomputed from the logged votes, and
    /// the server's signature over its end. Exits 0 only when all hold (an unsigned log fails
    /// unless --allow-unsigned).
    Verify {
        /// A `.json` export (or `GET /api/debates/{id}` body) on disk, or an http:// or https://
        /// URL of one.
        source: String,
        /// A PEM file of extra trusted root certificates (a private CA) for an https:// source.
        #[arg(long, env = "CONSILIUM_CA_CERT")]
        ca_cert: Option<PathBuf>,
        /// Require the log to be signed by this key: the whole Ed25519 public key (from the
        /// server's `GET /api/keys`), as 64 hex digits or base64, or a file holding it. A key id
        /// names a key but does not pin it, so it is refused here.
        #[arg(long)]
        key: Option<String>,
        /// Accept a log that carries no signature (one written before logs were signed): its
        /// chain and decision still verify, but nothing proves who wrote it.
        #[arg(long)]
        allow_unsigned: bool,
        /// FK-2: a fork's parent, as a `.json` export on disk or an http(s) URL: the fork's
        /// copied events and the hash it names are checked against it (the parent's own export
        /// is checked too). Without it, a fork's copied prefix is reported unchecked.
        #[arg(long)]
        parent: Option<String>,
    },
}

pub async fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        None => serve(cli.serve).await,
        Some(Command::Serve(args)) => serve(args).await,
        Some(Command::Judge(args)) => judge::run(args).await,
        Some(Command::Eval(args)) => eval::run(args).await,
        Some(Command::TrackRecord(args)) => track_record::run(args).await,
        Some(Command::Verify {
            source,
            ca_cert,
            key,
            allow_unsigned,
            parent,
        }) => {
            verify::run(
                &source,
                ca_cert.as_deref(),
                key.as_deref(),
                allow_unsigned,
                parent.as_deref(),
            )
            .await
        }
    }
}
