//! `consilium eval`: the QL-2 harness from the command line.

use std::path::PathBuf;
use std::time::Duration;

use app::protocol::eval::{arithmetic, parse_jsonl, EvalConfig, EvalRun, ItemResult, Task};
use clap::Args;

use super::CliError;
use crate::agents::openai::OpenAiConfig;
use crate::agents::remote::CallPolicy;
use crate::drive::sequencer::now_rfc3339;
use crate::eval::{load, Model};

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// `arithmetic` (Du et al.'s `a+b*c+d-e*f`, integers 0–30, generated from --seed) or a JSONL
    /// file of `{"question": …, "answer": …}` lines (a number is graded numerically, a string
    /// by exact match).
    pub tasks: String,
    /// How many tasks (arithmetic), or the first N of a file (default: all of it).
    #[arg(long)]
    pub items: Option<usize>,
    /// Debating agents.
    #[arg(long, default_value_t = 3)]
    pub agents: u32,
    /// Debate rounds (1: independent answers only).
    #[arg(long, default_value_t = 2)]
    pub rounds: u32,
    /// Self-consistency samples per item (default: agents × rounds, the debate's number of calls).
    #[arg(long)]
    pub samples: Option<u32>,
    /// The arithmetic generator's seed, also part of each call's seed.
    #[arg(long, default_value_t = 2026)]
    pub seed: u64,
    /// Where the run is saved (JSON); default `<eval dir>/<tasks>-<time>.json`.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Continue the run saved at --out: items already answered are not asked again.
    #[arg(long)]
    pub resume: bool,
    /// Where runs are saved by default and where the `/eval` page reads them.
    #[arg(long, env = "CONSILIUM_EVAL_DIR", default_value = "data/eval")]
    pub eval_dir: PathBuf,
    /// The OpenAI-compatible API's base URL, up to `/v1`.
    #[arg(
        long,
        env = "OPENAI_BASE_URL",
        default_value = "https://api.openai.com/v1"
    )]
    pub base_url: String,
    /// The model to evaluate.
    #[arg(long, env = "OPENAI_MODEL")]
    pub model: Option<String>,
    #[arg(long, env = "OPENAI_API_KEY", hide_env_values = true)]
    pub api_key: Option<crate::agents::secrets::Secret>,
    /// Sampling temperature (self-consistency needs some to differ).
    #[arg(long, default_value_t = 0.7)]
    pub temperature: f32,
    #[arg(long, default_value_t = 400)]
    pub max_tokens: u32,
    /// Seconds one call may take.
    #[arg(long, default_value_t = 120)]
    pub timeout_s: u64,
    /// A PEM file of extra trusted root certificates (a private CA).
    #[arg(long, env = "CONSILIUM_CA_CERT")]
    pub ca_cert: Option<PathBuf>,
}

/// The task set named on the command line, and its name in the saved run.
fn task_set(args: &EvalArgs) -> Result<(Vec<Task>, String), CliError> {
    if args.tasks == "arithmetic" {
        let n = args.items.unwrap_or(20);
        if !(1..=10_000).contains(&n) {
            return Err(CliError::Eval(format!(
                "--items must be from 1 to 10000, got {n}"
            )));
        }
        return Ok((arithmetic(args.seed, n), "arithmetic".into()));
    }
    let path = PathBuf::from(&args.tasks);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        CliError::Eval(format!(
            "cannot read the task file {} ({e}); the task set is `arithmetic` or a JSONL file",
            path.display()
        ))
    })?;
    let mut tasks =
        parse_jsonl(&text).map_err(|e| CliError::Eval(format!("{}: {e}", path.display())))?;
    if let Some(n) = args.items {
        tasks.truncate(n.max(1));
    }
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Ok((tasks, format!("file:{name}")))
}

/// The endpoint's host and port, for the record: never its path's secrets or credentials.
fn host_of(url: &str) -> String {
    reqwest::Url::parse(url)
        .ok()
        .map(|u| {
            format!(
                "{}://{}{}",
                u.scheme(),
                u.host_str().unwrap_or(""),
                u.port().map_or_else(String::new, |p| format!(":{p}"))
            )
        })
        .unwrap_or_else(|| "an unparseable URL".into())
}

fn mark(right: bool) -> &'static str {
    if right {
        "right"
    } else {
        "wrong"
    }
}

