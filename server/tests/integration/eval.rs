//! QL-2: `consilium eval` against an OpenAI-compatible endpoint over real HTTP (a fake model that
//! does the arithmetic), its table and saved run, its refusals, and a resume after a crash that
//! asks no answered item again.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::common::serve_http;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

/// A model that computes the last `What is the result of …?` in its last message, slowly
/// enough (20 ms a call) that a run can be cut in the middle.
async fn fake_model(calls: Arc<AtomicUsize>) -> String {
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(body): Json<Value>| {
            let calls = calls.clone();
            async move {
                calls.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                let last = body["messages"]
                    .as_array()
                    .and_then(|m| m.last())
                    .and_then(|m| m["content"].as_str())
                    .unwrap_or("")
                    .to_owned();
                let expr = last
                    .rsplit("What is the result of ")
                    .next()
                    .and_then(|t| t.split('?').next())
                    .unwrap_or("");
                let value = eval_expr(expr);
                Json(json!({
                    "choices": [{"message": {"role": "assistant",
                        "content": format!("Multiply first, then add. The answer is **{value}**.")},
                        "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 30, "completion_tokens": 10}
                }))
            }
        }),
    );
    format!("{}/v1", serve_http(app).await)
}

/// `a+b*c+d-e*f`.
fn eval_expr(expr: &str) -> i64 {
    let mut total = 0;
    let mut sign = 1;
    let mut term = String::new();
    for c in expr.chars().chain(std::iter::once('+')) {
        if c == '+' || c == '-' {
            let product: i64 = term
                .split('*')
                .map(|x| x.trim().parse::<i64>().unwrap_or(0))
                .product();
            total += sign * product;
            term.clear();
            sign = if c == '+' { 1 } else { -1 };
        } else {
            term.push(c);
        }
    }
    total
}

fn eval_cmd(base: &str, out: &std::path::Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_consilium"));
    cmd.args(["eval", "arithmetic", "--agents", "2", "--rounds", "2"])
        .arg("--out")
        .arg(out)
        .args(extra)
        .env("OPENAI_BASE_URL", base)
        .env("OPENAI_MODEL", "fake-arithmetic")
        .env_remove("OPENAI_API_KEY")
        .env("NO_COLOR", "1");
    cmd
}

fn output(mut cmd: Command) -> (bool, String) {
    let out = cmd.output().expect("run consilium eval");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn eval_prints_the_table_and_resumes_after_a_crash_ql_2() {
    let calls = Arc::new(AtomicUsize::new(0));
    let base = fake_model(calls.clone()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run.json");
    // 1 + 4 samples + 2 agents × 2 rounds = 9 calls an item.
    let per_item = 9;

    #[allow(clippy::zombie_processes)] // killed and waited for below, once two items are saved
    // Cut the run off once two items are saved.
    let mut child = eval_cmd(&base, &out, &["--items", "6"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let stdout = child.stdout.take().expect("stdout");
    let cut = tokio::task::spawn_blocking(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.starts_with("item 2/6") {
                let _ = child.kill();
                let _ = child.wait();
                return true;
            }
        }
        false
    })
    .await
    .expect("join");
    assert!(cut, "the run reached item 2");
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("saved")).expect("json");
    let answered = saved["items"].as_array().expect("items").len();
    assert!((2..6).contains(&answered), "{answered} items saved");

    // Without --resume the saved run is not overwritten; with other settings it is refused.
    let (ok, text) = output(eval_cmd(&base, &out, &["--items", "6"]));
    assert!(!ok && text.contains("pass --resume"), "{text}");
    let (ok, text) = output(eval_cmd(
        &base,
        &out,
        &["--items", "6", "--resume", "--seed", "7"],
    ));
    assert!(!ok && text.contains("other settings (seed"), "{text}");

    let before = calls.load(Ordering::SeqCst);
    let (ok, text) = output(eval_cmd(&base, &out, &["--items", "6", "--resume"]));
    assert!(ok, "{text}");
    let asked = calls.load(Ordering::SeqCst) - before;
    assert_eq!(
        asked,
        (6 - answered) * per_item,
        "answered items are not asked again: {text}"
    );
    assert!(
        text.contains(&format!("{answered} already answered")),
        "{text}"
    );
    for row in [
        "one agent",
        "self-consistency (4 samples, majority)",
        "debate (2 agents × 2 rounds)",
        "debate, round 2",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(row))
            .unwrap_or_else(|| panic!("{row}: {text}"));
        assert!(
            line.contains("100.0%") && line.contains("(6 of 6)"),
            "{line}"
        );
    }
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("saved")).expect("json");
    assert_eq!(run["items"].as_array().map(Vec::len), Some(6));
    assert_eq!(run["config"]["endpoint"], base.trim_end_matches("/v1"));
    assert_eq!(
        run["items"][0]["debate"].as_array().map(Vec::len),
        Some(2),
        "two rounds"
    );
}

#[test]
fn eval_refuses_without_a_model_and_names_a_bad_task_file_ql_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_consilium"))
        .args(["eval", "arithmetic", "--items", "2"])
        .env_remove("OPENAI_MODEL")
        .env("CONSILIUM_EVAL_DIR", dir.path())
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        text.contains("asks a real model") && text.contains("builtin agents are not evaluated"),
        "{text}"
    );

    let tasks = dir.path().join("mine.jsonl");
    std::fs::write(
        &tasks,
        "{\"question\": \"2+2?\", \"answer\": 4}\n{\"question\": \"q\"}\n",
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_consilium"))
        .arg("eval")
        .arg(&tasks)
        .env("OPENAI_MODEL", "m")
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && text.contains("line 2: missing field `answer`"),
        "{text}"
    );
}
