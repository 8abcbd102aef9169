//! RC's part of the live view (RC-5): the observations, the topics as they form, each belief
//! as it arrives with everything that answers "why?", and a card per step in the columns.

use serde::{Deserialize, Serialize};

use super::types::{Belief, Observation, RcConfig, RcParams, Topic};
use crate::columns::{Card, Tone};
use crate::reconcile::RcEvent;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RcState {
    pub params: Option<RcParams>,
    pub observations: Vec<Observation>,
    /// The embedding model the topics were formed with, and its dimensions.
    pub model: Option<(String, u32)>,
    pub topics: Vec<Topic>,
    /// In the order they arrived.
    pub beliefs: Vec<Belief>,
}

impl RcState {
    pub fn start(&mut self, config: &RcConfig) {
        self.params = Some(config.params);
        self.observations.clone_from(&config.observations);
    }

    pub fn observation(&self, id: &str) -> Option<&Observation> {
        self.observations.iter().find(|o| o.id == id)
    }

    pub fn belief(&self, topic: &str) -> Option<&Belief> {
        self.beliefs.iter().find(|b| b.topic == topic)
    }

    /// Whether the topics were formed by word overlap because the embedder failed.
    pub fn lexical(&self) -> bool {
        self.model
            .as_ref()
            .is_some_and(|(m, _)| m == super::vectors::LEXICAL)
    }

    /// Folds in an RC event; returns the card it puts in its agent's column, if any.
    pub fn apply(&mut self, seq: u64, body: &RcEvent) -> Option<Card> {
        match body {
            RcEvent::Embedded(e) => {
                self.model = Some((e.model.clone(), e.dim));
                let lexical = e.model == super::vectors::LEXICAL;
                return Some(Card::labelled(
                    seq,
                    1,
                    super::types::EMBEDDER,
                    if lexical {
                        Tone::Failure
                    } else {
                        Tone::Neutral
                    },
                    format!("Embedded {} observations", e.vectors.len()),
                    None,
                    if lexical {
                        "Lexical fallback — topics by shared words, not meaning".to_owned()
                    } else {
                        format!("{} ({} dimensions)", e.model, e.dim)
                    },
                ));
            }
            RcEvent::Topic(t) => self.topics.push(t.clone()),
            RcEvent::Belief(b) => {
                self.beliefs.push((**b).clone());
                let (tone, label) = if b.needs_clarification {
                    (Tone::Failure, "NEEDS CLARIFICATION")
                } else if b.conflicts {
                    (Tone::Neutral, "RESOLVED")
                } else {
                    (Tone::Agreement, "CONSISTENT")
                };
                let body = b
                    .consolidated_belief
                    .clone()
                    .or_else(|| b.clarification_question.clone())
                    .unwrap_or_default();
                let mut card = Card::labelled(
                    seq,
                    2,
                    super::types::RECONCILER,
                    tone,
                    format!("{}: {}", b.topic, b.label),
                    Some(label.to_owned()),
                    body,
                );
                card.confidence = Some((b.confidence * 100.0).round().clamp(0.0, 100.0) as u8);
                return Some(card);
            }
        }
        None
    }
}
