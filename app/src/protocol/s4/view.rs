//! S4's part of the live view (SV-1): a card for each position, challenge, revision and vote.

use super::types::S4Outcome;
use crate::protocol::columns::{Card, RoundView, Tone};
use crate::protocol::event::EventBody;
use crate::protocol::types::display_name;

/// The card an S4 event puts in its agent's column, if it is an S4 event.
pub fn card(seq: u64, body: &EventBody) -> Option<Card> {
    Some(match body {
        EventBody::Position {
            agent,
            round,
            position,
        } => Card {
            seq,
            round: *round,
            agent: agent.clone(),
            tone: Tone::Neutral,
            title: format!("Initial analysis: {}", position.decision),
            decision: Some(position.decision),
            label: None,
            confidence: Some(position.confidence),
            risk: Some(position.risk),
            body: position.reasoning.clone(),
        },
        EventBody::Challenge {
            round,
            from,
            to,
            text,
            argues_for,
        } => Card::labelled(
            seq,
            *round,
            from,
            Tone::Challenge,
            format!("Challenges {} (argues {argues_for})", display_name(to)),
            None,
            text.clone(),
        ),
        EventBody::Revision {
            agent,
            round,
            before,
            after,
            changed,
        } => {
            let title = if *changed {
                format!("Changed mind: {} → {}", before.decision, after.decision)
            } else {
                format!(
                    "Defends {} (confidence {} → {})",
                    after.decision, before.confidence, after.confidence
                )
            };
            Card {
                seq,
                round: *round,
                agent: agent.clone(),
                tone: if *changed {
                    Tone::Agreement
                } else {
                    Tone::Neutral
                },
                title,
                decision: Some(after.decision),
                label: None,
                confidence: Some(after.confidence),
                risk: Some(after.risk),
                body: after.reasoning.clone(),
            }
        }
        EventBody::Vote { round, vote } => Card {
            seq,
            round: *round,
            agent: vote.agent.clone(),
            tone: Tone::Neutral,
            title: format!("Final vote: {}", vote.decision),
            decision: Some(vote.decision),
            label: None,
            confidence: Some(vote.confidence),
            risk: Some(vote.risk),
            body: String::new(),
        },
        _ => return None,
    })
}

/// Final votes that match the decision are agreements (green).
pub fn on_decision(rounds: &mut [RoundView], outcome: &S4Outcome) {
    for round in rounds {
        for card in round.cards.iter_mut().filter(|c| c.round == 4) {
            if card.decision.map(|d| d.verdict()) == Some(outcome.decision) {
                card.tone = Tone::Agreement;
            }
        }
    }
}
