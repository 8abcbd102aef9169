//! `consilium-bench load`: starts debates on a running server, opens many live viewers of
//! them over raw HTTP/1.1 connections at once, and reports what a crowd sees — whether every
//! viewer got the exact log (no gap, no duplicate, to its end), how long connecting took, how
//! long each live event took from being stamped to arriving, and the server's memory.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

mod model;
mod wire;

use server::cli::CliError;
use server::outln;

#[derive(clap::Args, Debug)]
pub struct LoadArgs {
    /// The running server (host:port).
    #[arg(long, default_value = "127.0.0.1:3000")]
    pub addr: String,
    /// Live viewers in all, spread evenly over the debates, all connecting at once.
    #[arg(long, default_value_t = 1000)]
    pub viewers: usize,
    /// Debates to start (builtin agents, S4) and watch.
    #[arg(long, default_value_t = 1)]
    pub debates: usize,
    /// The question the debates are started with.
    #[arg(
        long,
        default_value = "Should we move the payment service to the new cluster this week?"
    )]
    pub query: String,
    /// The operator's start token, when the server requires one (`CONSILIUM_START_TOKEN`).
    #[arg(long, env = "CONSILIUM_START_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// How long to wait for every viewer to reach the end of its debate's log, in seconds.
    #[arg(long, default_value_t = 300)]
    pub timeout_s: u64,
    /// Also print each batch of live events (those stamped in the same millisecond): how many
    /// viewers were connected when it was stamped, and its latency percentiles.
    #[arg(long)]
    pub per_batch: bool,
    /// LM-1/LM-3: serve a fake OpenAI-compatible model at this address (host:port) for the run
    /// and start the debates with the `openai` backend; start the server with
    /// `OPENAI_BASE_URL=http://ADDR/v1` and any `OPENAI_MODEL`. Reports the calls in flight, each
    /// debate's wall time and how long streamed pieces took from the model to the viewers.
    #[arg(long)]
    pub model: Option<String>,
    /// With `--model`: how long each reply takes, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub model_latency_ms: u64,
    /// With `--model`: a streamed piece this often, in milliseconds (0: replies come whole).
    #[arg(long, default_value_t = 50)]
    pub piece_ms: u64,
    /// S4-1: how many agents each debate has (2 to 8): utility, accuracy, safety, then the
    /// same roles again.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(2..=8))]
    pub agents: u8,
}

/// One live event as a viewer got it.
#[derive(Clone, Copy, Debug)]
struct Delivery {
    /// When the server stamped it (Unix ms).
    stamped: f64,
    /// From then until the viewer's socket received its last byte (the kernel's timestamp), ms.
    arrived_ms: f64,
    /// From then until this client's task read it, ms: the arrival plus the client's own queue.
    read_ms: f64,
    /// The kernel timestamped its arrival (else `arrived_ms` is `read_ms`: a socket's first
    /// reads can come before the kernel has turned its timestamping on).
    by_kernel: bool,
}

/// What one viewer saw.
#[derive(Default)]
struct Seen {
    /// Connect to response headers, in milliseconds.
    connect_ms: f64,
    /// When the response headers arrived (Unix ms).
    connected_at: f64,
    seqs: Vec<u64>,
    /// The events stamped after the viewer was connected (live ones).
    live: Vec<Delivery>,
    /// The stream reached the log's last event (a decision or an interruption).
    ended: bool,
    /// When it did (Unix ms).
    ended_at: f64,
    /// LM-3: each streamed piece, from the model sending it to this viewer's socket, in ms.
    deltas: Vec<f64>,
    error: Option<String>,
}

