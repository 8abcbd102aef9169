//! `consilium-bench topics`: RC-1's topics on `server/data/topics-eval.tsv` — scenarios of
//! observations written apart from the code, each observation labelled with its topic. Each
//! scenario is embedded (the builtin encoder, or an OpenAI-compatible embeddings endpoint serving
//! the same model) and clustered exactly as a reconciliation does; the figures are the
//! same-topic pairs' precision and recall over every scenario of one half. Choose on `dev`
//! (`--sweep`), report on `test`. Figures are printed, never asserted here.

use std::collections::BTreeMap;

use app::protocol::reconcile::cluster;
use app::protocol::reconcile::quantise;
use app::protocol::reconcile::{parse_observations, RcParams};
use clap::Args;

use server::cli::CliError;
use server::outln;

const DATA: &str = include_str!("../../../data/topics-eval.tsv");

#[derive(Args, Debug, Clone)]
pub struct TopicsArgs {
    /// `test` (report) or `dev` (the half the rules were chosen on).
    #[arg(long, value_enum, default_value_t = crate::Split::Test)]
    pub split: crate::Split,
    /// Embed through this OpenAI-compatible base URL (`…/v1`) instead of the builtin encoder.
    #[arg(long)]
    pub endpoint: Option<String>,
    /// The embeddings model to ask the endpoint for.
    #[arg(long, default_value = "all-MiniLM-L6-v2")]
    pub model: String,
    /// RC-1's similarity threshold (default: a new reconciliation's).
    #[arg(long)]
    pub threshold: Option<f64>,
    /// RC-1's report threshold: observations one agent made at the same instant join only at
    /// this similarity (default: a new reconciliation's; `off`: no such rule).
    #[arg(long, value_parser = report_threshold)]
    pub report_threshold: Option<Report>,
    /// Give the observations of each scenario N agents in turn instead of the labelled ones: how
    /// the report rule fares when agents do not follow topics (every observation at one instant).
    #[arg(long, value_name = "N")]
    pub agents_cycled: Option<usize>,
    /// Precision and recall at thresholds −0.20 to 0.60, then at report thresholds (for
    /// choosing, on `dev`).
    #[arg(long)]
    pub sweep: bool,
    /// Also list the pairs split apart and the pairs wrongly joined.
    #[arg(long)]
    pub misses: bool,
}

/// `--report-threshold`: a number, or `off`.
#[derive(Clone, Copy, Debug)]
pub struct Report(Option<f64>);

fn report_threshold(s: &str) -> Result<Report, String> {
    if s == "off" {
        return Ok(Report(None));
    }
    s.parse()
        .map(|t| Report(Some(t)))
        .map_err(|_| format!("expected a number or `off`, got {s}"))
}

/// One labelled observation.
pub struct Row {
    pub dev: bool,
    pub scenario: &'static str,
    pub topic: &'static str,
    pub agent: &'static str,
    pub text: &'static str,
}

pub fn rows() -> Result<Vec<Row>, String> {
    let mut out = Vec::new();
    for (n, line) in DATA.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let [split, scenario, topic, agent, text] = f[..] else {
            return Err(format!("topics-eval.tsv line {}: expected 5 fields", n + 1));
        };
        if split != "dev" && split != "test" {
            return Err(format!(
                "topics-eval.tsv line {}: split must be dev or test",
                n + 1
            ));
        }
        out.push(Row {
            dev: split == "dev",
            scenario,
            topic,
            agent,
            text,
        });
    }
    Ok(out)
}

/// Same-topic pairs: found (in one cluster and one labelled topic), predicted, labelled.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pairs {
    pub found: u32,
    pub predicted: u32,
    pub labelled: u32,
}

impl Pairs {
    pub fn precision(&self) -> f64 {
        f64::from(self.found) / f64::from(self.predicted.max(1))
    }
    pub fn recall(&self) -> f64 {
        f64::from(self.found) / f64::from(self.labelled.max(1))
    }
}

/// The scenarios of one half, each with its rows' indices, in file order.
fn scenarios(rows: &[Row], dev: bool) -> Vec<Vec<usize>> {
    let mut by: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.dev == dev) {
        by.entry(r.scenario).or_default().push(i);
    }
    by.into_values().collect()
}

/// Clusters one scenario as a reconciliation would and returns each row's topic number.
fn clustered(
    rows: &[Row],
    members: &[usize],
    vectors: &[Vec<i16>],
    params: &RcParams,
    agents_cycled: Option<usize>,
) -> Result<Vec<usize>, String> {
    let obs: Vec<serde_json::Value> = members
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let agent = agents_cycled.map_or_else(
                || rows[i].agent.to_owned(),
                |n| format!("agent_{}", k % n.max(1)),
            );
            serde_json::json!({"id": format!("o{i}"), "agent": agent,
                "content": rows[i].text, "timestamp": "2026-01-05T09:00:00Z"})
        })
        .collect();
    let obs = parse_observations(&serde_json::Value::Array(obs))?;
    let topics = cluster(&obs, vectors, params);
    let mut of = vec![0; members.len()];
    for (t, topic) in topics.iter().enumerate() {
        for id in &topic.observation_ids {
            if let Some(k) = obs.iter().position(|o| o.id == *id) {
                of[k] = t;
            }
        }
    }
    Ok(of)
}

