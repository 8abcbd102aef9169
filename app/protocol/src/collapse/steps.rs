//! WC's steps in order: verification, gates and convergence, reflexion, the consensus panel, the
//! hybrid's re-score, the outcome (WC-3…WC-7). The machine (`machine.rs`) calls them as replies
//! complete a step.

use super::card::PositionCard;
use super::machine::{Pending, Phase, WcDebate};
use super::rules::{self, PanelVerdict};
use super::types::{HybridSynthesized, ReflexionStarted, Step, WcOutcomeKind};
use crate::collapse::{WcEvent, WcTask};
use crate::shared::Emit;
use crate::types::Role;

impl WcDebate {
    pub(super) fn advance_if_step_done(&mut self) {
        if self.requests.is_idle() {
            self.tally.order_held(&self.authors);
            self.advance();
        }
    }

    /// The step just finished; start the next one.
    pub(super) fn advance(&mut self) {
        match self.phase {
            Phase::Writing => {
                self.next_round("Verification", self.tally.held.len() as u32);
                self.verify_all();
            }
            Phase::Revising => self.verify_all(),
            Phase::Verifying => self.converge(),
            Phase::Critiquing => self.revise_all(),
            Phase::Panel => self.after_panel(),
            Phase::Hybrid => self.after_hybrid(),
            Phase::Done => {}
        }
    }

    fn verify_all(&mut self) {
        self.phase = Phase::Verifying;
        let held = self.tally.cards();
        if held.is_empty() {
            return self.finish(
                WcOutcomeKind::EscalatedToHuman,
                None,
                "no author produced a card".into(),
            );
        }
        for (id, card) in held {
            let task = WcTask::VerifyCard {
                query: self.query.clone(),
                card,
            };
            self.enqueue("verifier", Role::Verifier, task, Pending::Verify(id));
        }
    }

    fn converge(&mut self) {
        for g in self.tally.gate_all(self.round) {
            self.events.push_back(Emit::Own(WcEvent::GatesChecked(g)));
        }
        let c = self.tally.converge(self.round);
        let (step, reason) = (c.step, c.reason.clone());
        let top = c.ranking.first().map(|r| r.position.clone());
        self.events.push_back(Emit::Own(WcEvent::Converged(c)));
        match step {
            Step::Accept => self.finish(WcOutcomeKind::Accepted, top, reason),
            Step::Human => self.finish(WcOutcomeKind::EscalatedToHuman, None, reason),
            Step::Panel => self.start_panel(),
            Step::Reflexion => self.start_reflexion(),
        }
    }

    fn start_reflexion(&mut self) {
        self.tally.reflexions += 1;
        let n = self.tally.reflexions;
        self.phase = Phase::Critiquing;
        self.next_round(
            &format!("Reflexion {n}"),
            1 + 2 * self.tally.held.len() as u32,
        );
        let Some(lead) = self.tally.leading().map(|h| (h.id.clone(), h.card.clone())) else {
            return self.finish(
                WcOutcomeKind::EscalatedToHuman,
                None,
                "nothing to reflect on".into(),
            );
        };
        let task = WcTask::Critique {
            query: self.query.clone(),
            card: lead.1,
        };
        self.enqueue("skeptic", Role::Skeptic, task, Pending::Critique(lead.0));
    }