pub async fn run(args: LoadArgs) -> Result<(), CliError> {
    let fail = |m: String| CliError::Bench(m);
    if args.debates == 0 || args.viewers == 0 {
        return Err(fail("--debates and --viewers must be at least 1".into()));
    }
    let addr = tokio::net::lookup_host(&args.addr)
        .await
        .map_err(|e| fail(format!("cannot resolve {}: {e}", args.addr)))?
        .next()
        .ok_or_else(|| fail(format!("{} resolves to no address", args.addr)))?;
    let client = reqwest::Client::new();
    let base = format!("http://{}", args.addr);
    let counts = model::serve_for(&args).await?;
    let pid = server_pid(addr);
    let rss_before = pid.and_then(rss_kib);

    let mut ids = Vec::with_capacity(args.debates);
    let mut started = Vec::with_capacity(args.debates);
    for i in 0..args.debates {
        started.push(unix_ms());
        ids.push(start(&client, &base, &args, i).await?);
    }
    // The server's memory, every 25 ms while the crowd watches (once per viewer at its end was
    // thousands of reads of `/proc` while the last events were still being delivered).
    let (stop_sampling, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let sampler = tokio::spawn(async move {
        let mut peak = None;
        let mut tick = tokio::time::interval(Duration::from_millis(25));
        loop {
            peak = peak.max(pid.and_then(rss_kib));
            tokio::select! {
                _ = tick.tick() => {}
                _ = &mut stopped => return peak,
            }
        }
    });
    let began = Instant::now();
    let deadline = began + Duration::from_secs(args.timeout_s);
    let mut tasks = Vec::with_capacity(args.viewers);
    for v in 0..args.viewers {
        let id = ids[v % ids.len()].clone();
        let host = args.addr.clone();
        tasks.push(tokio::spawn(async move {
            match tokio::time::timeout_at(deadline.into(), wire::watch(addr, &host, &id)).await {
                Ok(watched) => watched,
                Err(_) => (
                    Seen {
                        error: Some("timed out before the end of the log".into()),
                        ..Seen::default()
                    },
                    None,
                ),
            }
        }));
    }
    let mut seen = Vec::with_capacity(tasks.len());
    // Each viewer's connection, open until the whole crowd is done (see `wire::watch`).
    let mut kept = Vec::with_capacity(tasks.len());
    for t in tasks {
        let (s, conn) = t.await.unwrap_or_else(|e| {
            let failed = Seen {
                error: Some(format!("viewer task failed: {e}")),
                ..Seen::default()
            };
            (failed, None)
        });
        seen.push(s);
        kept.extend(conn);
    }
    let elapsed = began.elapsed();
    drop(kept);
    let _ = stop_sampling.send(());
    let rss_peak = sampler.await.unwrap_or(None);
    // Each debate's whole log, as stored: what every viewer of it must have received.
    let mut lengths = Vec::with_capacity(ids.len());
    for id in &ids {
        let detail: serde_json::Value = client
            .get(format!("{base}/api/debates/{id}"))
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| fail(format!("reading debate {id}: {e}")))?
            .json()
            .await
            .map_err(|e| fail(format!("reading debate {id}: {e}")))?;
        lengths.push(detail["events"].as_array().map_or(0, Vec::len) as u64);
    }
    report(
        &args,
        &ids,
        &lengths,
        &seen,
        elapsed,
        (rss_before, rss_peak, pid.and_then(rss_kib)),
    );
    if args.model.is_some() {
        model::report(&args, &started, &seen, &counts);
    }
    Ok(())
}

async fn start(
    client: &reqwest::Client,
    base: &str,
    args: &LoadArgs,
    i: usize,
) -> Result<String, CliError> {
    let mut req = client.post(format!("{base}/api/debates")).json(&{
        let roles: Vec<&str> = ["utility", "accuracy", "safety"]
            .into_iter()
            .cycle()
            .take(usize::from(args.agents))
            .collect();
        let mut body = serde_json::json!({"query": args.query, "protocol": "s4", "seed": i,
                "config": {"agents": roles}});
        if args.model.is_some() {
            body["backend"] = "openai".into();
        }
        body
    });
    if let Some(t) = &args.token {
        req = req.bearer_auth(t);
    }
    let resp = req
        .send()
        .await
        .map_err(|e| CliError::Bench(format!("cannot reach {base}: {e}")))?;
    let status = resp.status();
    let body: serde_json::Value = resp.json().await.unwrap_or_default();
    if !status.is_success() {
        let why = body["error"].as_str().unwrap_or("no reason given");
        let hint = if status.as_u16() == 429 {
            " (a load test from one address needs the server's limits raised: \
             --max-debates, --max-debates-per-client, --max-streams-per-client, --rate-limit, \
             --rate-burst)"
        } else {
            ""
        };
        return Err(CliError::Bench(format!(
            "debate {} of {} was refused: {status} {why}{hint}",
            i + 1,
            args.debates
        )));
    }
    body["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| CliError::Bench(format!("the server's answer has no id: {body}")))
}

fn unix_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// The `p`-th percentile (0–100) of sorted `v`.
fn percentile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
    v[rank.min(v.len() - 1)]
}

