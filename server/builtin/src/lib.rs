//! AG-1 builtin agents, a crate of their own, tested without a server: the offline, deterministic
//! default for every protocol. Each reply is a pure function of (seed, agent, round, task): phrase features of the query read from each
//! role's perspective (S4-1), plus a small seeded jitter so borderline queries can go either way
//! across seeds.
//!
//! Arranged by protocol (`s4`, `round_robin`, `collapse`, `escalation`, plus `eval`'s task
//! answerer), over one shared reading of the query (`reading`).

mod collapse;
pub mod embed;
mod escalation;
pub mod eval;
mod reading;
pub mod reconcile;
mod round_robin;
mod s4;

use std::sync::{Arc, Mutex};

use protocol::collapse::WcTask;
use protocol::escalation::EsTask;
use protocol::reconcile::{RcReply, RcTask};
use protocol::round_robin::RrTask;
use protocol::s4::{S4Reply, S4Task};
use protocol::{AgentReply, AgentRequest, Task};

use reading::profile::Profile;
use reading::taxonomy;
pub use reading::taxonomy::{Knobs, KNOBS};

/// A query and how the agents read it.
type LastProfile = (Arc<str>, Arc<Profile>);

#[derive(Debug, Clone)]
pub struct BuiltinAgents {
    pub seed: u64,
    /// The taxonomy's semantic check and its settings (`None`: phrase features only, the
    /// "before" column of `consilium-bench safety`).
    semantic: Option<taxonomy::Knobs>,
    /// The last query's profile: every request of a debate carries the same query, and reading
    /// it is most of an agent's work.
    profile: Arc<Mutex<Option<LastProfile>>>,
}

impl BuiltinAgents {
    pub fn new(seed: u64) -> Self {
        BuiltinAgents {
            seed,
            semantic: Some(taxonomy::KNOBS),
            profile: Arc::default(),
        }
    }

    /// Agents that read phrase features only, without the semantic check: the evaluation's
    /// baseline.
    pub fn phrase_only(seed: u64) -> Self {
        BuiltinAgents {
            semantic: None,
            ..BuiltinAgents::new(seed)
        }
    }

    /// Agents whose semantic check uses other settings (`consilium-bench safety --sweep`).
    pub fn with_knobs(seed: u64, knobs: taxonomy::Knobs) -> Self {
        BuiltinAgents {
            semantic: Some(knobs),
            ..BuiltinAgents::new(seed)
        }
    }

    fn read(&self, query: &str) -> Profile {
        let f = reading::features::Features::of(query);
        let reading = match self.semantic {
            Some(k) => taxonomy::shared().map_or(taxonomy::Reading::Unread, |t| {
                reading::meaning(&t, query, &f, k)
            }),
            None => taxonomy::Reading::Unread,
        };
        Profile::of(query, f, reading)
    }

    /// How the roles read `query`, in one line (see `consilium-bench safety --misses`).
    pub fn explain(&self, query: &str) -> String {
        self.read(query).explain()
    }

    fn profile(&self, query: &Arc<str>) -> Arc<Profile> {
        let Ok(mut cached) = self.profile.lock() else {
            return Arc::new(self.read(query));
        };
        match cached.as_ref() {
            Some((q, p)) if Arc::ptr_eq(q, query) || **q == **query => p.clone(),
            _ => {
                let p = Arc::new(self.read(query));
                *cached = Some((query.clone(), p.clone()));
                p
            }
        }
    }