    /// WC-7: the triggers that fired, then every author revises.
    fn revise_all(&mut self) {
        let (score, concerns) = self.critique.take().unwrap_or((0.0, vec![]));
        let cards: Vec<&PositionCard> = self.tally.held.iter().map(|h| &h.card).collect();
        let estimate = rules::cost_estimate(&cards, &self.tally.params);
        let mut triggers = match self.tally.leading() {
            Some(h) => rules::reflexion_triggers(
                &h.card,
                h.approved,
                Some(score),
                &[],
                estimate,
                &self.tally.params,
            ),
            None => vec![],
        };
        if triggers.is_empty() {
            triggers.push(format!(
                "no position above S {} without a close second",
                self.tally.params.accept_threshold
            ));
        }
        self.events
            .push_back(Emit::Own(WcEvent::ReflexionStarted(ReflexionStarted {
                round: self.round,
                attempt: self.tally.reflexions,
                triggers: triggers.clone(),
                concerns: concerns.clone(),
            })));
        self.phase = Phase::Revising;
        let held = self.tally.cards();
        for (id, card) in held {
            let task = WcTask::ReviseCard {
                query: self.query.clone(),
                card,
                concerns: concerns.clone(),
                triggers: triggers.clone(),
            };
            self.enqueue(&id, Role::Author, task, Pending::Revise(id.clone()));
        }
    }

    fn start_panel(&mut self) {
        self.phase = Phase::Panel;
        let seats = self.tally.params.panel.len() as u32;
        self.next_round("Consensus Panel", seats);
        self.ask_panel(false);
    }

    fn ask_panel(&mut self, hybrid: bool) {
        let positions: Vec<(String, PositionCard)> = if hybrid {
            self.tally
                .hybrid
                .iter()
                .map(|(c, ..)| ("hybrid".to_owned(), c.clone()))
                .collect()
        } else {
            self.tally
                .candidates
                .iter()
                .filter_map(|id| self.tally.held(id).map(|h| (id.clone(), h.card.clone())))
                .collect()
        };
        for (seat, s) in self.tally.params.panel.clone().into_iter().enumerate() {
            let task = WcTask::Evaluate {
                query: self.query.clone(),
                positions: positions.clone(),
            };
            self.enqueue(
                s.role.as_str(),
                s.role,
                task,
                Pending::Evaluate { seat, hybrid },
            );
        }
    }

    fn after_panel(&mut self) {
        let (scored, verdict) = self.tally.score_panel(self.round);
        let rule = scored.rule.clone();
        self.events
            .push_back(Emit::Own(WcEvent::PanelScored(scored)));
        match verdict {
            PanelVerdict::Consensus(id) => {
                self.finish(WcOutcomeKind::ConsensusReached, Some(id), rule)
            }
            PanelVerdict::Escalate => self.finish(WcOutcomeKind::EscalatedToHuman, None, rule),
            PanelVerdict::Fallback(id) => self.finish(WcOutcomeKind::SafeFallback, Some(id), rule),
            PanelVerdict::Hybrid(a, b) => {
                let Some((card, score)) = self.tally.synthesize(&a, &b) else {
                    return self.finish(
                        WcOutcomeKind::SafeFallback,
                        Some(self.tally.safest()),
                        rule,
                    );
                };
                self.phase = Phase::Hybrid;
                let seats = self.tally.params.panel.len() as u32;
                self.next_round("Hybrid Re-score", seats);
                self.events
                    .push_back(Emit::Own(WcEvent::HybridSynthesized(Box::new(
                        HybridSynthesized {
                            round: self.round,
                            from: vec![a, b],
                            card,
                            score,
                        },
                    ))));
                self.ask_panel(true);
            }
        }
    }

    fn after_hybrid(&mut self) {
        let (scored, ok) = self.tally.score_hybrid(self.round);
        let rule = scored.rule.clone();
        self.events
            .push_back(Emit::Own(WcEvent::PanelScored(scored)));
        if ok {
            self.finish(
                WcOutcomeKind::HybridSynthesized,
                Some("hybrid".into()),
                rule,
            );
        } else {
            let safest = self.tally.safest();
            self.finish(WcOutcomeKind::SafeFallback, Some(safest), rule);
        }
    }

    pub(super) fn finish(&mut self, kind: WcOutcomeKind, chosen: Option<String>, why: String) {
        self.phase = Phase::Done;
        let outcome = self.tally.outcome(kind, chosen, why);
        self.events.push_back(Emit::Decided(outcome.clone()));
        self.outcome = Some(outcome);
    }
}
