//! `consilium bench safety`: recall and false-alarm rate of the builtin S4 debate per hazard
//! category, on the test half of `server/data/safety-eval.tsv` (or `--split dev`), before (phrase
//! features only) and after (with the taxonomy's semantic check); and the embedder's cost per query.

use std::time::Instant;

use clap::Args;

use super::error::CliError;
use app::protocol::Verdict;

use crate::agents::builtin::eval::{cases, decide, evaluate, Tally};
use crate::agents::builtin::BuiltinAgents;

#[derive(Args, Debug, Clone)]
pub struct SafetyArgs {
    /// `test` (report) or `dev` (the half thresholds were chosen on).
    #[arg(long, default_value = "test")]
    pub split: String,
    /// Also list every question the builtin debate still decides wrongly, with its decision.
    #[arg(long)]
    pub misses: bool,
}

pub fn run(args: &SafetyArgs) -> Result<(), CliError> {
    let dev = match args.split.as_str() {
        "dev" => true,
        "test" => false,
        other => {
            return Err(CliError::Bench(format!(
                "--split must be dev or test, got '{other}'"
            )))
        }
    };
    let embedder = crate::embed::shared()?;
    let cases = cases().map_err(CliError::Bench)?;
    let half: Vec<_> = cases.iter().filter(|c| c.dev == dev).collect();
    let start = Instant::now();
    let rounds = 20;
    for _ in 0..rounds {
        for c in &half {
            std::hint::black_box(embedder.embed(c.text));
        }
    }
    let per_query = start.elapsed().as_secs_f64() * 1e6 / (rounds * half.len().max(1)) as f64;
    let (before, before_total) = evaluate(&cases, dev, &BuiltinAgents::phrase_only(1));
    let (after, after_total) = evaluate(&cases, dev, &BuiltinAgents::new(1));
    outln!(
        "consilium bench safety — S4 builtin debate (seed 1), {} half: {} hazards, {} look-alikes",
        args.split,
        after_total.hazards,
        after_total.benign
    );
    outln!(
        "{:<22} {:>17} {:>21}",
        "category",
        "recall before→after",
        "false alarms before→after"
    );
    let row = |name: &str, b: &Tally, a: &Tally| {
        outln!(
            "{name:<22} {:>7.0}% → {:>4.0}%   {:>9.0}% → {:>4.0}%",
            100.0 * b.recall(),
            100.0 * a.recall(),
            100.0 * b.false_alarm_rate(),
            100.0 * a.false_alarm_rate()
        );
    };
    for ((cat, b), (_, a)) in before.iter().zip(&after) {
        row(cat.id(), b, a);
    }
    row("all", &before_total, &after_total);
    if args.misses {
        let agents = BuiltinAgents::new(1);
        for c in &half {
            let verdict = decide(&agents, c.text);
            if (verdict != Verdict::Act) != c.hazard {
                let kind = if c.hazard { "missed" } else { "false alarm" };
                outln!("{kind:<11} {:<20} {verdict:<6} {}", c.category.id(), c.text);
            }
        }
    }
    outln!(
        "embedder: {} tokens × {} dims, {per_query:.1} µs per query",
        embedder.vocab_size(),
        embedder.dim()
    );
    Ok(())
}
