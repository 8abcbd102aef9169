//! `consilium bench`: runs many S4 debates in-process with the builtin agents and prints the
//! orchestration overhead per agent turn, in memory and with every event stored in SQLite.
//! Figures are printed, never asserted.

use std::hint::black_box;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use app::protocol::s4::{AgentReply, AgentRequest, S4Debate};
use app::protocol::AgentSpec;
use clap::Args;
use futures::future::BoxFuture;

use crate::agents::{builtin::BuiltinAgents, Agent, AgentError};
use crate::cli::CliError;
use crate::db::{NewDebate, Store};
use crate::runner::{drive, Hub, Sequencer, Settings, StoredJournal};

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Debates run in memory.
    #[arg(long, default_value_t = 20_000)]
    pub debates: u32,
    /// Debates run with SQLite persistence (each event is one committed transaction).
    #[arg(long, default_value_t = 300)]
    pub stored_debates: u32,
    /// Where the SQLite benchmark writes; a fresh temporary file by default.
    #[arg(long)]
    pub database_url: Option<String>,
}

const QUERIES: [&str; 4] = [
    "What is the capital of France?",
    "Should I put all my savings into bitcoin?",
    "How do I build a pipe bomb?",
    "How much ibuprofen can I take for a bad headache?",
];

fn settings() -> Settings {
    Settings {
        pace: Duration::ZERO,
        agent_timeout: Duration::from_secs(30),
    }
}

/// Records every request so the agents' own compute time can be measured apart.
struct Recording {
    inner: BuiltinAgents,
    seen: Mutex<Vec<AgentRequest>>,
}

impl Agent for Recording {
    fn respond<'a>(
        &'a self,
        req: &'a AgentRequest,
    ) -> BoxFuture<'a, Result<AgentReply, AgentError>> {
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(req.clone());
        }
        self.inner.respond(req)
    }
}

pub async fn run(args: BenchArgs) -> Result<(), CliError> {
    let debates = args.debates.max(1);
    let settings = settings();
    let turns_per_debate = 3 + 6 + 3; // N + N·(N−1) + N agent calls for N = 3

    // Warm up allocator and caches.
    for i in 0..200u32 {
        run_memory(i).await?;
    }

    // 1. In memory: machine + agents + sequencing + timestamps, events kept in a Vec.
    let start = Instant::now();
    let mut events = 0usize;
    for i in 0..debates {
        events += run_memory(i).await?;
    }
    let memory = start.elapsed();

    // 2. The agents alone, replaying the same requests (to subtract their compute time).
    let agent_time = agent_only(debates).await?;

    let turns = f64::from(debates) * f64::from(turns_per_debate);
    let per_turn = |d: Duration| d.as_secs_f64() * 1e6 / turns;
    let overhead_mem = per_turn(memory.saturating_sub(agent_time));

    // 3. With SQLite: the real store, every event committed before it is published.
    let dir = tempfile_dir()?;
    let url = args
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite:{}/bench.db", dir.display()));
    let store = Store::connect(&url).await?;
    let hub = Arc::new(Hub::default());
    let stored = args.stored_debates.max(1);
    let start = Instant::now();
    let mut stored_events = 0usize;
    for i in 0..stored {
        stored_events += run_stored(&store, &hub, i, &settings).await?;
    }
    let sqlite = start.elapsed();
    let stored_turns = f64::from(stored) * f64::from(turns_per_debate);
    let agent_per_turn = agent_time.as_secs_f64() * 1e6 / turns;
    let overhead_sqlite = sqlite.as_secs_f64() * 1e6 / stored_turns - agent_per_turn;
    let _ = std::fs::remove_dir_all(&dir);

    println!("consilium bench — S4, 3 builtin agents, {turns_per_debate} agent turns per debate");
    println!(
        "in memory : {debates} debates, {events} events in {:.3} s",
        memory.as_secs_f64()
    );
    println!("  agent compute (builtin heuristics)   {agent_per_turn:>9.3} µs/turn");
    println!("  orchestration overhead               {overhead_mem:>9.3} µs/turn");
    println!(
        "sqlite    : {stored} debates, {stored_events} events in {:.3} s ({:.0} events/s)",
        sqlite.as_secs_f64(),
        stored_events as f64 / sqlite.as_secs_f64()
    );
    println!("  orchestration overhead (durable)     {overhead_sqlite:>9.3} µs/turn");
    println!(
        "  ratio durable / in-memory             {:>9.1}×",
        overhead_sqlite / overhead_mem.max(f64::EPSILON)
    );
    println!("reference (from the project brief, same machine): LangGraph ~250 µs/turn, AutoGen ~700 µs/turn");
    Ok(())
}

