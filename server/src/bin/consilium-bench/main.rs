//! `consilium-bench`: the figures of docs/PERFORMANCE.md, measured apart from the product. It
//! runs the server's own code in-process (the per-turn overhead, the builtin agents' safety and
//! topics, reconciliation, credibility) or drives a running server over HTTP (`load`). Built
//! beside `consilium` but never inside it: the production binary carries no benchmark.

mod credibility;
mod forks;
mod load;
mod reconcile;
mod safety;
mod topics;
mod turns;

use clap::Parser;
use server::cli::CliError;

#[derive(Parser, Debug)]
#[command(
    name = "consilium-bench",
    version,
    about = "Consilium's benchmarks: without a suite, many S4 debates in-process and the \
             orchestration overhead per agent turn"
)]
struct Cli {
    #[command(flatten)]
    turns: turns::BenchArgs,
    #[command(subcommand)]
    suite: Option<Suite>,
}

#[derive(clap::Subcommand, Debug)]
enum Suite {
    /// Recall and false alarms of the builtin agents per hazard category.
    Safety(safety::SafetyArgs),
    /// Time to compute an agent's credibility (CR-1) over a long record.
    Credibility(credibility::CredibilityArgs),
    /// RC: five conflicting observations reconciled, 500 clustered.
    Reconcile(reconcile::RcBenchArgs),
    /// RC-1: same-topic precision and recall on the labelled topics set.
    Topics(topics::TopicsArgs),
    /// FK-1/FK-4 on a running server: a fork of a 5,000-event debate stored and streamed, and 20
    /// forks of an S4 debate by seed.
    Forks(forks::ForksArgs),
    /// Start debates on a running server, watch them with many live viewers at once, and print
    /// what they saw: exact logs, connect times, live latency percentiles, server memory.
    Load(load::LoadArgs),
}

/// `--split`: which half of an evaluation set a suite reports on — `dev`, on which settings are
/// chosen, or `test`, held out.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    Dev,
    Test,
}

impl Split {
    pub fn is_dev(self) -> bool {
        self == Split::Dev
    }

    pub fn name(self) -> &'static str {
        match self {
            Split::Dev => "dev",
            Split::Test => "test",
        }
    }
}

async fn run(cli: Cli) -> Result<(), CliError> {
    match cli.suite {
        None => turns::run(cli.turns).await,
        Some(Suite::Safety(args)) => safety::run(&args),
        Some(Suite::Credibility(args)) => credibility::run(&args).await,
        Some(Suite::Reconcile(args)) => reconcile::run(&args).await,
        Some(Suite::Topics(args)) => topics::run(&args).await,
        Some(Suite::Load(args)) => load::run(args).await,
        Some(Suite::Forks(args)) => forks::run(&args).await,
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run(Cli::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("consilium-bench: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