    /// Answers any request with the variant its task expects; never panics (S4-8).
    pub fn reply(&self, req: &AgentRequest) -> AgentReply {
        match &req.task {
            Task::S4(S4Task::Analyse { query }) => {
                let p = self.profile(query);
                let mut rng = Rng::new(self.seed, query, &req.agent, req.round, "");
                AgentReply::S4(S4Reply::Position(s4::position(req.role, &p, &mut rng)))
            }
            Task::S4(S4Task::Challenge {
                query,
                own,
                target,
                target_role,
                target_reasoning,
            }) => {
                let p = self.profile(query);
                let mut rng = Rng::new(self.seed, query, &req.agent, req.round, target);
                let (text, argues_for) =
                    s4::challenge(req.role, own, *target_role, target_reasoning, &p, &mut rng);
                AgentReply::S4(S4Reply::Challenge { text, argues_for })
            }
            Task::S4(S4Task::Revise {
                query,
                own,
                challenges,
            }) => {
                let p = self.profile(query);
                let mut rng = Rng::new(self.seed, query, &req.agent, req.round, "");
                AgentReply::S4(S4Reply::Position(s4::revise(
                    req.role, own, challenges, &p, &mut rng,
                )))
            }
            Task::RoundRobin(RrTask::Turn { .. }) => round_robin::turn(self.seed, req),
            Task::Collapse(WcTask::WriteCard { .. })
            | Task::Collapse(WcTask::ReviseCard { .. })
            | Task::Collapse(WcTask::VerifyCard { .. })
            | Task::Collapse(WcTask::Critique { .. })
            | Task::Collapse(WcTask::Evaluate { .. }) => collapse::reply(self.seed, req),
            Task::Escalation(EsTask::Estimate { .. })
            | Task::Escalation(EsTask::AnswerChallenge { .. })
            | Task::Escalation(EsTask::WeighEvidence { .. }) => escalation::reply(self.seed, req),
            // Only the embedder can fail (its table missing): an empty answer, which the
            // machine refuses and replaces by the lexical fallback. `try_reply` keeps the reason.
            Task::Reconcile(RcTask::Embed { .. }) | Task::Reconcile(RcTask::Reconcile { .. }) => {
                reconcile::reply(req).unwrap_or_else(|_| {
                    AgentReply::Reconcile(RcReply::Embeddings {
                        model: String::new(),
                        vectors: Vec::new(),
                    })
                })
            }
        }
    }

    /// [`BuiltinAgents::reply`], or why the builtin embedder cannot answer.
    pub fn try_reply(&self, req: &AgentRequest) -> Result<AgentReply, String> {
        match &req.task {
            Task::Reconcile(RcTask::Embed { .. }) | Task::Reconcile(RcTask::Reconcile { .. }) => {
                reconcile::reply(req)
            }
            _ => Ok(self.reply(req)),
        }
    }
}

/// Builds the hazard taxonomy's exemplar vectors now rather than in the first debate, then
/// gives the model's pages back to the page cache: an idle server holds none of the weights.
/// (The first start encodes the exemplars, whose vectors are kept for the next: the caller may
/// give the activations' heap back to the system too.)
pub fn warm_up() {
    let _ = taxonomy::shared();
    if let Ok(embedder) = crate::embed::shared() {
        embedder.release_rows();
    }
}

/// Test support: runs a whole debate synchronously with the builtin agents (every reply must be
/// accepted); returns every event and the outcome from the final `decision` event.
#[cfg(test)]
pub(crate) fn run_debate(
    mut d: protocol::Debate,
    seed: u64,
) -> (Vec<protocol::EventBody>, protocol::Outcome) {
    let builtin = BuiltinAgents::new(seed);
    let mut events = Vec::new();
    loop {
        while let Some(e) = d.poll_event() {
            events.push(e);
        }
        let Some(req) = d.poll_request() else { break };
        let reply = builtin.reply(&req);
        d.handle_reply(req.id, reply)
            .expect("builtin reply has the right shape");
    }
    assert!(d.is_finished(), "the debate finished");
    let Some(protocol::EventBody::Debate(protocol::DebateEvent::Decision(outcome))) =
        events.last().cloned()
    else {
        panic!("a finished debate ends with its decision")
    };
    (events, outcome)
}

/// FNV-1a over the inputs seeds the core's SplitMix64 stream: no `rand`, no clock, same bytes
/// every run.
pub(crate) struct Rng(protocol::seeded::SplitMix64);

impl Rng {
    fn new(seed: u64, query: &str, agent: &str, round: u16, salt: &str) -> Rng {
        use std::hash::Hasher;
        let mut h = protocol::seeded::Fnv1a::default();
        let mut eat = |bytes: &[u8]| h.write(bytes);
        eat(&seed.to_le_bytes());
        // A round below 256 is one byte, as when rounds were bytes, so its stream is unchanged.
        let round = round.to_le_bytes();
        let round = if round[1] == 0 {
            &round[..1]
        } else {
            &round[..]
        };
        for part in [query.as_bytes(), agent.as_bytes(), round, salt.as_bytes()] {
            eat(&[0xff]);
            eat(part);
        }
        Rng(protocol::seeded::SplitMix64(h.finish()))
    }

    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `-r..=r`.
    pub fn jitter(&mut self, r: i32) -> i32 {
        if r <= 0 {
            return 0;
        }
        let span = (2 * r + 1) as u64;
        (self.next() % span) as i32 - r
    }

    pub fn pick(&mut self, options: &[&'static str]) -> &'static str {
        if options.is_empty() {
            return "";
        }
        options[(self.next() % options.len() as u64) as usize]
    }
}

/// Clamps a score to a 0–100 protocol number.
pub(crate) fn pct(x: i32) -> u8 {
    x.clamp(0, 100) as u8
}
