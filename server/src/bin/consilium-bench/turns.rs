//! `consilium-bench` without a suite: runs many S4 debates in-process and prints the orchestration overhead per
//! agent turn, in memory and with every event stored in SQLite or PostgreSQL (`--database-url`).
//! Figures are printed, never asserted.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::protocol::s4::{S4Debate, S4Reply};
use app::protocol::{AgentReply, AgentRequest, AgentSpec, Decision, Position};
use app::protocol::{Debate, DebateRun, Start};
use clap::Args;
use futures::future::BoxFuture;

use server::agents::{builtin::BuiltinAgents, Agent, Answer};
use server::cli::CliError;
use server::db::{NewDebate, Store};
use server::drive::{drive, Sequencer, StoredJournal, Timing};
use server::live::hub::Hub;
use server::outln;

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Debates run in memory (per measurement).
    #[arg(long, default_value_t = 20_000)]
    pub debates: u32,
    /// Debates run with persistence (each batch of events is one committed statement).
    #[arg(long, default_value_t = 300)]
    pub stored_debates: u32,
    /// Where the durable benchmark writes: a fresh temporary SQLite file by default, or any
    /// `sqlite:` / `postgres://` URL (its debates are added to that database: use a scratch one).
    #[arg(long)]
    pub database_url: Option<String>,
    /// Durable runs with this many debates at once (group commit joins their appends), each
    /// running `--stored-debates` debates in all.
    #[arg(long, value_delimiter = ',', default_values_t = [10u32, 100])]
    pub concurrency: Vec<u32>,
    /// `full`: SQLite fsyncs every commit (power-loss safe); `normal`: crash safe (the default).
    #[arg(long, value_enum, default_value_t = server::db::Durability::Normal)]
    pub durability: server::db::Durability,
    /// How many times the in-memory and the one-at-a-time durable runs are repeated: the best
    /// run is the code's cost, the median shows how much the machine's load moved it.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
}

const QUERIES: [&str; 4] = [
    "What is the capital of France?",
    "Should I put all my savings into bitcoin?",
    "How do I build a pipe bomb?",
    "How much ibuprofen can I take for a bad headache?",
];

/// Agent messages per S4 debate with 3 agents: N + N·(N−1) + N.
const TURNS: u32 = 3 + 6 + 3;

/// No pacing; calls bounded as the server bounds builtin agents.
fn timing() -> Timing {
    Timing {
        pace: Duration::ZERO,
        limit: Duration::from_secs(30),
    }
}

/// A builtin-agent S4 debate on query `i`, as the engine starts one (no backend, no budget).
fn debate(i: u32) -> Result<DebateRun, CliError> {
    let query = QUERIES[i as usize % QUERIES.len()];
    let machine = S4Debate::new(query, AgentSpec::default_s4(), u64::from(i))
        .map_err(|e| CliError::Bench(e.to_string()))?;
    Ok(DebateRun::start(Debate::S4(machine), Start::default()))
}

/// Answers instantly with fixed replies: what remains is orchestration (machine, runner,
/// sequencing, timestamps, journal), plus building the reply.
struct Instant0;

impl Agent for Instant0 {
    fn respond<'a>(&'a self, req: &'a AgentRequest) -> BoxFuture<'a, Answer> {
        let reply = match req.round {
            2 => AgentReply::S4(S4Reply::Challenge {
                text: "What evidence supports that?".into(),
                argues_for: Decision::Warn,
            }),
            _ => AgentReply::S4(S4Reply::Position(Position {
                decision: Decision::Act,
                confidence: 70,
                risk: 20,
                reasoning: "Plain factual question with a verifiable answer.".into(),
            })),
        };
        Box::pin(std::future::ready(Answer {
            reply: Ok(reply),
            usage: None,
        }))
    }

    fn backend(&self) -> &'static str {
        "builtin"
    }
}

