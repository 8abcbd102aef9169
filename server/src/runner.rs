//! The debate runner: drives a protocol machine with real agents and a clock, and appends every
//! event to the log — persisted first, published to live viewers second (SV-1, SV-3).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::api::{Backend, Setup, ValidDebate};
use app::protocol::collapse::WcDebate;
use app::protocol::round_robin::{self, RrDebate};
use app::protocol::s4::S4Debate;
use app::protocol::{
    chain, defence, AgentCall, AgentReply, AgentSpec, BackendInfo, Debate, Event, EventBody, Role,
};
use tokio::sync::broadcast;

use crate::agents::http::{HttpAgents, HttpConfig};
use crate::agents::openai::{OpenAiAgents, OpenAiConfig};
use crate::agents::remote::CallPolicy;
use crate::agents::{builtin::BuiltinAgents, Agent};
use crate::db::{NewDebate, Store, StoreError};

/// Live fan-out of appended events to SSE subscribers, per running debate.
#[derive(Default)]
pub struct Hub {
    live: Mutex<HashMap<String, broadcast::Sender<Arc<Event>>>>,
}

impl Hub {
    fn open(&self, id: &str) {
        let (tx, _) = broadcast::channel(256);
        self.lock().insert(id.to_owned(), tx);
    }

    /// `None` when the debate is not running in this process.
    pub fn subscribe(&self, id: &str) -> Option<broadcast::Receiver<Arc<Event>>> {
        self.lock().get(id).map(broadcast::Sender::subscribe)
    }

    fn publish(&self, id: &str, event: Event) {
        if let Some(tx) = self.lock().get(id) {
            // No subscriber is fine: the event is already in the database.
            let _ = tx.send(Arc::new(event));
        }
    }

