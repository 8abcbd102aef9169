//! QL-2: `consilium eval` asks a real model the same tasks three ways — one agent,
//! self-consistency (k independent samples, majority vote) and Du et al.'s debate (N agents
//! answer alone, then R−1 rounds in which each sees the others' answers and updates) — grades
//! every answer, and saves the run after each item so a crash loses at most the item under way.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use app::protocol::eval::{grade, prompts, EvalConfig, EvalRun, ItemResult, Sample, Task};
use serde_json::{json, Value};

use crate::agents::openai::{completion_text, OpenAiConfig};
use crate::agents::remote::{estimate_tokens, post_json, reported_usage, CallPolicy};
use crate::agents::secrets::excerpt;
use crate::drive::sequencer::now_rfc3339;

/// The model under test and how to reach it.
pub struct Model {
    pub config: OpenAiConfig,
    pub policy: CallPolicy,
    pub client: reqwest::Client,
}

impl Model {
    /// One chat completion: its text (or why there is none) and its tokens.
    async fn ask(&self, messages: &[Value], seed: u64) -> (Result<String, String>, u64) {
        let payload = json!({
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
            "seed": seed % (1 << 31),
            "stream": false,
        });
        let call = post_json(
            &self.client,
            &self.policy,
            &self.config.endpoint(),
            self.config
                .api_key
                .as_ref()
                .map(crate::agents::secrets::Secret::expose),
            &payload,
        )
        .await;
        match call.body {
            Err(e) => (Err(e), 0),
            Ok(body) => {
                let text = completion_text(&body);
                let tokens = match reported_usage(&body) {
                    Some((p, c)) => p.saturating_add(c),
                    None => {
                        let prompt: u64 = messages
                            .iter()
                            .map(|m| estimate_tokens(m["content"].as_str().unwrap_or("")))
                            .sum();
                        prompt + text.as_deref().map_or(0, estimate_tokens)
                    }
                };
                let text = text.ok_or_else(|| {
                    format!(
                        "the reply has no choices[0].message.content: {}",
                        excerpt(&body.to_string(), 200)
                    )
                });
                (text, tokens)
            }
        }
    }
}

fn sample(task: &Task, reply: &(Result<String, String>, u64)) -> Sample {
    match &reply.0 {
        Ok(text) => {
            let (answer, correct) = grade(task, text);
            Sample {
                answer,
                correct,
                tokens: reply.1,
                error: None,
                excerpt: excerpt(text, 300),
            }
        }
        Err(e) => Sample {
            tokens: reply.1,
            error: Some(e.clone()),
            ..Sample::default()
        },
    }
}

/// A distinct, reproducible seed per call: item, method, sample or agent, round.
fn seed_of(run_seed: u64, item: usize, method: u64, who: u64, round: u64) -> u64 {
    run_seed
        .wrapping_mul(1_000_003)
        .wrapping_add(item as u64 * 10_007)
        .wrapping_add(method * 1009 + who * 101 + round)
}

fn user(text: String) -> Value {
    json!({"role": "user", "content": text})
}