/// Every live delivery's latency (as `pick` takes it from a delivery), and those of the events
/// stamped once the whole crowd was connected (the fan-out to every viewer without the connecting
/// crowd's own work — each new viewer's request and backlog — in the way); both sorted.
fn latencies(seen: &[Seen], pick: fn(&Delivery) -> f64) -> (Vec<f64>, Vec<f64>) {
    let mut lat: Vec<f64> = seen.iter().flat_map(|s| s.live.iter().map(pick)).collect();
    lat.sort_by(f64::total_cmp);
    let crowd_in = seen
        .iter()
        .filter(|s| s.error.is_none())
        .map(|s| s.connected_at)
        .fold(0.0, f64::max);
    let mut steady: Vec<f64> = seen
        .iter()
        .flat_map(|s| s.live.iter())
        .filter(|d| d.stamped >= crowd_in)
        .map(pick)
        .collect();
    steady.sort_by(f64::total_cmp);
    (lat, steady)
}

/// The median and 99th percentile of sorted latencies, as printed.
fn spread(sorted: &[f64]) -> String {
    format!(
        "p50 {:.1} ms, p99 {:.1} ms",
        percentile(sorted, 50.0),
        percentile(sorted, 99.0)
    )
}

/// `--per-batch`: the live deliveries grouped by the millisecond their event was stamped.
fn print_batches(seen: &[Seen]) {
    let mut batches: std::collections::BTreeMap<i64, (Vec<f64>, Vec<f64>)> = Default::default();
    for d in seen.iter().flat_map(|s| s.live.iter()) {
        let b = batches.entry(d.stamped as i64).or_default();
        b.0.push(d.arrived_ms);
        b.1.push(d.read_ms);
    }
    let first = batches.keys().next().copied().unwrap_or(0);
    for (at, (mut arrived, mut read)) in batches {
        arrived.sort_by(f64::total_cmp);
        read.sort_by(f64::total_cmp);
        let connected = seen
            .iter()
            .filter(|s| s.error.is_none() && s.connected_at <= at as f64)
            .count();
        outln!(
            "  batch at +{} ms: {} deliveries, {connected} viewers connected; arrived {}; read {}",
            at - first,
            arrived.len(),
            spread(&arrived),
            spread(&read),
        );
    }
}

/// Prints the live latencies, as arrived and as read (and `--per-batch`, each batch); the
/// arrivals, those stamped once the crowd was in, and the reads, sorted.
fn print_latencies(seen: &[Seen], per_batch: bool) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (lat, steady) = latencies(seen, |d| d.arrived_ms);
    let (read, read_steady) = latencies(seen, |d| d.read_ms);
    let line = |what: &str, v: &[f64]| {
        outln!(
            "{what}: {} deliveries, {}, max {:.1} ms",
            v.len(),
            spread(v),
            v.last().copied().unwrap_or(0.0)
        );
    };
    if lat.is_empty() {
        outln!(
            "live events: none (every event was stamped before its viewer connected: the \
             debates ended first, so there was no live latency to time)"
        );
        return (lat, steady, read);
    }
    let by_kernel = seen
        .iter()
        .flat_map(|s| s.live.iter())
        .filter(|d| d.by_kernel)
        .count();
    line(
        &format!(
            "live events, stamped → arrived (the kernel's receive time on the viewer's socket, \
             {by_kernel} of {}; the rest timed when read)",
            lat.len()
        ),
        &lat,
    );
    line(
        "  of which stamped once every viewer was connected",
        &steady,
    );
    line(
        "live events, stamped → read by this client (arrival + its own queue of viewers)",
        &read,
    );
    line(
        "  of which stamped once every viewer was connected",
        &read_steady,
    );
    if per_batch {
        print_batches(seen);
    }
    (lat, steady, read)
}

