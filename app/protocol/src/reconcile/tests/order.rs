//! LM-1 for reconciliation: one reconciler call per topic, all topics at once; the order their
//! replies arrive in changes nothing the machine decides or logs.

use super::super::rules::reconcile;
use super::super::types::{RcConfig, RcParams};
use super::super::RcDebate;
use super::{obs, MON};
use crate::reconcile::{RcReply, RcTask};
use crate::shared::Request;
use crate::Debate;

#[test]
fn every_topic_at_once_in_any_order_decides_the_same_lm_1() {
    use crate::tests::any_order::{same_in_every_order, scripted};
    let observations = vec![
        obs("o1", "agent_a", "The meeting is at 3pm in Room A", MON),
        obs("o2", "agent_b", "The meeting is at 4pm in Room B", MON),
        obs("o3", "agent_a", "Revenue up 10%", MON),
        obs("o4", "agent_b", "Revenue might be up 15%", MON),
        obs("o5", "agent_c", "The launch slips to May", MON),
        obs("o6", "agent_a", "The launch is set for April", MON),
        obs("o7", "agent_c", "It rained in Paris", MON),
    ];
    let make = || {
        let config = RcConfig {
            params: RcParams::default(),
            observations: observations.clone(),
            from_debates: vec![],
        };
        Debate::Reconcile(Box::new(
            RcDebate::new("What do we believe?", config, 7).expect("valid"),
        ))
    };
    let reply = |req: &Request<RcTask>| match &req.task {
        RcTask::Embed { texts, .. } => RcReply::Embeddings {
            model: "test".into(),
            vectors: texts
                .iter()
                .map(|t| {
                    if t.contains("meeting") {
                        vec![1.0, 0.1, 0.0, 0.0]
                    } else if t.contains("Revenue") {
                        vec![0.1, 1.0, 0.0, 0.0]
                    } else if t.contains("launch") {
                        vec![0.0, 0.1, 1.0, 0.0]
                    } else {
                        vec![0.0, 0.0, 0.0, 1.0]
                    }
                })
                .collect(),
        },
        RcTask::Reconcile {
            label,
            observations,
            params,
            ..
        } => RcReply::Reconciliation(reconcile(label, observations, params)),
    };
    let (steps, runs) = same_in_every_order(&make, &scripted(reply), 800);
    assert_eq!(
        steps, 1,
        "the three topics of several observations go out at once"
    );
    assert_eq!(runs, 6, "every order of three replies");
}
