//! `consilium-bench credibility`: how long CR-1 takes on a long record — the pure
//! function over N points in memory, and the whole path the server takes (read the record from
//! a real SQLite file, then compute).

use std::time::Instant;

use app::protocol::credibility::{credibility, ContextTags, CrParams, Point};
use app::protocol::time;
use clap::Args;

use server::cli::CliError;
use server::db::Store;
use server::outln;
use server::record::{breakdown_of, sample};

#[derive(Args, Debug, Clone)]
pub struct CredibilityArgs {
    /// Predictions with outcomes in the record.
    #[arg(long, default_value_t = 10_000)]
    pub points: usize,
    /// Repetitions of the in-memory computation.
    #[arg(long, default_value_t = 200)]
    pub runs: u32,
}

pub async fn run(args: &CredibilityArgs) -> Result<(), CliError> {
    let now = server::drive::now_rfc3339();
    let today = time::days(&now).unwrap_or(0.0);
    let n = args.points.max(1);
    // A record like the sample's, stretched to n points over four years, two regimes, contexts.
    let points: Vec<Point> = (0..n)
        .map(|i| Point {
            at: today - 1461.0 * (i as f64) / (n as f64),
            correct: (i * 7919) % 10 < 7,
            overridden: i % 17 == 0,
            tags: ContextTags {
                regime: Some(if i % 3 == 0 { "bear" } else { "bull" }.into()),
                sector: Some(["tech", "energy", "health"][i % 3].into()),
                ..ContextTags::default()
            },
        })
        .collect();
    let ctx = ContextTags {
        regime: Some("bear".into()),
        sector: Some("energy".into()),
        ..ContextTags::default()
    };
    let params = CrParams::default();
    let runs = args.runs.max(1);
    let start = Instant::now();
    let mut score = 0.0;
    for _ in 0..runs {
        score += credibility(&points, today, &ctx, &params)
            .credibility
            .score
            .unwrap_or(0.0);
    }
    let per = start.elapsed() / runs;
    outln!(
        "CR-1 over {n} points in memory: {:.3} ms per computation (mean of {runs}; score {:.3})",
        per.as_secs_f64() * 1e3,
        score / f64::from(runs)
    );

    // The server's path: the record in a real SQLite file, read and computed.
    let dir = std::env::temp_dir().join(format!(
        "consilium-bench-cr-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| CliError::Bench(e.to_string()))?;
    let url = format!("sqlite:{}", dir.join("bench.db").display());
    let store = Store::connect(&url).await?;
    let mut text = String::new();
    while text.lines().count() < n {
        text.push_str(&sample::generate(text.len() as u64, &now));
    }
    let text: String = text
        .lines()
        .take(n)
        .map(|l| l.replace("builtin:", "bench:"))
        .collect::<Vec<_>>()
        .join("\n");
    server::record::import::import(&store, &text, "import", "bench").await?;
    let identity = "bench:safety";
    let reads = 5;
    let start = Instant::now();
    let mut count = 0;
    for _ in 0..reads {
        let (b, _) = breakdown_of(&store, identity, &now, &ctx, &params).await?;
        count = b.credibility.points;
    }
    let per = start.elapsed() / reads;
    outln!(
        "read from SQLite and computed ({count} points of {identity} among {n} predictions): {:.1} ms",
        per.as_secs_f64() * 1e3
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
