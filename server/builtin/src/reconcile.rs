//! RC's builtin agents: the embedder is the builtin sentence embedder (all-MiniLM-L6-v2 run
//! in-process, [`crate::embed`]); the reconciler answers seed 003's prompt by
//! RC-4's rules ([`protocol::reconcile::reconcile`]), deterministically, so a reconciliation
//! runs offline and `verify` can recompute its beliefs.

use protocol::reconcile as rules;
use protocol::reconcile::{RcReply, RcTask};
use protocol::{AgentReply, AgentRequest, Task};

/// The model name the builtin embedder logs.
pub const BUILTIN_EMBEDDER: &str = "builtin:all-MiniLM-L6-v2";

/// The embeddings of `texts`, or why the embedder cannot give them (the machine then falls
/// back to the lexical grouping and says so).
pub fn embed(texts: &[String]) -> Result<AgentReply, String> {
    let embedder = crate::embed::shared().map_err(|e| e.to_string())?;
    Ok(AgentReply::Reconcile(RcReply::Embeddings {
        model: BUILTIN_EMBEDDER.into(),
        vectors: embedder.embed_many(texts),
    }))
}

pub fn reply(req: &AgentRequest) -> Result<AgentReply, String> {
    match &req.task {
        Task::Reconcile(RcTask::Embed { texts, .. }) => embed(texts),
        Task::Reconcile(RcTask::Reconcile {
            label,
            observations,
            params,
            ..
        }) => Ok(AgentReply::Reconcile(RcReply::Reconciliation(
            rules::reconcile(label, observations, params),
        ))),
        other => Err(format!(
            "the builtin RC agents do not answer {}",
            other.expects()
        )),
    }
}

#[cfg(test)]
mod tests {
    use protocol::reconcile::RcEvent;
    use protocol::reconcile::Sum;
    use protocol::reconcile::{parse_observations, RcConfig, RcDebate, RcParams};
    use protocol::{Debate, EventBody, Outcome};

    use super::super::{run_debate, BuiltinAgents};

    /// Seed 003's example set, as the home form offers it.
    fn example() -> Vec<protocol::reconcile::Observation> {
        let v: serde_json::Value =
            serde_json::from_str(protocol::reconcile::EXAMPLE).expect("JSON");
        parse_observations(&v).expect("valid")
    }

    /// A reconciliation of `observations` by the builtin agents at the default parameters: each
    /// topic's observation ids, and the outcome.
    fn reconciled(
        observations: Vec<protocol::reconcile::Observation>,
    ) -> (Vec<Vec<String>>, Outcome) {
        let config = RcConfig {
            params: RcParams::default(),
            observations,
            from_debates: vec![],
        };
        let d = Debate::Reconcile(Box::new(RcDebate::new("q", config, 1).expect("valid")));
        let (events, outcome) = run_debate(d, 1);
        let topics = events
            .iter()
            .filter_map(|e| match e {
                EventBody::Reconcile(RcEvent::Topic(t)) => Some(t.observation_ids.clone()),
                _ => None,
            })
            .collect();
        (topics, outcome)
    }

    /// RC-1 with the builtin embedder: seed 003's examples group into their four topics at the
    /// default threshold, and each reconciles as RC-4 says.
    #[test]
    fn seed_003_examples_group_and_reconcile_offline() {
        let observations = example();
        let embedder = crate::embed::shared().expect("the sentence model (cargo xtask embedder)");
        let vectors: Vec<Vec<i16>> = observations
            .iter()
            .map(|o| protocol::reconcile::quantise(&embedder.embed(&o.content)).expect("vector"))
            .collect();
        for (i, a) in vectors.iter().enumerate() {
            let row: Vec<String> = vectors
                .iter()
                .map(|b| format!("{:.2}", Sum::of(a).cosine(&Sum::of(b))))
                .collect();
            eprintln!("{} {}", observations[i].id, row.join(" "));
        }
        let (topics, outcome) = reconciled(observations);
        assert_eq!(
            topics,
            vec![
                vec!["o1", "o2"],
                vec!["o3", "o4"],
                vec!["o5", "o6"],
                vec!["o7", "o8"]
            ],
        );
        let Outcome::Reconcile(o) = outcome else {
            panic!("an RC outcome")
        };
        let beliefs: Vec<(Option<String>, bool)> = o
            .beliefs
            .iter()
            .map(|b| (b.belief.clone(), b.needs_clarification))
            .collect();
        assert_eq!(beliefs[0], (None, true), "meeting: equal weight");
        assert_eq!(beliefs[1].0.as_deref(), Some("John has 3 cats and 2 dogs"));
        assert_eq!(
            beliefs[2].0.as_deref(),
            Some("Acme's quarterly revenue is up 10%")
        );
        assert!(
            beliefs[3]
                .0
                .as_deref()
                .is_some_and(|b| b.contains("delayed")),
            "{beliefs:?}"
        );
        let _ = BuiltinAgents::new(1);
    }

    /// The browser suite's edit of the example: a fifth, unrelated observation is a topic of its
    /// own, and the four pairs stay as they were.
    #[test]
    fn an_added_unrelated_observation_is_a_topic_of_its_own() {
        let mut v: serde_json::Value =
            serde_json::from_str(protocol::reconcile::EXAMPLE).expect("JSON");
        v.as_array_mut()
            .expect("a list")
            .push(serde_json::json!({"id": "o9", "agent": "agent_d",
            "content": "The office closes for the holidays on December 24",
            "timestamp": "2026-01-08T09:00:00Z"}));
        let (topics, _) = reconciled(parse_observations(&v).expect("valid"));
        assert_eq!(
            topics,
            vec![
                vec!["o1", "o2"],
                vec!["o3", "o4"],
                vec!["o5", "o6"],
                vec!["o7", "o8"],
                vec!["o9"]
            ],
        );
    }
}