/// Everything asked about one task.
async fn run_item(model: &Model, c: &EvalConfig, n: usize, task: &Task) -> ItemResult {
    let q = &task.question;
    let single = sample(
        task,
        &model
            .ask(&[user(prompts::first(q))], seed_of(c.seed, n, 0, 0, 0))
            .await,
    );
    let samples = futures::future::join_all((0..c.samples).map(|s| async move {
        let reply = model
            .ask(
                &[user(prompts::first(q))],
                seed_of(c.seed, n, 1, u64::from(s), 0),
            )
            .await;
        sample(task, &reply)
    }))
    .await;
    // Du et al.: every agent keeps its own conversation.
    let mut histories: Vec<Vec<Value>> = vec![Vec::new(); c.agents as usize];
    let mut latest: Vec<String> = vec![String::new(); c.agents as usize];
    let mut debate = Vec::new();
    for round in 0..c.rounds {
        for (a, history) in histories.iter_mut().enumerate() {
            let text = if round == 0 {
                prompts::first(q)
            } else {
                let others: Vec<String> = latest
                    .iter()
                    .enumerate()
                    .filter(|(b, _)| *b != a)
                    .map(|(_, t)| t.clone())
                    .collect();
                prompts::update(q, &others)
            };
            history.push(user(text));
        }
        let replies = futures::future::join_all(
            histories
                .iter()
                .enumerate()
                .map(|(a, h)| model.ask(h, seed_of(c.seed, n, 2, a as u64, u64::from(round)))),
        )
        .await;
        let mut row = Vec::new();
        for (a, reply) in replies.iter().enumerate() {
            let text = reply.0.clone().unwrap_or_default();
            histories[a].push(json!({"role": "assistant", "content": text}));
            latest[a] = text;
            row.push(sample(task, reply));
        }
        debate.push(row);
    }
    ItemResult {
        id: task.id.clone(),
        question: task.question.clone(),
        answer: task.answer.clone(),
        single,
        samples,
        debate,
    }
}

/// Writes the run next to `out` and renames it into place: a crash leaves the old file or the
/// new one, never half of one.
fn save(out: &Path, run: &EvalRun) -> Result<(), String> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let tmp = out.with_extension("json.partial");
    let text = serde_json::to_string_pretty(run).map_err(|e| e.to_string())?;
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, out).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// Loads a saved run to resume, refusing one made with other settings.
pub fn load(out: &Path, config: &EvalConfig) -> Result<EvalRun, String> {
    let text =
        std::fs::read_to_string(out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
    let run: EvalRun = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a saved evaluation run: {e}", out.display()))?;
    if let Some(d) = config.difference(&run.config) {
        return Err(format!(
            "{} was made with other settings ({d}); resume it with the same ones, or choose \
             another --out",
            out.display()
        ));
    }
    Ok(run)
}

/// Runs every task not yet in `run`, saving after each; `progress` hears of each item.
pub async fn run(
    model: &Model,
    tasks: &[Task],
    mut run: EvalRun,
    out: &Path,
    mut progress: impl FnMut(usize, usize, &ItemResult, u64),
) -> Result<EvalRun, String> {
    let config = run.config.clone();
    for (n, task) in tasks.iter().enumerate() {
        if run.items.iter().any(|i| i.id == task.id) {
            continue;
        }
        let began = Instant::now();
        let item = run_item(model, &config, n, task).await;
        let took = began.elapsed().as_millis() as u64;
        run.wall_ms += took;
        run.updated_at = now_rfc3339();
        run.items.push(item);
        save(out, &run)?;
        if let Some(item) = run.items.last() {
            progress(n + 1, tasks.len(), item, took);
        }
    }
    Ok(run)
}

/// A saved run's file may be at most this large.
const MAX_SAVED_BYTES: u64 = 32 * 1024 * 1024;

/// QL-2 for the `/eval` page: every run saved in `dir`, newest first (at most 50). Files that are
/// not runs are skipped; a missing directory is no runs. Each file is parsed once per version
/// ([`SavedRuns`]).
pub fn saved_runs(dir: &Path) -> Vec<app::api::SavedEval> {
    static SAVED: std::sync::LazyLock<SavedRuns> = std::sync::LazyLock::new(SavedRuns::default);
    SAVED.list(dir)
}

/// The saved runs as last read, by file: a file whose size and modification time are unchanged
/// is not read again (a run being written changes both). Up to a few KiB per run.
#[derive(Default)]
pub struct SavedRuns {
    seen: std::sync::Mutex<HashMap<std::path::PathBuf, Seen>>,
    /// Files parsed, for the tests.
    parsed: std::sync::atomic::AtomicUsize,
}

struct Seen {
    len: u64,
    modified: Option<std::time::SystemTime>,
    /// `None`: not a run.
    run: Option<app::api::SavedEval>,
}

impl SavedRuns {
    pub fn list(&self, dir: &Path) -> Vec<app::api::SavedEval> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let files: Vec<(std::path::PathBuf, std::fs::Metadata)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| Some((e.path(), e.metadata().ok()?)))
            .filter(|(_, m)| m.is_file() && m.len() <= MAX_SAVED_BYTES)
            .collect();
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Forget the files that are gone.
        seen.retain(|path, _| files.iter().any(|(p, _)| p == path));
        let mut runs = Vec::new();
        for (path, meta) in files {
            let (len, modified) = (meta.len(), meta.modified().ok());
            let fresh = seen
                .get(&path)
                .is_some_and(|s| s.len == len && s.modified == modified);
            if !fresh {
                self.parsed
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let run = read_saved(&path);
                seen.insert(path.clone(), Seen { len, modified, run });
            }
            if let Some(run) = seen.get(&path).and_then(|s| s.run.clone()) {
                runs.push(run);
            }
        }
        runs.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(a.file.cmp(&b.file)));
        runs.truncate(50);
        runs
    }
}

