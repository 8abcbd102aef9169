//! RC's records: the observations a reconciliation starts from, its parameters, and the events
//! it logs (`embedded`, `topic`, `belief`) with the final outcome.

use serde::{Deserialize, Serialize};

use crate::baseline::types::VoteBaseline;

/// The agents every reconciliation has: the embedder that places observations in topics and the
/// reconciler that weighs a topic's conflicting observations.
pub const EMBEDDER: &str = "embedder";
pub const RECONCILER: &str = "reconciler";
/// Who answers a topic of one observation: nobody is asked.
pub const SINGLE: &str = "single observation";

/// RC-1: the most observations one reconciliation takes.
pub const MAX_OBSERVATIONS: usize = 500;
/// The longest observation, in characters.
pub const MAX_CONTENT_CHARS: usize = 2_000;
/// The longest id, agent name, topic hint or source name, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// Embedding components are logged as integers: the unit vector times this.
pub const SCALE: i32 = 1_000;
/// The longest embedding a reply may carry.
pub const MAX_DIM: usize = 4_096;

/// RC-1: one agent's observation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    pub id: String,
    pub agent: String,
    pub content: String,
    /// Observations with the same hint are one topic, and the hint names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic_hint: Option<String>,
    /// RFC 3339; RC-4's temporal rule compares them.
    pub timestamp: String,
    /// RC-2: how much the source itself is worth (0–1), and what it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_authority: Option<Authority>,
    /// Ids of observations this one contradicts: they are put in the same topic.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts_with: Vec<String>,
}

/// RC-2: a source's authority, 0–1, with the source's name when one was given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Authority {
    pub score: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// RC's parameters, logged in `debate_started` with the observations.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RcParams {
    /// RC-1: how topics form (see [`Linkage`]). Absent from logs written before it existed, which
    /// formed topics by [`Linkage::Centroid`] and still recompute that way.
    #[serde(default, skip_serializing_if = "Linkage::is_centroid")]
    pub linkage: Linkage,
    /// RC-1: two groups join when their similarity by `linkage` is at least this.
    pub similarity_threshold: f64,
    /// RC-1: observations one agent made at the same instant are one report's facts, mostly
    /// separate ones: with two or more agents in the reconciliation, groups holding two facts of
    /// one report join only at this similarity (by `linkage`) or above. `None` (logs written
    /// before it existed, or turned off): no such rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_threshold: Option<f64>,
    /// RC-4: authorities that differ by at least this decide a conflict.
    pub authority_margin: f64,
    /// RC-4: with equal authority, credibilities that differ by at least this decide; closer
    /// ones are equal weight and need a human's clarification.
    pub credibility_margin: f64,
    /// RC-4: observations at least this many hours apart are read in time order (the newer
    /// supersedes).
    pub temporal_gap_hours: f64,
}

/// RC-1: how observations' embeddings form topics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Linkage {
    /// Each observation, in order, joins the topic whose centroid is nearest when the cosine is
    /// at least the threshold (the first rule; kept so that older logs recompute).
    #[default]
    Centroid,
    /// Every embedding is first centred on the mean of the reconciliation's embeddings (what all
    /// its observations share — a patient, a project — says nothing about which fact each
    /// reports); then the two groups with the highest average pairwise cosine join, again and
    /// again, while that average is at least the threshold. Order-independent.
    Average,
}

impl Linkage {
    pub fn is_centroid(&self) -> bool {
        *self == Linkage::Centroid
    }

    /// The lowest threshold that makes sense: centred cosines are often negative.
    pub fn min_threshold(self) -> f64 {
        match self {
            Linkage::Centroid => 0.05,
            Linkage::Average => -0.5,
        }
    }
}

/// A new reconciliation's RC-1 threshold for [`Linkage::Average`], chosen on the development half
/// of `server/data/topics-eval.tsv` (`consilium bench topics --split dev --sweep`).
pub const AVERAGE_THRESHOLD: f64 = 0.05;

/// A new reconciliation's RC-1 `report_threshold`, chosen with [`AVERAGE_THRESHOLD`] on the same
/// development half.
pub const REPORT_THRESHOLD: f64 = 0.25;

impl RcParams {
    /// RC-1's `report_threshold` as the last sentence of "how the topics were grouped" (empty
    /// when off).
    pub fn reports_note(&self) -> String {
        self.report_threshold.map_or_else(String::new, |t| {
            format!(
                " Observations one agent made at the same instant are one report's separate facts: \
                 they join only at similarity {t:.2} or above."
            )
        })
    }
}