#[allow(clippy::too_many_lines)] // the command's steps in order
pub async fn run(args: EvalArgs) -> Result<(), CliError> {
    let Some(model_name) = args.model.clone().filter(|m| !m.trim().is_empty()) else {
        return Err(CliError::Eval(
            "consilium eval asks a real model, and none is configured: set OPENAI_MODEL (with \
             OPENAI_BASE_URL and OPENAI_API_KEY as needed) or pass --model and --base-url. The \
             builtin agents are not evaluated: they reason about safety and usefulness, they do \
             not do arithmetic."
                .into(),
        ));
    };
    if args.agents == 0 || args.agents > 10 || args.rounds == 0 || args.rounds > 10 {
        return Err(CliError::Eval(format!(
            "--agents and --rounds must be from 1 to 10, got {} and {}",
            args.agents, args.rounds
        )));
    }
    let samples = args.samples.unwrap_or(args.agents * args.rounds);
    if samples == 0 || samples > 50 {
        return Err(CliError::Eval(format!(
            "--samples must be from 1 to 50, got {samples}"
        )));
    }
    let (tasks, set) = task_set(&args)?;
    let config = EvalConfig {
        task_set: set.clone(),
        seed: args.seed,
        items: tasks.len(),
        agents: args.agents,
        rounds: args.rounds,
        samples,
        model: model_name.clone(),
        endpoint: host_of(&args.base_url),
        temperature: args.temperature.clamp(0.0, 2.0),
        max_tokens: args.max_tokens.clamp(16, 8192),
    };
    let stamp = now_rfc3339();
    let out = args.out.clone().unwrap_or_else(|| {
        let name = set
            .trim_start_matches("file:")
            .replace(['/', '.', ':'], "-");
        let when: String = stamp
            .chars()
            .filter(char::is_ascii_digit)
            .take(14)
            .collect();
        args.eval_dir.join(format!("{name}-{when}.json"))
    });
    let saved = if out.exists() {
        if !args.resume {
            return Err(CliError::Eval(format!(
                "{} already holds a run: pass --resume to continue it, or choose another --out",
                out.display()
            )));
        }
        load(&out, &config).map_err(CliError::Eval)?
    } else {
        EvalRun {
            config: config.clone(),
            started_at: stamp.clone(),
            updated_at: stamp,
            wall_ms: 0,
            items: Vec::new(),
        }
    };
    if let Some(key) = &args.api_key {
        crate::agents::secrets::register(key.expose());
    }
    let model = Model {
        config: OpenAiConfig {
            base_url: args.base_url.trim().to_owned(),
            model: model_name,
            api_key: args.api_key.clone().filter(|k| !k.is_empty()),
            max_tokens: config.max_tokens,
            temperature: config.temperature,
            json_mode: false,
            embeddings_model: None,
            embeddings_base_url: None,
            stream: false,
        },
        policy: CallPolicy {
            timeout: Duration::from_secs(args.timeout_s.max(1)),
            ..CallPolicy::default()
        },
        client: crate::outbound::client(args.ca_cert.as_deref())?,
    };
    let done = saved.items.len();
    let per_item = 1 + samples + args.agents * args.rounds;
    outln!(
        "eval: {} ({} items, {done} already answered) on {} at {} — one agent, self-consistency \
         ({samples} samples), debate ({} agents × {} rounds): {per_item} calls per item; saving to {}",
        config.task_set,
        tasks.len(),
        config.model,
        config.endpoint,
        args.agents,
        args.rounds,
        out.display()
    );
    let progress = |n: usize, total: usize, item: &ItemResult, ms: u64| {
        let last = item.debate.last().cloned().unwrap_or_default();
        let answers: Vec<Option<String>> = last.iter().map(|s| s.answer.clone()).collect();
        let debate = app::protocol::eval::majority(&answers).is_some_and(|m| {
            last.iter()
                .any(|s| s.correct && s.answer.as_deref() == Some(&m))
        });
        let failed = std::iter::once(&item.single)
            .chain(&item.samples)
            .chain(item.debate.iter().flatten())
            .filter(|s| s.error.is_some())
            .count();
        outln!(
            "item {n}/{total}: one agent {}, debate {} ({:.1} s{})",
            mark(item.single.correct),
            mark(debate),
            ms as f64 / 1000.0,
            if failed > 0 {
                format!(", {failed} failed calls")
            } else {
                String::new()
            }
        );
    };
    let run = crate::eval::run(&model, &tasks, saved, &out, progress)
        .await
        .map_err(CliError::Eval)?;
    let report = run.report();
    outln!();
    out!("{}", report.table());
    outln!(
        "\n{} items, {:.1} s of asking; saved to {}",
        run.items.len(),
        run.wall_ms as f64 / 1000.0,
        out.display()
    );
    Ok(())
}