fn report(
    args: &LoadArgs,
    ids: &[String],
    lengths: &[u64],
    seen: &[Seen],
    elapsed: Duration,
    (rss_before, rss_peak, rss_after): (Option<u64>, Option<u64>, Option<u64>),
) {
    let mut exact = 0;
    let mut errors: Vec<&str> = Vec::new();
    for (v, s) in seen.iter().enumerate() {
        let want = lengths[v % ids.len()];
        let gap_free = s.seqs.iter().copied().eq(1..=want);
        if s.ended && gap_free {
            exact += 1;
        } else if let Some(e) = &s.error {
            errors.push(e);
        }
    }
    let mut connect: Vec<f64> = seen
        .iter()
        .filter(|s| s.error.is_none())
        .map(|s| s.connect_ms)
        .collect();
    connect.sort_by(f64::total_cmp);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    outln!(
        "load: {} viewer(s) of {} debate(s) on {} ({cores} cores here), {:.1} s",
        args.viewers,
        ids.len(),
        args.addr,
        elapsed.as_secs_f64()
    );
    outln!(
        "connect (to response headers): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        percentile(&connect, 50.0),
        percentile(&connect, 99.0),
        connect.last().copied().unwrap_or(0.0)
    );
    let (lat, steady, read) = print_latencies(seen, args.per_batch);
    let mib = |k: Option<u64>| {
        k.map_or_else(
            || "unknown".to_owned(),
            |k| format!("{:.1} MiB", k as f64 / 1024.0),
        )
    };
    outln!(
        "server RSS: {} before, {} at the peak seen, {} after",
        mib(rss_before),
        mib(rss_peak),
        mib(rss_after)
    );
    if !errors.is_empty() {
        errors.sort_unstable();
        errors.dedup();
        outln!(
            "viewers that failed ({}): {}",
            args.viewers - exact,
            errors
                .iter()
                .take(3)
                .copied()
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    outln!(
        "load: viewers={} debates={} exact={exact}/{} connect_p99_ms={:.1} p50_ms={:.1} p99_ms={:.1} connected_p99_ms={:.1} read_p99_ms={:.1} rss_peak_mib={}",
        args.viewers,
        ids.len(),
        args.viewers,
        percentile(&connect, 99.0),
        percentile(&lat, 50.0),
        percentile(&lat, 99.0),
        percentile(&steady, 99.0),
        percentile(&read, 99.0),
        rss_peak.map_or_else(|| "unknown".to_owned(), |k| format!("{:.1}", k as f64 / 1024.0))
    );
}

/// The process listening on `addr`'s port on this machine (Linux: its socket's inode in
/// `/proc/net/tcp*`, then the process holding it), so its memory can be read.
fn server_pid(addr: SocketAddr) -> Option<u32> {
    let port = format!("{:04X}", addr.port());
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            // local address "ADDR:PORT", state 0A = LISTEN, inode in column 10.
            if f.len() > 9 && f[1].ends_with(&format!(":{port}")) && f[3] == "0A" {
                inodes.push(format!("socket:[{}]", f[9]));
            }
        }
    }
    let procs = std::fs::read_dir("/proc").ok()?;
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(link) = std::fs::read_link(fd.path()) {
                if inodes.iter().any(|i| link.as_os_str() == i.as_str()) {
                    return Some(pid);
                }
            }
        }
    }
    None
}

/// Resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests;
