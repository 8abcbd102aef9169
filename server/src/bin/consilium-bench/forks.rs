//! `consilium-bench forks`: what forking costs on a running server (FK-1, FK-4). A long
//! round-robin debate (over 5,000 events, builtin agents) is forked after its event 5,000 a few
//! times: how long until the fork is stored (the POST's answer) and until its live stream sends
//! the first copied event. Then 20 forks of an S4 debate by seed, as one batch.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use server::cli::CliError;
use server::outln;

#[derive(clap::Args, Debug)]
pub struct ForksArgs {
    /// The running server (host:port); start it with `--durability full` for durable figures.
    #[arg(long, default_value = "127.0.0.1:3000")]
    addr: String,
    /// Forks of the long debate to time.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// The operator's start token, when the server requires one.
    #[arg(long, env = "CONSILIUM_START_TOKEN")]
    token: Option<String>,
}

struct Api {
    client: reqwest::Client,
    base: String,
    token: Option<String>,
}

impl Api {
    async fn post(&self, path: &str, body: &Value) -> Result<Value, CliError> {
        let mut req = self.client.post(format!("{}{path}", self.base)).json(body);
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        let resp = req
            .send()
            .await
            .map_err(|e| CliError::Bench(format!("cannot reach {}: {e}", self.base)))?;
        let status = resp.status();
        let v: Value = resp.json().await.unwrap_or_default();
        if !status.is_success() {
            return Err(CliError::Bench(format!(
                "POST {path}: {status} {}",
                v["error"].as_str().unwrap_or("no reason given")
            )));
        }
        Ok(v)
    }

    async fn get(&self, path: &str) -> Result<Value, CliError> {
        let resp = self
            .client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .map_err(|e| CliError::Bench(format!("cannot reach {}: {e}", self.base)))?;
        resp.json()
            .await
            .map_err(|e| CliError::Bench(format!("GET {path}: {e}")))
    }

    /// Starts a debate and waits for it to end; its id and number of events.
    async fn decided(&self, body: Value) -> Result<(String, usize), CliError> {
        let v = self.post("/api/debates", &body).await?;
        let id = v["id"].as_str().unwrap_or_default().to_owned();
        for _ in 0..6_000 {
            let d = self.get(&format!("/api/debates/{id}")).await?;
            if d["status"] != "running" {
                let n = d["events"].as_array().map_or(0, Vec::len);
                return Ok((id, n));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(CliError::Bench(format!(
            "debate {id} did not end in 10 minutes"
        )))
    }

    /// Until the first event of debate `id`'s live stream arrives.
    async fn first_event(&self, id: &str) -> Result<(), CliError> {
        let mut resp = self
            .client
            .get(format!("{}/api/debates/{id}/events", self.base))
            .header("accept", "text/event-stream")
            .send()
            .await
            .map_err(|e| CliError::Bench(format!("stream of {id}: {e}")))?;
        let mut seen = Vec::new();
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| CliError::Bench(format!("stream of {id}: {e}")))?
        {
            seen.extend_from_slice(&chunk);
            if seen.windows(5).any(|w| w == b"data:") {
                return Ok(());
            }
        }
        Err(CliError::Bench(format!("the stream of {id} ended empty")))
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// "min 12.1 ms, median 14.0 ms, max 20.3 ms".
fn spread(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    let median = v[v.len() / 2];
    format!(
        "min {:.1} ms, median {median:.1} ms, max {:.1} ms",
        v[0],
        v[v.len() - 1]
    )
}

pub async fn run(args: &ForksArgs) -> Result<(), CliError> {
    let api = Api {
        client: reqwest::Client::new(),
        base: format!("http://{}", args.addr),
        token: args.token.clone(),
    };
    let runs = args.runs.max(1);
    outln!("a round-robin debate of over 5,000 events (builtin agents)…");
    let (long, n) = api
        .decided(
            json!({"query": "Is this bubble stock with popular hype and rising losses a buy?",
                        "protocol": "round_robin", "seed": 7, "config": {"max_rounds": 630}}),
        )
        .await?;
    if n <= 5_000 {
        return Err(CliError::Bench(format!(
            "debate {long} has {n} events, not over 5,000"
        )));
    }
    let (mut stored, mut streaming) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let began = Instant::now();
        let v = api
            .post(
                &format!("/api/debates/{long}/fork"),
                &json!({"after_seq": 5000, "changes": {"pace_ms": 0}}),
            )
            .await?;
        stored.push(ms(began.elapsed()));
        let child = v["id"].as_str().unwrap_or_default().to_owned();
        api.first_event(&child).await?;
        streaming.push(ms(began.elapsed()));
    }
    outln!("fork after event 5,000 of {n}, {runs} runs:");
    outln!(
        "  stored (the POST answered):                 {}",
        spread(stored)
    );
    outln!(
        "  first copied event streamed (from the POST): {}",
        spread(streaming)
    );
    let (s4, _) = api
        .decided(json!({"query": "Is it safe to rewire my own electrical panel?", "seed": 6}))
        .await?;
    let log = api.get(&format!("/api/debates/{s4}")).await?;
    let round_two = log["events"]
        .as_array()
        .and_then(|es| {
            es.iter()
                .find(|e| e["type"] == "round_started" && e["round"] == 2)
        })
        .and_then(|e| e["seq"].as_u64())
        .unwrap_or(3);
    let began = Instant::now();
    let seeds: Vec<u64> = (1..=20).collect();
    let batch = api
        .post(
            &format!("/api/debates/{s4}/forks"),
            &json!({"after_seq": round_two, "seeds": seeds}),
        )
        .await?;
    outln!(
        "20 forks of an S4 debate by seed (builtin agents, one batch): {:.0} ms; {}",
        ms(began.elapsed()),
        batch["summary"].as_str().unwrap_or("")
    );
    Ok(())
}