/// A saved run's summary, or `None` when the file is not a run.
fn read_saved(path: &Path) -> Option<app::api::SavedEval> {
    let text = std::fs::read_to_string(path).ok()?;
    let run: EvalRun = serde_json::from_str(&text).ok()?;
    Some(app::api::SavedEval {
        file: path.file_name()?.to_string_lossy().into_owned(),
        report: run.report(),
        items: run.items.len(),
        config: run.config,
        started_at: run.started_at,
        updated_at: run.updated_at,
        wall_ms: run.wall_ms,
    })
}

/// [`saved_runs`] off the async workers.
pub async fn saved_runs_async(dir: std::path::PathBuf) -> Vec<app::api::SavedEval> {
    tokio::task::spawn_blocking(move || saved_runs(&dir))
        .await
        .unwrap_or_default()
}

#[cfg(test)]
mod saved_runs_tests {
    use super::*;

    fn run_json(updated_at: &str) -> String {
        serde_json::json!({
            "config": {"task_set": "arithmetic", "seed": 1, "items": 1, "agents": 3, "rounds": 2,
                       "samples": 3, "model": "m", "endpoint": "127.0.0.1:1", "temperature": 0.7,
                       "max_tokens": 200},
            "started_at": "2026-01-01T00:00:00Z", "updated_at": updated_at, "wall_ms": 5,
            "items": []
        })
        .to_string()
    }

    /// QL-2: `/api/eval` parses a saved run once per version of its file: unchanged files are
    /// served from what was read, a rewritten one is read again, a removed one is forgotten.
    #[test]
    fn each_saved_run_is_parsed_once_per_version() {
        let dir = tempfile::tempdir().expect("dir");
        let parsed = |r: &SavedRuns| r.parsed.load(std::sync::atomic::Ordering::Relaxed);
        std::fs::write(dir.path().join("a.json"), run_json("2026-01-01T00:00:01Z")).expect("a");
        std::fs::write(dir.path().join("b.json"), run_json("2026-01-01T00:00:02Z")).expect("b");
        std::fs::write(dir.path().join("junk.json"), "not a run").expect("junk");
        let runs = SavedRuns::default();
        let first = runs.list(dir.path());
        assert_eq!(
            first.iter().map(|r| r.file.as_str()).collect::<Vec<_>>(),
            ["b.json", "a.json"]
        );
        assert_eq!(parsed(&runs), 3);
        assert_eq!(runs.list(dir.path()), first, "the same answer");
        assert_eq!(parsed(&runs), 3, "nothing read again");
        // A run that grows (as one being written does) is read again.
        std::fs::write(
            dir.path().join("a.json"),
            run_json("2026-01-01T00:00:03.5Z"),
        )
        .expect("a");
        let again = runs.list(dir.path());
        assert_eq!(parsed(&runs), 4);
        assert_eq!(again[0].file, "a.json");
        std::fs::remove_file(dir.path().join("b.json")).expect("rm");
        assert_eq!(runs.list(dir.path()).len(), 1);
        assert_eq!(parsed(&runs), 4);
    }
}
