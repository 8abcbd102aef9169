//! The RC machine: one request embeds every observation (RC-1); the topics form from the
//! embeddings; each topic with two or more observations is one reconciler request (RC-3, never
//! one per pair), weighted by credibility and authority (RC-2); every belief is logged with
//! what answers "why?" (RC-5); the decision lists the beliefs.

use std::collections::VecDeque;
use std::sync::Arc;

use super::cluster::cluster;
use super::outcome::outcome;
use super::rules::unresolved;
use super::types::{
    Belief, Embedded, Observation, RcConfig, RcOutcome, Reconciliation, Topic, Weighed,
};
use super::vectors::{lexical, quantise, LEXICAL, LEXICAL_DIM};
use super::weights::{from_snapshot, weigh, AgentCredibility};
use crate::credibility::CredibilitySnapshot;
use crate::error::ProtocolError;
use crate::reconcile::{RcEvent, RcReply, RcTask};
use crate::shared::{CommonEvent, Emit, Machine, Request, RequestQueue, RoundInfo, Started};
use crate::types::{AgentSpec, Role};

use super::types::{EMBEDDER, RECONCILER, SINGLE};

/// What a reconciliation machine logs.
pub type RcEmit = Emit<RcEvent, RcConfig, RcOutcome>;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    Embed,
    Topic(usize),
}

#[derive(Debug)]
pub struct RcDebate {
    query: Arc<str>,
    config: RcConfig,
    agents: Vec<AgentSpec>,
    credibility: Vec<AgentCredibility>,
    requests: RequestQueue<RcTask, Step>,
    events: VecDeque<RcEmit>,
    topics: Vec<Topic>,
    beliefs: Vec<Option<Belief>>,
    outcome: Option<RcOutcome>,
}

/// The agents of a reconciliation: every observing agent (data, never asked, but weighed by
/// its credibility), then the embedder and the reconciler (who are asked).
pub fn agents_of(observations: &[Observation]) -> Vec<AgentSpec> {
    let mut agents: Vec<AgentSpec> = Vec::new();
    for o in observations {
        if !agents.iter().any(|a| a.id == o.agent) {
            agents.push(AgentSpec::new(o.agent.clone(), Role::Observer));
        }
    }
    agents.push(AgentSpec::new(EMBEDDER, Role::Embedder));
    agents.push(AgentSpec::new(RECONCILER, Role::Reconciler));
    agents
}

impl RcDebate {
    /// FK-1: every agent asked from now on reads `note` after the query.
    pub fn add_note(&mut self, note: &str) {
        self.query = Arc::from(format!("{}\n\n{note}", self.query));
        self.requests.add_note(note);
    }

    pub fn new(query: &str, config: RcConfig, seed: u64) -> Result<Self, ProtocolError> {
        super::validate::check(&config).map_err(ProtocolError::BadInput)?;
        let agents = agents_of(&config.observations);
        let mut debate = RcDebate {
            query: Arc::from(query),
            agents,
            credibility: Vec::new(),
            requests: RequestQueue::with_capacity(1),
            events: VecDeque::new(),
            topics: Vec::new(),
            beliefs: Vec::new(),
            outcome: None,
            config,
        };
        debate.events.push_back(Emit::Started(Box::new(Started {
            protocol: "reconcile".into(),
            query: query.to_owned(),
            seed,
            agents: debate.agents.clone(),
            rounds: vec![
                RoundInfo {
                    round: 1,
                    name: ROUND_1.into(),
                    expected: 1,
                },
                RoundInfo {
                    round: 2,
                    name: ROUND_2.into(),
                    expected: 0,
                },
            ],
            config: Some(debate.config.clone()),
        })));
        debate
            .events
            .push_back(Emit::Common(CommonEvent::RoundStarted {
                round: 1,
                name: ROUND_1.into(),
                expected: 1,
            }));
        let texts = debate
            .config
            .observations
            .iter()
            .map(|o| o.content.clone())
            .collect();
        debate.requests.push(
            EMBEDDER,
            Role::Embedder,
            1,
            RcTask::Embed {
                query: debate.query.clone(),
                texts,
            },
            Step::Embed,
        );
        Ok(debate)
    }

    pub fn outcome(&self) -> Option<&RcOutcome> {
        self.outcome.as_ref()
    }