pub async fn run(args: &TopicsArgs) -> Result<(), CliError> {
    let dev = args.split.is_dev();
    let rows = rows().map_err(CliError::Bench)?;
    let halves = scenarios(&rows, dev);
    let started = std::time::Instant::now();
    let mut vectors: Vec<Vec<Vec<i16>>> = Vec::new();
    for members in &halves {
        let texts: Vec<String> = members.iter().map(|&i| rows[i].text.to_owned()).collect();
        let raw = match &args.endpoint {
            Some(url) => endpoint_vectors(url, &args.model, &texts).await?,
            None => server::embed::shared()?.embed_many(&texts),
        };
        vectors.push(
            raw.iter()
                .map(|v| quantise(v).unwrap_or_default())
                .collect(),
        );
    }
    let embedded = started.elapsed();
    let n: usize = halves.iter().map(Vec::len).sum();
    let topics: std::collections::BTreeSet<&str> =
        halves.iter().flatten().map(|&i| rows[i].topic).collect();
    let by = args.endpoint.as_deref().map_or_else(
        || "the builtin encoder".to_owned(),
        |u| format!("{} at {u}", args.model),
    );
    outln!(
        "consilium-bench topics — RC-1 on the {} half: {} scenarios, {n} observations, {} labelled topics; embedded by {by} in {:.0} ms",
        args.split.name(),
        halves.len(),
        topics.len(),
        embedded.as_secs_f64() * 1e3
    );
    let defaults = RcParams::default();
    let report = args
        .report_threshold
        .map_or(defaults.report_threshold, |r| r.0);
    let score = |threshold: f64, report: Option<f64>, misses: bool| -> Result<Pairs, CliError> {
        let params = RcParams {
            similarity_threshold: threshold,
            report_threshold: report,
            ..defaults
        };
        let mut p = Pairs::default();
        for (members, vectors) in halves.iter().zip(&vectors) {
            let of = clustered(&rows, members, vectors, &params, args.agents_cycled)
                .map_err(CliError::Bench)?;
            for a in 0..members.len() {
                for b in a + 1..members.len() {
                    let same = rows[members[a]].topic == rows[members[b]].topic;
                    let joined = of[a] == of[b];
                    p.labelled += u32::from(same);
                    p.predicted += u32::from(joined);
                    p.found += u32::from(same && joined);
                    if misses && same != joined {
                        let kind = if same { "split" } else { "joined" };
                        outln!(
                            "{kind:<7} {} | {}",
                            rows[members[a]].text,
                            rows[members[b]].text
                        );
                    }
                }
            }
        }
        Ok(p)
    };
    let threshold = args.threshold.unwrap_or(defaults.similarity_threshold);
    if args.sweep {
        sweep(&score, threshold, report)?;
    }
    let p = score(threshold, report, args.misses)?;
    outln!(
        "threshold {threshold:.2}, report threshold {}: same-topic pairs precision {:.3} ({} of {} joined), recall {:.3} ({} of {} labelled)",
        shown(report),
        p.precision(),
        p.found,
        p.predicted,
        p.recall(),
        p.found,
        p.labelled
    );
    Ok(())
}

/// A report threshold as printed.
fn shown(r: Option<f64>) -> String {
    r.map_or_else(|| "off".to_owned(), |t| format!("{t:.2}"))
}

/// `--sweep`: precision and recall at similarity thresholds −0.20 to 0.60 with `report`, then at
/// report thresholds (none, 0 to 0.50) with `threshold`.
fn sweep(
    score: &impl Fn(f64, Option<f64>, bool) -> Result<Pairs, CliError>,
    threshold: f64,
    report: Option<f64>,
) -> Result<(), CliError> {
    outln!("report threshold {}:", shown(report));
    outln!("{:>9} {:>10} {:>8}", "threshold", "precision", "recall");
    for step in -20..=60 {
        let t = f64::from(step) / 100.0;
        let p = score(t, report, false)?;
        outln!("{t:>9.2} {:>10.3} {:>8.3}", p.precision(), p.recall());
    }
    outln!("threshold {threshold:.2}:");
    outln!(
        "{:>16} {:>10} {:>8}",
        "report threshold",
        "precision",
        "recall"
    );
    let reports = std::iter::once(None).chain((0..=10).map(|s| Some(f64::from(s) * 0.05)));
    for r in reports {
        let p = score(threshold, r, false)?;
        outln!(
            "{:>16} {:>10.3} {:>8.3}",
            shown(r),
            p.precision(),
            p.recall()
        );
    }
    Ok(())
}

/// The vectors of an OpenAI-compatible `/embeddings` endpoint.
async fn endpoint_vectors(
    base: &str,
    model: &str,
    texts: &[String],
) -> Result<Vec<Vec<f32>>, CliError> {
    let url = format!("{}/embeddings", base.trim_end_matches('/'));
    let body: serde_json::Value = reqwest::Client::new()
        .post(&url)
        .json(&serde_json::json!({"model": model, "input": texts}))
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|e| CliError::Bench(format!("{url}: {e}")))?
        .json()
        .await
        .map_err(|e| CliError::Bench(format!("{url}: {e}")))?;
    let data = body["data"]
        .as_array()
        .ok_or_else(|| CliError::Bench(format!("{url}: no data in the reply")))?;
    let mut out = vec![Vec::new(); texts.len()];
    for (k, d) in data.iter().enumerate() {
        let i = d["index"].as_u64().map_or(k, |i| i as usize);
        if let Some(slot) = out.get_mut(i) {
            *slot = d["embedding"]
                .as_array()
                .map(|v| {
                    v.iter()
                        .filter_map(|x| x.as_f64().map(|x| x as f32))
                        .collect()
                })
                .unwrap_or_default();
        }
    }
    Ok(out)
}