    fn close(&self, id: &str) {
        self.lock().remove(id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<Arc<Event>>>> {
        // A panic while holding this lock cannot leave the map inconsistent; keep serving.
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Where a driven debate's events go. A batch is durable (or failed) as a whole.
pub trait Journal {
    fn append(
        &mut self,
        events: Vec<Event>,
    ) -> impl std::future::Future<Output = Result<(), StoreError>> + Send;
}

/// In-memory journal (benchmarks, tests).
impl Journal for Vec<Event> {
    async fn append(&mut self, events: Vec<Event>) -> Result<(), StoreError> {
        self.extend(events);
        Ok(())
    }
}

/// The durable journal: persist, then publish. A viewer never sees what a crash can lose.
pub struct StoredJournal {
    pub id: String,
    pub store: Store,
    pub hub: Arc<Hub>,
}

impl Journal for StoredJournal {
    async fn append(&mut self, events: Vec<Event>) -> Result<(), StoreError> {
        self.store.append(&self.id, &events).await?;
        for event in events {
            self.hub.publish(&self.id, event);
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Settings {
    /// Delay before each agent message, so humans can watch (0 in tests).
    pub pace: Duration,
    /// AG-2: a builtin agent call that takes longer fails and counts as REFUSE. Remote calls are
    /// bounded by their [`CallPolicy`] instead.
    pub agent_timeout: Duration,
    pub remote: Remote,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            pace: Duration::ZERO,
            agent_timeout: Duration::from_secs(30),
            remote: Remote::default(),
        }
    }
}

/// The remote agent kinds this server can use, and how it calls them (AG-1, AG-2).
#[derive(Clone, Debug)]
pub struct Remote {
    /// `None`: `"backend": "openai"` is refused with what to configure.
    pub openai: Option<Arc<OpenAiConfig>>,
    pub http: Option<HttpConfig>,
    pub policy: CallPolicy,
    pub client: reqwest::Client,
    /// Tokens a debate may use when its request sets no `token_budget`.
    pub token_budget: u64,
}

/// The server's default per-debate token budget.
pub const DEFAULT_TOKEN_BUDGET: u64 = 200_000;

impl Default for Remote {
    fn default() -> Self {
        Remote {
            openai: None,
            http: None,
            policy: CallPolicy::default(),
            client: crate::outbound::default_client(),
            token_budget: DEFAULT_TOKEN_BUDGET,
        }
    }
}

/// Stamps sequence numbers and timestamps onto machine events.
pub struct Sequencer {
    next: u64,
    prev_hash: String,
}

impl Sequencer {
    pub fn new() -> Self {
        Sequencer {
            next: 1,
            prev_hash: chain::GENESIS.to_owned(),
        }
    }

    /// Continues an existing log after its last event.
    pub fn after(last: &Event) -> Self {
        Sequencer {
            next: last.seq + 1,
            prev_hash: last.hash.clone(),
        }
    }

    /// Numbers, timestamps and hash-chains the next event (SV-1, SV-2): every event of every
    /// debate is sealed here and nowhere else.
    pub fn stamp(&mut self, body: EventBody) -> Event {
        let seq = self.next;
        self.next += 1;
        let event = chain::seal(Event::new(seq, now_rfc3339(), body), &self.prev_hash);
        self.prev_hash.clone_from(&event.hash);
        event
    }
}

impl Default for Sequencer {
    fn default() -> Self {
        Self::new()
    }
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SS.mmmZ`. Hand-rolled because it runs for every event
/// and a general-purpose formatter costs more than the rest of a turn's orchestration.
pub fn now_rfc3339() -> String {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    rfc3339_millis(since.as_secs() as i64, since.subsec_millis())
}

pub fn rfc3339_millis(unix_secs: i64, millis: u32) -> String {
    use std::fmt::Write;
    let (days, sod) = (unix_secs.div_euclid(86_400), unix_secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil algorithm (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mut out = String::with_capacity(24);
    let _ = write!(
        out,
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    );
    out
}

/// Runs a debate to its end: ask, wait (bounded), feed back, append every event in order. With a
/// `budget`, the debate stops asking once its agents have used that many tokens, and decides
/// from what exists (status `budget_exhausted`).
pub async fn drive<A: Agent + ?Sized, J: Journal>(
    machine: &mut Debate,
    agent: &A,
    journal: &mut J,
    seq: &mut Sequencer,
    settings: &Settings,
    budget: Option<u64>,
) -> Result<(), StoreError> {
    let limit = if agent.backend() == "builtin" {
        settings.agent_timeout
    } else {
        settings.remote.policy.worst_case()
    };
    let mut used: u64 = 0;
    // Events of the last call (its cost, injection findings), stored with the machine's events.
    let mut pending: Vec<Event> = Vec::new();
    loop {
        if let Some(b) = budget.filter(|b| used >= *b) {
            machine.exhaust(used, b);
        }
        // Everything the machine emitted since the last reply — the reply's own event, a new
        // round, and the `thinking` of the next request — is stored in one batch.
        let next = machine.poll_request();
        let mut batch = std::mem::take(&mut pending);
        while let Some(body) = machine.poll_event() {
            batch.push(seq.stamp(body));
        }
        if !batch.is_empty() {
            journal.append(batch).await?;
        }
        let Some(req) = next else {
            return Ok(());
        };
        if !settings.pace.is_zero() {
            tokio::time::sleep(settings.pace).await;
        }
        let (reply, usage) = match tokio::time::timeout(limit, agent.respond(&req)).await {
            Ok(answer) => (answer.reply.map_err(|e| e.to_string()), answer.usage),
            Err(_) => (
                Err(format!("no reply within {} s", limit.as_secs_f32())),
                None,
            ),
        };
        if let Some(u) = usage {
            used = used.saturating_add(u.tokens());
            pending.push(seq.stamp(EventBody::AgentCall(AgentCall {
                agent: req.agent.clone(),
                round: req.round,
                backend: agent.backend().to_owned(),
                attempts: u.attempts,
                latency_ms: u.latency_ms,
                prompt_tokens: u.prompt_tokens,
                completion_tokens: u.completion_tokens,
                ok: reply.is_ok(),
                estimated: u.estimated,
            })));
        }
        let failure = match reply {
            Ok(mut reply) => {
                // S4-8: what an agent says to the others is checked for injection attempts.
                for f in defence::scan_reply(&reply) {
                    pending.push(seq.stamp(EventBody::InjectionDetected {
                        source: req.agent.clone(),
                        round: req.round,
                        pattern: f.pattern,
                        excerpt: f.excerpt,
                    }));
                }
                // A card without a timestamp is stamped when it arrives (WC-1).
                if let AgentReply::Card(card) = &mut reply {
                    if card.timestamp.is_empty() {
                        card.timestamp = now_rfc3339();
                    }
                }
                machine
                    .handle_reply(req.id, reply)
                    .err()
                    .map(|e| e.to_string())
            }
            Err(e) => Some(e),
        };
        if let Some(error) = failure {
            // S4-8: the machine substitutes a cautious answer; this cannot fail for an open request.
            if let Err(e) = machine.handle_failure(req.id, &error) {
                tracing::error!(request = req.id, "protocol refused a failure report: {e}");
            }
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Protocol(#[from] app::protocol::ProtocolError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The request asks for an agent kind this server is not configured for.
    #[error("{0}")]
    Backend(String),
}

/// Owns everything a running server needs to start and stream debates.
#[derive(Clone)]
pub struct Engine {
    pub store: Store,
    pub hub: Arc<Hub>,
    pub settings: Settings,
}

impl Engine {
    pub fn new(store: Store, settings: Settings) -> Self {
        Engine {
            store,
            hub: Arc::new(Hub::default()),
            settings,
        }
    }

    /// Creates the debate (row and first events in one transaction) and runs it in the background.
    pub async fn start(&self, req: ValidDebate) -> Result<String, StartError> {
        let seed = req.seed.unwrap_or_else(random_seed);
        let mut machine = build(&req, seed)?;
        let agents = self.agents(&req, seed)?;
        let budget = req
            .token_budget
            .unwrap_or(self.settings.remote.token_budget);
        let id = new_id();
        let mut seq = Sequencer::new();
        let mut first = Vec::new();
        while let Some(mut body) = machine.poll_event() {
            // AG-2: who answers and the budget are on record, so a judge can check a budget stop.
            if let EventBody::DebateStarted { backend, .. } = &mut body {
                *backend = self.backend_info(&req, budget);
            }
            first.push(seq.stamp(body));
        }
        // S4-8: injection attempts in the query are on record before any agent reads it.
        for f in defence::scan(&req.query) {
            first.push(seq.stamp(EventBody::InjectionDetected {
                source: "query".into(),
                round: 0,
                pattern: f.pattern,
                excerpt: f.excerpt,
            }));
        }
        let created_at = first
            .first()
            .map(|e| e.ts.clone())
            .unwrap_or_else(now_rfc3339);
        let row = NewDebate {
            id: &id,
            query: &req.query,
            protocol: req.protocol.as_str(),
            seed,
            created_at: &created_at,
        };
        self.store.create_debate(&row, &first).await?;
        self.hub.open(&id);
        let engine = self.clone();
        let debate = id.clone();
        tokio::spawn(async move {
            let mut journal = StoredJournal {
                id: debate.clone(),
                store: engine.store.clone(),
                hub: engine.hub.clone(),
            };
            let result = drive(
                &mut machine,
                &*agents,
                &mut journal,
                &mut seq,
                &engine.settings,
                Some(budget),
            )
            .await;
            if let Err(e) = result {
                tracing::error!(debate = %debate, "debate stopped, log kept up to the failure: {e}");
                let reason = format!("the server could not store the debate: {e}");
                if let Err(e) = engine.interrupt(&debate, reason).await {
                    tracing::error!(debate = %debate, "could not mark the debate interrupted: {e}");
                }
            }
            // Viewers of the hub fall back to the database, which has the final event.
            engine.hub.close(&debate);
        });
        Ok(id)
    }

    /// What `debate_started` records of a remote backend; nothing for the builtin agents.
    fn backend_info(&self, req: &ValidDebate, budget: u64) -> Option<BackendInfo> {
        let model = match req.backend {
            Backend::Builtin => return None,
            Backend::Openai => self
                .settings
                .remote
                .openai
                .as_ref()
                .map(|c| c.model.clone()),
            Backend::Http => None,
        };
        Some(BackendInfo {
            kind: req.backend.as_str().to_owned(),
            model,
            token_budget: budget,
        })
    }

    /// The agents a request asks for (AG-1), or what the server lacks to provide them.
    fn agents(&self, req: &ValidDebate, seed: u64) -> Result<Box<dyn Agent>, StartError> {
        let remote = &self.settings.remote;
        Ok(match req.backend {
            Backend::Builtin => Box::new(BuiltinAgents::new(seed)),
            Backend::Openai => {
                let config = remote.openai.clone().ok_or_else(|| {
                    StartError::Backend(
                        "backend 'openai' is not configured on this server: start it with \
                         OPENAI_MODEL (and OPENAI_BASE_URL, OPENAI_API_KEY as needed) or \
                         --openai-model"
                            .into(),
                    )
                })?;
                Box::new(OpenAiAgents {
                    config,
                    policy: remote.policy.clone(),
                    client: remote.client.clone(),
                    seed,
                })
            }
            Backend::Http => {
                let config = remote.http.clone().ok_or_else(|| {
                    StartError::Backend(
                        "backend 'http' is not configured on this server: start it with \
                         CONSILIUM_HTTP_AGENT_URL or --http-agent-url"
                            .into(),
                    )
                })?;
                Box::new(HttpAgents {
                    config,
                    policy: remote.policy.clone(),
                    client: remote.client.clone(),
                    protocol: req.protocol.as_str(),
                    seed,
                })
            }
        })
    }

    /// SV-5: debates that were running when their server stopped are marked `interrupted`, with
    /// an event saying so, so their logs end cleanly and live viewers stop waiting. Run at start;
    /// with PostgreSQL also periodically ([`Engine::sweep_orphans`]), and only for debates whose
    /// server process is gone, never those another live process is running. Returns how many
    /// this call interrupted.
    pub async fn recover(&self) -> Result<usize, StoreError> {
        let mut interrupted = 0;
        for id in self.store.orphans().await? {
            let reason = "the server running this debate stopped before it finished";
            if self.interrupt(&id, reason.into()).await? {
                interrupted += 1;
            }
        }
        Ok(interrupted)
    }

    /// Ends a debate's log with an `interrupted` event chained to the last event actually stored
    /// (not to whatever a failed batch had stamped). Returns `false` when the log already ended,
    /// or when another writer appended first (another process recovering it at the same moment):
    /// the primary key on `(debate, seq)` keeps one chain either way.
    async fn interrupt(&self, id: &str, reason: String) -> Result<bool, StoreError> {
        let last = self.store.last_event(id).await?;
        if last.as_ref().is_some_and(|e| e.body.is_terminal()) {
            return Ok(false);
        }
        let mut seq = last.as_ref().map_or_else(Sequencer::new, Sequencer::after);
        let event = seq.stamp(EventBody::Interrupted { reason });
        match self.store.append(id, &[event]).await {
            Ok(()) => Ok(true),
            Err(e) if e.is_conflict() => {
                tracing::info!(debate = %id, "not interrupted: another writer appended first");
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// PostgreSQL: every `every`, interrupts the debates of server processes that have died since,
    /// so viewers following them from this process see their logs end.
    pub fn sweep_orphans(&self, every: Duration) {
        let engine = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                match engine.recover().await {
                    Ok(0) => {}
                    Ok(n) => tracing::warn!(
                        "{n} debate(s) were left running by a server process that stopped; marked interrupted"
                    ),
                    Err(e) => tracing::warn!("looking for debates of stopped servers failed: {e}"),
                }
            }
        });
    }
}

/// The protocol machine a validated request asks for.
pub fn build(req: &ValidDebate, seed: u64) -> Result<Debate, app::protocol::ProtocolError> {
    Ok(match &req.setup {
        Setup::S4 => Debate::S4(S4Debate::new(&req.query, AgentSpec::default_s4(), seed)?),
        Setup::RoundRobin(params) => Debate::RoundRobin(RrDebate::new(
            &req.query,
            round_robin::default_agents(),
            params.clone(),
            seed,
        )?),
        Setup::Collapse { params, cards } => {
            let now = now_rfc3339();
            let cards: Vec<_> = cards
                .iter()
                .cloned()
                .map(|mut c| {
                    if c.timestamp.is_empty() {
                        c.timestamp.clone_from(&now);
                    }
                    c
                })
                .collect();
            let authors = if cards.is_empty() {
                app::protocol::collapse::default_authors()
            } else {
                cards
                    .iter()
                    .map(|c| AgentSpec::new(c.agent.clone(), Role::Author))
                    .collect()
            };
            Debate::Collapse(Box::new(WcDebate::new(
                &req.query,
                authors,
                cards,
                params.clone(),
                seed,
            )?))
        }
    })
}

fn new_id() -> String {
    let mut s = uuid::Uuid::new_v4().simple().to_string();
    s.truncate(16);
    s
}

fn random_seed() -> u64 {
    let (hi, lo) = uuid::Uuid::new_v4().as_u64_pair();
    (hi ^ lo) % 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failed batch advanced the sequencer past events that were never stored: the
    /// `interrupted` event must chain to the last *stored* event, and be written once.
    #[tokio::test]
    async fn interrupt_chains_to_the_last_stored_event_once() {
        let store = Store::connect("sqlite::memory:").await.expect("store");
        let settings = Settings {
            agent_timeout: Duration::from_secs(1),
            ..Settings::default()
        };
        let engine = Engine::new(store.clone(), settings);
        let mut seq = Sequencer::new();
        let first = vec![seq.stamp(EventBody::Thinking {
            agent: "utility".into(),
            round: 1,
        })];
        let row = NewDebate {
            id: "d",
            query: "q",
            protocol: "s4",
            seed: 1,
            created_at: "2026-01-01T00:00:00.000Z",
        };
        store.create_debate(&row, &first).await.expect("create");
        let _never_stored = seq.stamp(EventBody::Thinking {
            agent: "safety".into(),
            round: 1,
        });
        assert!(engine
            .interrupt("d", "boom".into())
            .await
            .expect("interrupt"));
        assert!(!engine.interrupt("d", "again".into()).await.expect("second"));
        let log = store.events_after("d", 0).await.expect("log");
        assert_eq!(log.len(), 2);
        assert_eq!(log[1].body.kind(), "interrupted");
        assert_eq!(app::protocol::chain::verify_chain(&log), Ok(2));
        let status = store.status("d").await.expect("status");
        assert_eq!(status.as_deref(), Some("interrupted"));
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let cases = [
            (0, 0, "1970-01-01T00:00:00.000Z"),
            (951_782_400, 5, "2000-02-29T00:00:00.005Z"),
            (1_700_000_000, 123, "2023-11-14T22:13:20.123Z"),
            (1_795_305_599, 999, "2026-11-21T23:59:59.999Z"),
            (4_107_542_400, 0, "2100-03-01T00:00:00.000Z"),
        ];
        for (secs, ms, want) in cases {
            assert_eq!(rfc3339_millis(secs, ms), want, "{secs}");
        }
    }
}
