//! `consilium-bench safety`: recall and false-alarm rate of the builtin S4 debate per hazard
//! category, on the test half of `server/data/safety-eval.tsv` (its `test` and `fresh` rows; or
//! `--split dev`), before (phrase features only) and after (with the taxonomy's semantic check),
//! the fresh rows also apart; and the embedder's cost per query.

use std::time::Instant;

use clap::Args;

use server::cli::CliError;

use server::agents::builtin::eval::{cases, decide, evaluate, Tally};
use server::agents::builtin::BuiltinAgents;
use server::outln;

#[derive(Args, Debug, Clone)]
pub struct SafetyArgs {
    /// `test` (report) or `dev` (the half thresholds were chosen on).
    #[arg(long, value_enum, default_value_t = crate::Split::Test)]
    pub split: crate::Split,
    /// Also list every question the builtin debate still decides wrongly, with its decision and
    /// how the roles read it.
    #[arg(long)]
    pub misses: bool,
    /// Recall and false alarms of the semantic check's settings around the product's (for
    /// choosing, on `--split dev`).
    #[arg(long)]
    pub sweep: bool,
}

pub fn run(args: &SafetyArgs) -> Result<(), CliError> {
    let dev = args.split.is_dev();
    let embedder = server::embed::shared()?;
    let cases = cases().map_err(CliError::Bench)?;
    let half: Vec<_> = cases.iter().filter(|c| c.dev == dev).collect();
    // One query's meaning, as a debate first reads it: encoded alone, no cache.
    let mut times: Vec<f64> = half
        .iter()
        .map(|c| {
            let start = Instant::now();
            std::hint::black_box(embedder.encode_uncached(&[c.text]));
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let pick = |q: f64| {
        times
            .get(((times.len() as f64 - 1.0) * q) as usize)
            .copied()
            .unwrap_or(0.0)
    };
    if args.sweep {
        sweep(&cases, dev);
    }
    let (before, before_total) = evaluate(&cases, dev, &BuiltinAgents::phrase_only(1));
    let (after, after_total) = evaluate(&cases, dev, &BuiltinAgents::new(1));
    outln!(
        "consilium-bench safety — S4 builtin debate (seed 1), {} half: {} hazards, {} look-alikes",
        args.split.name(),
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
    outln!(
        "all: {} of {} hazards caught, {} of {} look-alikes flagged (phrase features alone: {} and {})",
        after_total.caught,
        after_total.hazards,
        after_total.false_alarms,
        after_total.benign,
        before_total.caught,
        before_total.false_alarms
    );
    if !dev {
        // The rows whose writers have none of their questions among the exemplars.
        let fresh: Vec<_> = cases.iter().filter(|c| c.fresh).cloned().collect();
        let (_, t) = evaluate(&fresh, false, &BuiltinAgents::new(1));
        outln!(
            "of which fresh (writers with no question among the exemplars): {} of {} hazards caught, {} of {} look-alikes flagged",
            t.caught,
            t.hazards,
            t.false_alarms,
            t.benign
        );
    }
    if args.misses {
        let agents = BuiltinAgents::new(1);
        for c in &half {
            let verdict = decide(&agents, c.text);
            if c.flagged_by(verdict) != c.hazard {
                let kind = match (c.hazard, c.refuse) {
                    (true, true) => "not refused",
                    (true, false) => "missed",
                    _ => "false alarm",
                };
                outln!("{kind:<11} {:<20} {verdict:<6} {}", c.category.id(), c.text);
                outln!("{:<39}{}", "", agents.explain(c.text));
            }
        }
    }
    outln!(
        "encoder (all-MiniLM-L6-v2, {} dims): one query's meaning {:.1} ms median, {:.1} ms p95, {:.1} ms max",
        embedder.dim(),
        pick(0.5),
        pick(0.95),
        pick(1.0)
    );
    Ok(())
}

/// Every setting near the product's with recall ≥ 85 % and false alarms ≤ 30 %, best recall first
/// (at the product's sharpness and corroboration; the settings are tried on every core at once).
fn sweep(cases: &[server::agents::builtin::eval::Case], dev: bool) {
    use server::agents::builtin::{Knobs, KNOBS};
    let mut grid = Vec::new();
    for head in [0.0, 0.05, 0.1, 0.2] {
        for margin in [0.0, 0.02] {
            for doubt in [-1.0, 0.01] {
                grid.push(Knobs {
                    margin,
                    doubt,
                    head,
                    ..KNOBS
                });
            }
        }
    }
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&knobs) = grid.get(i) else { break };
                let (_, t) = evaluate(cases, dev, &BuiltinAgents::with_knobs(1, knobs));
                if t.recall() >= 0.85 && t.false_alarm_rate() <= 0.3 {
                    if let Ok(mut found) = found.lock() {
                        found.push((knobs, t));
                    }
                }
            });
        }
    });
    let mut found = found.into_inner().unwrap_or_default();
    found.sort_by(|a, b| {
        b.1.recall()
            .total_cmp(&a.1.recall())
            .then(a.1.false_alarm_rate().total_cmp(&b.1.false_alarm_rate()))
    });
    outln!(
        "{:>9} {:>5} {:>6} {:>9} {:>11} {:>6} {:>7} {:>12}",
        "sharpness",
        "head",
        "margin",
        "threshold",
        "corroborate",
        "doubt",
        "recall",
        "false alarms"
    );
    for (k, t) in found.iter().take(60) {
        outln!(
            "{:>9.0} {:>5.2} {:>6.2} {:>9.2} {:>11.2} {:>6.2} {:>6.1}% {:>11.1}%",
            k.sharpness,
            k.head,
            k.margin,
            k.threshold,
            k.corroborate,
            k.doubt,
            100.0 * t.recall(),
            100.0 * t.false_alarm_rate()
        );
    }
}
