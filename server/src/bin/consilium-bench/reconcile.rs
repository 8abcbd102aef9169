//! `consilium-bench reconcile`: RC's speed — seed 003's conflicting
//! observations reconciled end to end with the builtin agents (embedding, topics, one
//! reconciler answer per topic, every event sequenced and hashed, the log recomputed as
//! `verify` does), and 500 observations embedded and clustered. Figures are printed, never
//! asserted.

use std::time::{Duration, Instant};

use app::protocol::chain::{recompute_decision, verify_chain};
use app::protocol::reconcile::quantise;
use app::protocol::reconcile::{
    cluster, parse_observations, RcConfig, RcDebate, RcParams, EXAMPLE,
};
use app::protocol::{Debate, DebateRun, Start};
use clap::Args;

use server::agents::builtin::BuiltinAgents;
use server::cli::CliError;
use server::drive::{drive, Sequencer, Timing};
use server::outln;

#[derive(Args, Debug, Clone)]
pub struct RcBenchArgs {
    /// Reconciliations of the five-observation set timed (the median is printed).
    #[arg(long, default_value_t = 200)]
    pub runs: u32,
    /// Observations embedded and clustered in the large run.
    #[arg(long, default_value_t = 500)]
    pub observations: usize,
}

fn bench_err(e: impl std::fmt::Display) -> CliError {
    CliError::Bench(e.to_string())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

pub async fn run(args: &RcBenchArgs) -> Result<(), CliError> {
    server::embed::shared()?;
    outln!("consilium-bench reconcile — RC with the builtin embedder and reconciler");
    five(args.runs).await?;
    many(args.observations)
}

/// Seed 003's five conflicting observations, reconciled `runs` times.
async fn five(runs: u32) -> Result<(), CliError> {
    // Five conflicting observations: the meeting, the revenue rumour and the project.
    let all: serde_json::Value = serde_json::from_str(EXAMPLE).map_err(bench_err)?;
    let five: Vec<serde_json::Value> = all
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|o| {
                    ["o1", "o2", "o5", "o6", "o7"].contains(&o["id"].as_str().unwrap_or(""))
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let observations = parse_observations(&serde_json::Value::Array(five)).map_err(bench_err)?;
    let timing = Timing {
        pace: Duration::ZERO,
        limit: Duration::from_secs(30),
    };
    let mut times = Vec::new();
    let mut verify_times = Vec::new();
    let mut events = 0;
    for i in 0..runs.max(1) {
        let config = RcConfig {
            params: RcParams::default(),
            observations: observations.clone(),
            from_debates: Vec::new(),
        };
        let started = Instant::now();
        let machine =
            RcDebate::new("What do we believe?", config, u64::from(i)).map_err(bench_err)?;
        let mut run = DebateRun::start(Debate::Reconcile(Box::new(machine)), Start::default());
        let mut log = Vec::new();
        drive(
            &mut run,
            &BuiltinAgents::new(1),
            &mut log,
            &mut Sequencer::new(),
            timing,
            None,
        )
        .await?;
        times.push(started.elapsed());
        events = log.len();
        let checked = Instant::now();
        verify_chain(&log).map_err(bench_err)?;
        recompute_decision(&log).map_err(bench_err)?;
        verify_times.push(checked.elapsed());
    }
    outln!(
        "5 conflicting observations: {} runs, {events} events each → median {:.2} ms to reconcile (one embedding request, 3 topics, one reconciler answer per topic of two, every event sequenced and hashed); {:.2} ms to recompute the log as verify does",
        times.len(),
        median(times).as_secs_f64() * 1e3,
        median(verify_times).as_secs_f64() * 1e3
    );
    Ok(())
}

/// `n` observations (varied sentences over 50 subjects) embedded and clustered.
fn many(n: usize) -> Result<(), CliError> {
    let n = n.max(1);
    let subjects = [
        "the quarterly revenue",
        "the team meeting",
        "the product launch",
        "the server outage",
        "the hiring plan",
        "the office move",
        "the marketing budget",
        "the customer churn",
        "the supplier contract",
        "the security audit",
    ];
    let verbs = ["is", "was reported as", "looks", "is said to be", "seems"];
    let states = [
        "up 10%",
        "delayed",
        "on track",
        "cancelled",
        "ahead of plan",
    ];
    let texts: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "{} of region {} {} {}",
                subjects[i % subjects.len()],
                (i / subjects.len()) % 5 + 1,
                verbs[(i / 7) % verbs.len()],
                states[(i / 3) % states.len()]
            )
        })
        .collect();
    let embedder = server::embed::shared()?;
    let started = Instant::now();
    // Encoded as a reconciliation's embedder call is, in one batch; the cache is bypassed, so
    // repeated runs time the encoder itself.
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors: Vec<Vec<i16>> = embedder
        .encode_uncached(&refs)
        .iter()
        .map(|v| quantise(v).unwrap_or_default())
        .collect();
    let embedded = started.elapsed();
    let obs: Vec<serde_json::Value> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| serde_json::json!({"id": format!("o{i}"), "agent": format!("agent_{}", i % 7), "content": t, "timestamp": "2026-01-05T09:00:00Z"}))
        .collect();
    let obs = parse_observations(&serde_json::Value::Array(obs)).map_err(bench_err)?;
    let started = Instant::now();
    let topics = cluster(&obs, &vectors, &RcParams::default());
    let clustered = started.elapsed();
    outln!(
        "{n} observations: embedded in {:.1} ms (the builtin encoder, all-MiniLM-L6-v2), clustered into {} topics in {:.1} ms",
        embedded.as_secs_f64() * 1e3,
        topics.len(),
        clustered.as_secs_f64() * 1e3
    );
    Ok(())
}