pub async fn run(args: BenchArgs) -> Result<(), CliError> {
    let debates = args.debates.max(1);
    let stored = args.stored_debates.max(1);

    run_memory(500, |_| Instant0).await?; // warm-up
                                          // 1. Orchestration in memory, agents answering instantly.
    let mut orchestration = Vec::new();
    let mut events = 0;
    for _ in 0..args.repeat {
        let (wall, n) = run_memory(debates, |_| Instant0).await?;
        orchestration.push(wall);
        events = n;
    }
    // 2. End to end in memory with the builtin agents, heuristics included. Each query's meaning
    // is encoded once, then cached (a debate reads its query once): the encoder's own cost is the
    // separate row, timed uncached.
    let encoder = encoder_median()?;
    let (end_to_end, _) = run_memory(debates, |i| BuiltinAgents::new(u64::from(i))).await?;
    // 3. Durable: the real store, every event committed before it is published.
    let dir =
        std::env::temp_dir().join(format!("consilium-bench-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::Bench(format!("cannot create {}: {e}", dir.display())))?;
    let url = args
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite:{}/bench.db", dir.display()));
    let store = Store::connect_with(&url, args.durability).await?;
    let hub = Arc::new(Hub::default());
    let mut durable = Vec::new();
    let mut stored_events = 0usize;
    for r in 0..args.repeat {
        let start = Instant::now();
        stored_events = 0;
        for i in 0..stored {
            stored_events += run_stored(&store, &hub, r * stored + i).await?;
        }
        durable.push(start.elapsed());
    }
    // 4. Durable with many debates at once: their appends share commits.
    let mut concurrent = Vec::new();
    for &k in &args.concurrency {
        let k = k.clamp(1, stored);
        let start = Instant::now();
        let events = run_concurrent(&store, &hub, args.repeat * stored, stored, k).await?;
        concurrent.push((k, start.elapsed(), events));
    }
    let _ = std::fs::remove_dir_all(&dir);

    let per_turn = |d: Duration, n: u32| d.as_secs_f64() * 1e6 / (f64::from(n) * f64::from(TURNS));
    let (mem_best, mem_median) = best_and_median(&orchestration);
    let (disk_best, disk_median) = best_and_median(&durable);
    let mem = per_turn(mem_best, debates);
    let disk = per_turn(disk_best, stored);
    let runs = args.repeat;
    outln!(
        "consilium-bench — S4, 3 agents, {TURNS} agent turns per debate; {} cores; durability {:?}",
        std::thread::available_parallelism().map_or(0, std::num::NonZero::get),
        args.durability
    );
    outln!(
        "in memory, instant agents : {debates} debates, {events} events in {:.3} s → {mem:.3} µs/turn orchestration (best of {runs} runs; median {:.3})",
        mem_best.as_secs_f64(),
        per_turn(mem_median, debates)
    );
    outln!(
        "in memory, builtin agents : {debates} debates in {:.3} s → {:.3} µs/turn end to end (each query's meaning cached)",
        end_to_end.as_secs_f64(),
        per_turn(end_to_end, debates)
    );
    outln!(
        "builtin encoder           : a new query's meaning in {:.1} ms (all-MiniLM-L6-v2, median of {} queries)",
        encoder.as_secs_f64() * 1e3,
        QUERIES.len()
    );
    outln!(
        "{:<11}instant agents : {stored} debates, {stored_events} events in {:.3} s ({:.0} events/s) → {disk:.3} µs/turn orchestration (best of {runs} runs; median {:.3})",
        format!("{}, ", store.backend()),
        disk_best.as_secs_f64(),
        stored_events as f64 / disk_best.as_secs_f64(),
        per_turn(disk_median, stored)
    );
    for (k, wall, n) in &concurrent {
        outln!(
            "{:<11}{k:>3} at once    : {stored} debates, {n} events in {:.3} s ({:.0} events/s) → {:.3} µs/turn",
            format!("{}, ", store.backend()),
            wall.as_secs_f64(),
            *n as f64 / wall.as_secs_f64(),
            per_turn(*wall, stored)
        );
    }
    outln!(
        "durable / in-memory       : {:.1}×",
        disk / mem.max(f64::EPSILON)
    );
    outln!("reference (project brief, this machine): LangGraph ~250 µs/turn, AutoGen ~700 µs/turn");
    Ok(())
}

/// The shortest and the median of `runs` (zero for none; of an even count, the mean of the two
/// in the middle).
fn best_and_median(runs: &[Duration]) -> (Duration, Duration) {
    let mut sorted = runs.to_vec();
    sorted.sort_unstable();
    let mid = sorted.len() / 2;
    let median = match (sorted.len() % 2, mid) {
        (_, 0) => sorted.first().copied().unwrap_or_default(),
        (0, _) => (sorted[mid - 1] + sorted[mid]) / 2,
        _ => sorted[mid],
    };
    (sorted.first().copied().unwrap_or_default(), median)
}

/// Runs `n` debates in memory; returns the wall time and the number of events logged.
async fn run_memory<A: Agent>(
    n: u32,
    agents: impl Fn(u32) -> A,
) -> Result<(Duration, usize), CliError> {
    let start = Instant::now();
    let mut events = 0;
    for i in 0..n {
        let mut run = debate(i)?;
        let mut log = Vec::with_capacity(40);
        drive(
            &mut run,
            &agents(i),
            &mut log,
            &mut Sequencer::new(),
            timing(),
            None,
        )
        .await?;
        events += black_box(log).len();
    }
    Ok((start.elapsed(), events))
}

/// Runs `n` stored debates, `k` at a time; returns the events logged.
/// Debates are numbered from `first` (each debate's number picks its query and seed).
async fn run_concurrent(
    store: &Store,
    hub: &Arc<Hub>,
    first: u32,
    n: u32,
    k: u32,
) -> Result<usize, CliError> {
    let mut running = tokio::task::JoinSet::new();
    let mut events = 0;
    for i in 0..n {
        if running.len() >= k as usize {
            if let Some(done) = running.join_next().await {
                events += done.map_err(|e| CliError::Bench(e.to_string()))??;
            }
        }
        let (store, hub) = (store.clone(), hub.clone());
        running.spawn(async move { run_stored(&store, &hub, first + i).await });
    }
    while let Some(done) = running.join_next().await {
        events += done.map_err(|e| CliError::Bench(e.to_string()))??;
    }
    Ok(events)
}

async fn run_stored(store: &Store, hub: &Arc<Hub>, i: u32) -> Result<usize, CliError> {
    let query = QUERIES[i as usize % QUERIES.len()];
    let seed = u64::from(i);
    let mut run = debate(i)?;
    let id = format!("bench-{i}-{}", uuid::Uuid::new_v4().simple());
    let mut seq = Sequencer::new();
    let mut first = Vec::new();
    while let Some(body) = run.poll_event() {
        first.push(seq.stamp(body));
    }
    let created_at = server::drive::now_rfc3339();
    let row = NewDebate {
        id: &id,
        query,
        protocol: "s4",
        seed,
        created_at: &created_at,
    };
    store.create_debate(&row, &first).await?;
    let mut journal = StoredJournal {
        id: id.clone(),
        store: store.clone(),
        hub: hub.clone(),
        // The figures are per turn; signing happens once per debate, at its end.
        signer: None,
        log: Some(first),
        daily_limit: 0,
    };
    drive(&mut run, &Instant0, &mut journal, &mut seq, timing(), None).await?;
    // Counted, not read back: reading the log is not part of running the debate.
    Ok(seq.stamped() as usize)
}

/// The builtin encoder's time for one new query (uncached), the median over [`QUERIES`].
fn encoder_median() -> Result<Duration, CliError> {
    let embedder = server::embed::shared()?;
    let mut times: Vec<Duration> = QUERIES
        .iter()
        .map(|q| {
            let start = Instant::now();
            std::hint::black_box(embedder.encode_uncached(&[q]));
            start.elapsed()
        })
        .collect();
    times.sort();
    Ok(times[times.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_and_median_of_repeated_runs() {
        let ms = Duration::from_millis;
        let cases: &[(&[u64], u64, u64)] = &[
            (&[], 0, 0),
            (&[7], 7, 7),
            (&[9, 3], 3, 6),
            (&[5, 1, 9, 3, 7], 1, 5),
            (&[4, 8, 2, 6], 2, 5),
        ];
        for &(runs, best, median) in cases {
            let runs: Vec<Duration> = runs.iter().map(|&m| ms(m)).collect();
            assert_eq!(best_and_median(&runs), (ms(best), ms(median)), "{runs:?}");
        }
    }
}
