//! SV-2/RC-5 for RC: what `verify`, the audit view and the offline viewer run. From the logged
//! observations, parameters, credibility snapshot and embeddings — no model call — it forms
//! the topics again, weighs every observation again, checks each belief considered exactly its
//! topic's members with those weights, recomputes the beliefs nobody was asked about (single
//! observations, unresolved topics' questions aside) and the builtin reconciler's answers, and
//! the decision from the beliefs.

use super::cluster::cluster;
use super::machine::{lexical_embedding, single};
use super::outcome::outcome;
use super::rules::reconcile;
use super::types::{Belief, Embedded, Observation, RcConfig, RcOutcome, Topic, Weighed};
use super::types::{RECONCILER, SINGLE};
use super::vectors::LEXICAL;
use super::weights::{from_snapshot, weigh, AgentCredibility};
use crate::credibility::CredibilitySnapshot;
use crate::reconcile::{RcEntry, RcEvent};
use crate::shared::{CommonEvent, Seen};

/// What the recomputation found, for the audit view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RcCheck {
    pub topics: usize,
    pub beliefs: usize,
    /// Beliefs whose answer was recomputed too (single observations, the builtin reconciler).
    pub answers_recomputed: usize,
    pub model: String,
}

/// SV-2 for RC: the recomputed outcome, or the first step that differs.
pub fn recompute(events: &[RcEntry<'_>]) -> Result<RcOutcome, String> {
    check(events).map(|(o, _)| o)
}

/// [`recompute`] with what was checked.
#[allow(clippy::too_many_lines)] // one arm per RC event kind
pub fn check(events: &[RcEntry<'_>]) -> Result<(RcOutcome, RcCheck), String> {
    let mut config: Option<&RcConfig> = None;
    let mut builtin = true;
    let mut snapshot: Option<&CredibilitySnapshot> = None;
    let mut topics: Option<Vec<Topic>> = None;
    let mut logged_topics: Vec<(u64, &Topic)> = Vec::new();
    let mut beliefs: Vec<Belief> = Vec::new();
    let mut cut = false;
    let mut found = RcCheck::default();
    for e in events {
        match e.body {
            Seen::Started {
                config: c,
                backend,
                agents,
                ..
            } => {
                config = match c {
                    Some(c) => Some(c),
                    None => return Err("the log does not record the observations".into()),
                };
                // The builtin reconciler's answers are recomputed; a model's cannot be.
                builtin = match agents
                    .iter()
                    .find(|a| a.id == RECONCILER)
                    .and_then(|a| a.backend.as_deref())
                {
                    Some(kind) => kind == "builtin",
                    None => backend.is_none(),
                };
            }
            Seen::Common(CommonEvent::Credibility(s)) => snapshot = Some(s),
            Seen::Own(RcEvent::Embedded(embedded)) => {
                let c = config.ok_or("embeddings before debate_started")?;
                check_embedded(e.seq, embedded, &c.observations)?;
                found.model.clone_from(&embedded.model);
                topics = Some(cluster(&c.observations, &embedded.vectors, &c.params));
            }
            Seen::Own(RcEvent::Topic(t)) => logged_topics.push((e.seq, t)),
            Seen::Common(CommonEvent::BudgetExhausted { .. }) => cut = true,
            Seen::Own(RcEvent::Belief(b)) => beliefs.push((**b).clone()),
            Seen::Decided(logged) => {
                let c = config.ok_or("decision before debate_started")?;
                let credibility = from_snapshot(snapshot);
                let topics = topics.as_deref().unwrap_or_default();
                compare_topics(topics, &logged_topics)?;
                found.topics = topics.len();
                for b in &beliefs {
                    found.answers_recomputed += check_belief(b, topics, c, &credibility, builtin)?;
                }
                if beliefs.len() != topics.len() {
                    return Err(format!(
                        "{} beliefs are logged for {} topics",
                        beliefs.len(),
                        topics.len()
                    ));
                }
                found.beliefs = beliefs.len();
                // The decision lists the beliefs in topic order.
                let mut ordered = beliefs.clone();
                ordered.sort_by_key(|b| {
                    topics
                        .iter()
                        .position(|t| t.topic == b.topic)
                        .unwrap_or(usize::MAX)
                });
                let again = outcome(&ordered, c.observations.len(), cut);
                if &again != logged {
                    return Err(format!(
                        "the logged decision {} differs from the one the beliefs give: {}",
                        logged.verdict.as_str(),
                        again.verdict.as_str()
                    ));
                }
                return Ok((again, found));
            }
            _ => {}
        }
    }
    Err("the log has no decision event (the reconciliation did not finish)".into())
}

fn check_embedded(seq: u64, e: &Embedded, observations: &[Observation]) -> Result<(), String> {
    if e.vectors.len() != observations.len() || e.vectors.iter().any(|v| v.len() != e.dim as usize)
    {
        return Err(format!(
            "event {seq}: the logged embeddings do not give one {}-dimensional vector per observation",
            e.dim
        ));
    }
    if e.model == LEXICAL && *e != lexical_embedding(observations) {
        return Err(format!(
            "event {seq}: the lexical fallback's vectors differ from the ones the observations give"
        ));
    }
    Ok(())
}

fn compare_topics(again: &[Topic], logged: &[(u64, &Topic)]) -> Result<(), String> {
    if again.len() != logged.len() {
        return Err(format!(
            "the logged embeddings form {} topics; the log has {}",
            again.len(),
            logged.len()
        ));
    }
    for (t, (seq, l)) in again.iter().zip(logged) {
        if t != *l {
            return Err(format!(
                "event {seq}: topic {} ({}) differs from the one the logged embeddings form: {}",
                l.topic,
                l.observation_ids.join(", "),
                t.observation_ids.join(", ")
            ));
        }
    }
    Ok(())
}

/// One belief: its observations and weights, and its answer where that can be recomputed.
/// Returns 1 when the answer was recomputed.
fn check_belief(
    b: &Belief,
    topics: &[Topic],
    c: &RcConfig,
    credibility: &[AgentCredibility],
    builtin: bool,
) -> Result<usize, String> {
    let t = topics
        .iter()
        .find(|t| t.topic == b.topic)
        .ok_or_else(|| format!("belief for unknown topic {}", b.topic))?;
    if b.observation_ids != t.observation_ids {
        return Err(format!(
            "the belief on {} considered {}, its topic holds {}",
            b.topic,
            b.observation_ids.join(", "),
            t.observation_ids.join(", ")
        ));
    }
    let obs: Vec<&Observation> = t
        .observation_ids
        .iter()
        .filter_map(|id| c.observations.iter().find(|o| o.id == *id))
        .collect();
    let weights = weigh(&obs, credibility);
    if b.weights != weights {
        return Err(format!(
            "the belief on {} used weights that differ from the ones the credibility snapshot \
             and the sources give",
            b.topic
        ));
    }
    let weighed: Vec<Weighed> = obs
        .iter()
        .zip(&weights)
        .map(|(o, w)| Weighed::of(o, w))
        .collect();
    let expected = if b.by == SINGLE {
        match weighed.as_slice() {
            [only] => Some(single(only)),
            _ => {
                return Err(format!(
                    "the belief on {} claims a single observation",
                    b.topic
                ))
            }
        }
    } else if builtin && b.unresolved.is_none() {
        Some(reconcile(&t.label, &weighed, &c.params))
    } else {
        None
    };
    let Some(r) = expected else { return Ok(0) };
    let same = r.conflicts == b.conflicts
        && r.consolidated_belief == b.consolidated_belief
        && r.confidence == b.confidence
        && r.needs_clarification == b.needs_clarification
        && r.clarification_question == b.clarification_question
        && r.reasoning == b.reasoning;
    if !same {
        return Err(format!(
            "the belief on {} differs from the one the rules give for its observations",
            b.topic
        ));
    }
    Ok(1)
}