impl Default for RcParams {
    fn default() -> Self {
        RcParams {
            linkage: Linkage::Average,
            similarity_threshold: AVERAGE_THRESHOLD,
            report_threshold: Some(REPORT_THRESHOLD),
            authority_margin: 0.1,
            credibility_margin: 0.15,
            temporal_gap_hours: 24.0,
        }
    }
}

/// What `debate_started` records for a reconciliation: everything its decisions are
/// recomputed from, with the logged embeddings and credibility.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RcConfig {
    #[serde(flatten)]
    pub params: RcParams,
    pub observations: Vec<Observation>,
    /// The finished debates the observations were gathered from, when they were.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from_debates: Vec<String>,
}

/// RC-1: the embeddings the topics were formed from, one per observation in input order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Embedded {
    /// Which model made them: `builtin:…`, the endpoint's model name, or `lexical-fallback`
    /// (word overlap, not meaning: used only when the embedder failed).
    pub model: String,
    pub dim: u32,
    /// Each unit vector's components times [`SCALE`], rounded.
    pub vectors: Vec<Vec<i16>>,
}

/// RC-1: one observation's place in its topic, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    pub id: String,
    pub agent: String,
    /// Cosine similarity with the topic's centroid when it joined (1 for the first).
    pub similarity: f64,
    /// "first of the topic", "similarity 0.82 ≥ 0.70", "topic hint …", "conflicts_with o2".
    pub why: String,
}

/// RC-1: a topic formed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Topic {
    /// `t1`, `t2`, … in order of forming.
    pub topic: String,
    pub label: String,
    pub observation_ids: Vec<String>,
    pub members: Vec<Member>,
    pub agents: Vec<String>,
    /// Observations from at least two agents whose content differs.
    pub potential_conflict: bool,
}

/// RC-2: how much one observation counts, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weight {
    pub observation: String,
    pub agent: String,
    /// From the agent's track record; 0.5 when it has too few points.
    pub credibility: f64,
    /// The source's authority; 0.5 when none was given.
    pub authority: f64,
    /// 0.8 · authority + 0.2 · credibility (authority outranks credibility).
    pub weight: f64,
    pub why: String,
}

/// RC-3: the reconciler's answer for one topic (the XML reply's six fields).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reconciliation {
    pub conflicts: bool,
    pub consolidated_belief: Option<String>,
    pub confidence: f64,
    pub needs_clarification: bool,
    pub clarification_question: Option<String>,
    pub reasoning: String,
}

/// RC-3/RC-5: one topic's consolidated belief, with everything that answers "why?".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Belief {
    pub topic: String,
    pub label: String,
    /// Every observation considered: the topic's members.
    pub observation_ids: Vec<String>,
    pub weights: Vec<Weight>,
    pub conflicts: bool,
    pub consolidated_belief: Option<String>,
    pub confidence: f64,
    pub needs_clarification: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clarification_question: Option<String>,
    pub reasoning: String,
    /// Who answered: the reconciler agent, or `single observation` (no call needed).
    pub by: String,
    /// Why the reply could not be used, when it could not (the belief is then unresolved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<String>,
}

/// The result, one line per topic.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BeliefLine {
    pub topic: String,
    pub label: String,
    pub belief: Option<String>,
    pub confidence: f64,
    pub needs_clarification: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RcVerdict {
    /// Every topic has a consolidated belief.
    Reconciled,
    /// At least one topic needs a human's clarification.
    NeedsClarification,
}

impl RcVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            RcVerdict::Reconciled => "RECONCILED",
            RcVerdict::NeedsClarification => "NEEDS_CLARIFICATION",
        }
    }
}

/// The payload of RC's `decision` event (its required `beliefs` is the key no other protocol's
/// outcome has).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RcOutcome {
    pub beliefs: Vec<BeliefLine>,
    pub verdict: RcVerdict,
    pub observations: u32,
    pub topics: u32,
    pub resolved: u32,
    pub needs_clarification: u32,
    pub reasoning: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub budget_exhausted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vote_baseline: Option<VoteBaseline>,
}

impl Weighed {
    /// Observation `o` with the weight RC-2 gave it.
    pub fn of(o: &Observation, w: &Weight) -> Weighed {
        Weighed {
            id: o.id.clone(),
            agent: o.agent.clone(),
            content: o.content.clone(),
            timestamp: o.timestamp.clone(),
            source: o.source_authority.as_ref().and_then(|a| a.source.clone()),
            credibility: w.credibility,
            authority: w.authority,
            weight: w.weight,
        }
    }
}

/// RC-3: one observation as the reconciler sees it: what was said, by whom, when, and how
/// much it counts (RC-2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weighed {
    pub id: String,
    pub agent: String,
    pub content: String,
    pub timestamp: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub credibility: f64,
    pub authority: f64,
    pub weight: f64,
}