    /// RC-1: the embeddings are in: log them, form the topics, and ask about each.
    fn embedded(&mut self, embedded: Embedded) {
        let topics = cluster(
            &self.config.observations,
            &embedded.vectors,
            &self.config.params,
        );
        self.events
            .push_back(Emit::Own(RcEvent::Embedded(embedded)));
        for t in &topics {
            self.events.push_back(Emit::Own(RcEvent::Topic(t.clone())));
        }
        self.events
            .push_back(Emit::Common(CommonEvent::RoundStarted {
                round: 2,
                name: ROUND_2.into(),
                expected: topics.len() as u32,
            }));
        self.beliefs = vec![None; topics.len()];
        self.topics = topics;
        for t in 0..self.topics.len() {
            let members = self.members(t);
            if members.len() == 1 {
                let only = &members[0];
                let reply = single(only);
                self.believe(t, reply, SINGLE, None);
            } else {
                let task = RcTask::Reconcile {
                    query: self.query.clone(),
                    topic: self.topics[t].topic.clone(),
                    label: self.topics[t].label.clone(),
                    observations: members,
                    params: self.config.params,
                };
                self.requests
                    .push(RECONCILER, Role::Reconciler, 2, task, Step::Topic(t));
            }
        }
        self.finish_if_done();
    }

    /// RC-2: topic `t`'s observations as the reconciler sees them.
    fn members(&self, t: usize) -> Vec<Weighed> {
        let obs: Vec<&Observation> = self.topics[t]
            .observation_ids
            .iter()
            .filter_map(|id| self.config.observations.iter().find(|o| o.id == *id))
            .collect();
        let weights = weigh(&obs, &self.credibility);
        obs.iter()
            .zip(weights)
            .map(|(o, w)| Weighed::of(o, &w))
            .collect()
    }

    fn believe(&mut self, t: usize, reply: Reconciliation, by: &str, unresolved: Option<String>) {
        let topic = &self.topics[t];
        let obs: Vec<&Observation> = topic
            .observation_ids
            .iter()
            .filter_map(|id| self.config.observations.iter().find(|o| o.id == *id))
            .collect();
        let belief = Belief {
            topic: topic.topic.clone(),
            label: topic.label.clone(),
            observation_ids: topic.observation_ids.clone(),
            weights: weigh(&obs, &self.credibility),
            conflicts: reply.conflicts,
            consolidated_belief: reply.consolidated_belief,
            confidence: reply.confidence,
            needs_clarification: reply.needs_clarification,
            clarification_question: reply.clarification_question,
            reasoning: reply.reasoning,
            by: by.to_owned(),
            unresolved,
        };
        self.events
            .push_back(Emit::Own(RcEvent::Belief(Box::new(belief.clone()))));
        self.beliefs[t] = Some(belief);
    }

    fn finish_if_done(&mut self) {
        if self.outcome.is_some() || !self.requests.is_idle() {
            return;
        }
        if self.beliefs.iter().any(Option::is_none) {
            return;
        }
        let beliefs: Vec<Belief> = self.beliefs.iter().flatten().cloned().collect();
        let o = outcome(&beliefs, self.config.observations.len(), false);
        self.events.push_back(Emit::Decided(o.clone()));
        self.outcome = Some(o);
    }

    /// A reply the machine cannot use for topic `t`: the topic stays unresolved, and says why.
    fn unresolved(&mut self, t: usize, reason: &str) {
        let members = self.members(t);
        let reply = unresolved(reason, &self.topics[t].label, &members);
        self.believe(t, reply, RECONCILER, Some(reason.to_owned()));
    }
}

pub const ROUND_1: &str = "Embed and group the observations";
pub const ROUND_2: &str = "Reconcile each topic";

/// A topic of one observation is believed as stated.
pub fn single(o: &Weighed) -> Reconciliation {
    Reconciliation {
        conflicts: false,
        consolidated_belief: Some(o.content.trim().to_owned()),
        confidence: super::vectors::round3(o.weight),
        needs_clarification: false,
        clarification_question: None,
        reasoning: format!(
            "A single observation ({}, by {}): nothing to reconcile; its confidence is its weight.",
            o.id, o.agent
        ),
    }
}

/// The reply's embeddings, checked and quantised; or why they cannot be used.
pub fn check_embeddings(
    model: &str,
    vectors: &[Vec<f32>],
    expected: usize,
) -> Result<Embedded, String> {
    if vectors.len() != expected {
        return Err(format!(
            "the embedder returned {} vectors for {expected} observations",
            vectors.len()
        ));
    }
    let dim = vectors.first().map_or(0, Vec::len);
    let mut out = Vec::with_capacity(expected);
    for (i, v) in vectors.iter().enumerate() {
        if v.len() != dim {
            return Err(format!(
                "vector {} has {} dimensions, the first has {dim}",
                i + 1,
                v.len()
            ));
        }
        out.push(quantise(v).ok_or_else(|| {
            format!(
                "vector {} is empty, zero, not finite or over {} dimensions",
                i + 1,
                super::types::MAX_DIM
            )
        })?);
    }
    Ok(Embedded {
        model: super::cluster::shorten(model, 120),
        dim: dim as u32,
        vectors: out,
    })
}