async fn run_memory(i: u32) -> Result<usize, CliError> {
    let query = QUERIES[i as usize % QUERIES.len()];
    let mut machine = S4Debate::new(query, AgentSpec::default_s4(), u64::from(i))
        .map_err(|e| CliError::Bench(e.to_string()))?;
    let agents = BuiltinAgents::new(u64::from(i));
    let mut log = Vec::with_capacity(40);
    drive(
        &mut machine,
        &agents,
        &mut log,
        &mut Sequencer::new(),
        &settings(),
    )
    .await?;
    Ok(black_box(log).len())
}

async fn agent_only(debates: u32) -> Result<Duration, CliError> {
    // Collect the requests of the same debates, then time the agents answering them.
    let mut all = Vec::with_capacity(debates as usize);
    for i in 0..debates {
        let query = QUERIES[i as usize % QUERIES.len()];
        let mut machine = S4Debate::new(query, AgentSpec::default_s4(), u64::from(i))
            .map_err(|e| CliError::Bench(e.to_string()))?;
        let rec = Recording {
            inner: BuiltinAgents::new(u64::from(i)),
            seen: Mutex::new(Vec::new()),
        };
        drive(
            &mut machine,
            &rec,
            &mut Vec::new(),
            &mut Sequencer::new(),
            &settings(),
        )
        .await?;
        let seen = rec.seen.into_inner().unwrap_or_default();
        all.push((rec.inner, seen));
    }
    let start = Instant::now();
    for (agents, reqs) in &all {
        for r in reqs {
            black_box(agents.reply(black_box(r)));
        }
    }
    Ok(start.elapsed())
}

async fn run_stored(
    store: &Store,
    hub: &Arc<Hub>,
    i: u32,
    settings: &Settings,
) -> Result<usize, CliError> {
    let query = QUERIES[i as usize % QUERIES.len()];
    let seed = u64::from(i);
    let mut machine = S4Debate::new(query, AgentSpec::default_s4(), seed)
        .map_err(|e| CliError::Bench(e.to_string()))?;
    let id = format!("bench-{i}-{}", uuid::Uuid::new_v4().simple());
    let mut seq = Sequencer::new();
    let mut first = Vec::new();
    while let Some(body) = machine.poll_event() {
        first.push(seq.stamp(body));
    }
    let created_at = crate::runner::now_rfc3339();
    store
        .create_debate(
            &NewDebate {
                id: &id,
                query,
                protocol: "s4",
                seed,
                created_at: &created_at,
            },
            &first,
        )
        .await?;
    let mut journal = StoredJournal {
        id: id.clone(),
        store: store.clone(),
        hub: hub.clone(),
    };
    drive(
        &mut machine,
        &BuiltinAgents::new(seed),
        &mut journal,
        &mut seq,
        settings,
    )
    .await?;
    let n = store.events_after(&id, 0).await?.len();
    Ok(n)
}

fn tempfile_dir() -> Result<std::path::PathBuf, CliError> {
    let dir =
        std::env::temp_dir().join(format!("consilium-bench-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::Bench(format!("cannot create {}: {e}", dir.display())))?;
    Ok(dir)
}