/// RC-1 when the embedder failed: word overlap, named as such.
pub fn lexical_embedding(observations: &[Observation]) -> Embedded {
    Embedded {
        model: LEXICAL.into(),
        dim: LEXICAL_DIM as u32,
        vectors: observations.iter().map(|o| lexical(&o.content)).collect(),
    }
}

/// A reconciler's reply, checked against its topic (RC-3 "strict about content").
fn check_reply(reply: &Reconciliation) -> Result<(), String> {
    if !reply.confidence.is_finite() || !(0.0..=1.0).contains(&reply.confidence) {
        return Err(format!(
            "confidence {} is not from 0 to 1",
            reply.confidence
        ));
    }
    if reply.reasoning.trim().is_empty() {
        return Err("the reasoning is empty".into());
    }
    if reply.needs_clarification
        && reply
            .clarification_question
            .as_deref()
            .is_none_or(|q| q.trim().is_empty())
    {
        return Err("it needs clarification but asks no question".into());
    }
    if !reply.needs_clarification && reply.consolidated_belief.is_none() {
        return Err("it has no consolidated belief and needs no clarification".into());
    }
    Ok(())
}

impl Machine for RcDebate {
    type Event = RcEvent;
    type Params = RcConfig;
    type Outcome = RcOutcome;
    type Task = RcTask;
    type Reply = RcReply;

    fn poll_request(&mut self) -> Option<Request<RcTask>> {
        if self.outcome.is_some() {
            return None;
        }
        self.requests.next(&mut self.events)
    }

    fn poll_event(&mut self) -> Option<RcEmit> {
        self.events.pop_front()
    }

    fn handle_reply(&mut self, id: u32, reply: RcReply) -> Result<(), ProtocolError> {
        let step = *self.requests.pending(id)?;
        match (step, reply) {
            (Step::Embed, RcReply::Embeddings { model, vectors }) => {
                let embedded = check_embeddings(&model, &vectors, self.config.observations.len())
                    .map_err(ProtocolError::BadReply)?;
                self.requests.take(id)?;
                self.embedded(embedded);
            }
            (Step::Topic(t), RcReply::Reconciliation(reply)) => {
                check_reply(&reply).map_err(ProtocolError::BadReply)?;
                self.requests.take(id)?;
                self.believe(t, reply, RECONCILER, None);
                self.finish_if_done();
            }
            (_, other) => {
                return Err(ProtocolError::WrongReply {
                    round: if step == Step::Embed { 1 } else { 2 },
                    got: other.kind(),
                })
            }
        }
        Ok(())
    }

    /// S4-8 here: a failed embedder falls back to the lexical grouping (named as such); a failed
    /// or unusable reconciler reply leaves its topic unresolved — needs clarification — with
    /// the reason.
    fn handle_failure(&mut self, id: u32, error: &str) -> Result<(), ProtocolError> {
        let step = self.requests.take(id)?;
        match step {
            Step::Embed => {
                self.events
                    .push_back(Emit::Common(CommonEvent::AgentFailed {
                        agent: EMBEDDER.into(),
                        round: 1,
                        error: error.to_owned(),
                        substitute: "lexical fallback: topics by shared words, not meaning".into(),
                    }));
                let embedded = lexical_embedding(&self.config.observations);
                self.embedded(embedded);
            }
            Step::Topic(t) => {
                self.events
                    .push_back(Emit::Common(CommonEvent::AgentFailed {
                        agent: RECONCILER.into(),
                        round: 2,
                        error: error.to_owned(),
                        substitute: "unresolved — needs clarification".into(),
                    }));
                self.unresolved(t, error);
                self.finish_if_done();
            }
        }
        Ok(())
    }

    /// The budget ran out: every topic not yet reconciled is unresolved.
    fn exhaust(&mut self, used: u64, budget: u64) {
        if self.outcome.is_some() {
            return;
        }
        self.requests.clear();
        let round = if self.topics.is_empty() { 1 } else { 2 };
        self.events
            .push_back(Emit::Common(CommonEvent::BudgetExhausted {
                round,
                used,
                budget,
            }));
        for t in 0..self.topics.len() {
            if self.beliefs[t].is_none() {
                self.unresolved(
                    t,
                    "the token budget ran out before this topic was reconciled",
                );
            }
        }
        let beliefs: Vec<Belief> = self.beliefs.iter().flatten().cloned().collect();
        let o = outcome(&beliefs, self.config.observations.len(), true);
        self.events.push_back(Emit::Decided(o.clone()));
        self.outcome = Some(o);
    }

    fn is_finished(&self) -> bool {
        self.outcome.is_some()
    }

    fn agents(&self) -> &[AgentSpec] {
        &self.agents
    }

    /// CR-4/RC-2: the observing agents' credibility.
    fn set_credibility(&mut self, snapshot: &CredibilitySnapshot) {
        self.credibility = from_snapshot(Some(snapshot));
    }
}
