//! The state of a weighted collapse as its log builds it: positions with their latest card,
//! score, verification and gates; reflexions; panel evaluations. The machine appends the events
//! these methods produce; the replay (`recompute`) rebuilds the same state from a log and checks
//! each logged step against the same methods.

use super::card::PositionCard;
use super::params::WcParams;
use super::rules::{self, PanelVerdict, Standing};
use super::types::PanelEvaluation;
use super::types::{
    CardSource, CardSubmitted, Converged, GateVerdict, GatesChecked, PanelScored, Ranked, Step,
    WcOutcome, WcOutcomeKind,
};

#[derive(Clone, Debug)]
pub struct Held {
    pub id: String,
    pub card: PositionCard,
    pub revision: u32,
    pub total: f64,
    pub approved: Option<bool>,
    pub gate: Option<GateVerdict>,
}

#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub params: WcParams,
    pub held: Vec<Held>,
    pub reflexions: u32,
    /// Seat weight and evaluation, for the first panel and for the hybrid's re-score.
    pub panel: Vec<(f64, PanelEvaluation)>,
    pub hybrid_panel: Vec<(f64, PanelEvaluation)>,
    /// The positions the panel scored.
    pub candidates: Vec<String>,
    pub hybrid: Option<(PositionCard, f64, String, String)>,
    pub panel_c: Vec<Ranked>,
    pub last_step: Option<Step>,
    /// LM-1: the seat of each entry of `panel` and `hybrid_panel`.
    seats: [Vec<usize>; 2],
}

impl Tally {
    pub fn new(params: WcParams) -> Tally {
        Tally {
            params,
            ..Tally::default()
        }
    }

    /// LM-1: a seat's evaluation, kept in seat order whatever order evaluations arrive in (the
    /// weighted sums are then the same to the last bit).
    pub fn evaluate(&mut self, hybrid: bool, seat: usize, weight: f64, e: PanelEvaluation) {
        let (list, seats) = if hybrid {
            (&mut self.hybrid_panel, &mut self.seats[1])
        } else {
            (&mut self.panel, &mut self.seats[0])
        };
        let at = seats.partition_point(|&x| x <= seat);
        seats.insert(at, seat);
        list.insert(at, (weight, e));
    }

    /// LM-1: the positions in author order (`authors`), whatever order their cards arrived in;
    /// positions of no listed author keep their order after them.
    pub fn order_held(&mut self, authors: &[String]) {
        let order = |id: &str| authors.iter().position(|a| a == id).unwrap_or(usize::MAX);
        self.held.sort_by_key(|h| order(&h.id));
    }

    /// A new card or revision; its verification and gates start over.
    pub fn submit(
        &mut self,
        round: u16,
        id: &str,
        card: PositionCard,
        source: CardSource,
    ) -> CardSubmitted {
        let score = rules::score(&card, &self.params.weights);
        let revision = match self.held.iter_mut().find(|h| h.id == id) {
            Some(h) => {
                h.revision += 1;
                h.card = card.clone();
                h.total = score.total;
                h.approved = None;
                h.gate = None;
                h.revision
            }
            None => {
                self.held.push(Held {
                    id: id.to_owned(),
                    card: card.clone(),
                    revision: 0,
                    total: score.total,
                    approved: None,
                    gate: None,
                });
                0
            }
        };
        CardSubmitted {
            round,
            position: id.to_owned(),
            revision,
            source,
            card,
            score,
        }
    }

    pub fn verify(&mut self, id: &str, approve: bool) {
        if let Some(h) = self.held.iter_mut().find(|h| h.id == id) {
            h.approved = Some(approve);
        }
    }

    /// WC-3 for every position, in order.
    pub fn gate_all(&mut self, round: u16) -> Vec<GatesChecked> {
        let params = self.params.clone();
        self.held
            .iter_mut()
            .map(|h| {
                let (checks, verdict) = rules::gates(&h.card, h.approved, &params);
                h.gate = Some(verdict);
                GatesChecked {
                    round,
                    position: h.id.clone(),
                    checks,
                    verdict,
                }
            })
            .collect()
    }

    /// WC-4.
    pub fn converge(&mut self, round: u16) -> Converged {
        let standings: Vec<Standing> = self
            .held
            .iter()
            .map(|h| Standing {
                position: h.id.clone(),
                score: h.total,
                gate: h.gate.unwrap_or(GateVerdict::Reject),
            })
            .collect();
        let (ranking, step, reason) = rules::converge(&standings, self.reflexions, &self.params);
        if step == Step::Panel {
            self.candidates = ranking.iter().map(|r| r.position.clone()).collect();
        }
        self.last_step = Some(step);
        Converged {
            round,
            ranking,
            step,
            reason,
        }
    }

    /// The position a reflexion's critique is about: the best-scored candidate, else the
    /// best-scored position at all.
    pub fn leading(&self) -> Option<&Held> {
        let best = |pass_only: bool| {
            self.held
                .iter()
                .filter(|h| !pass_only || h.gate == Some(GateVerdict::Pass))
                .max_by(|a, b| a.total.total_cmp(&b.total).then_with(|| b.id.cmp(&a.id)))
        };
        best(true).or_else(|| best(false))
    }

    /// Every position's id and current card, in order.
    pub fn cards(&self) -> Vec<(String, PositionCard)> {
        self.held
            .iter()
            .map(|h| (h.id.clone(), h.card.clone()))
            .collect()
    }

    pub fn held(&self, id: &str) -> Option<&Held> {
        self.held.iter().find(|h| h.id == id)
    }

    /// The candidate with the lowest R (ties: higher S, then id) — the safe fallback (WC-6).
    pub fn safest(&self) -> String {
        self.candidates
            .iter()
            .filter_map(|id| self.held(id))
            .min_by(|a, b| {
                rules::risk(&a.card)
                    .total_cmp(&rules::risk(&b.card))
                    .then_with(|| b.total.total_cmp(&a.total))
                    .then_with(|| a.id.cmp(&b.id))
            })
            .map(|h| h.id.clone())
            .unwrap_or_default()
    }

    /// WC-5/WC-6 over the first panel.
    pub fn score_panel(&mut self, round: u16) -> (PanelScored, PanelVerdict) {
        let evals: Vec<(f64, &PanelEvaluation)> = self.panel.iter().map(|(w, e)| (*w, e)).collect();
        let c = rules::consensus(&evals, &self.candidates);
        let (verdict, rule) = rules::panel_verdict(&c, &self.safest(), &self.params);
        self.panel_c = c.clone();
        (
            PanelScored {
                round,
                consensus: c,
                rule,
            },
            verdict,
        )
    }

    /// WC-6: the hybrid of the top two (card and S).
    pub fn synthesize(
        &mut self,
        a: &str,
        b: &str,
    ) -> Option<(PositionCard, super::ScoreBreakdown)> {
        let (ca, cb) = (self.held(a)?.card.clone(), self.held(b)?.card.clone());
        let card = rules::hybrid(&ca, &cb);
        let score = rules::score(&card, &self.params.weights);
        self.hybrid = Some((card.clone(), score.total, a.to_owned(), b.to_owned()));
        Some((card, score))
    }

    /// The hybrid's re-score: its C, and whether it is accepted (no new critical risk, C not
    /// below the escalation bar).
    pub fn score_hybrid(&self, round: u16) -> (PanelScored, bool) {
        let evals: Vec<(f64, &PanelEvaluation)> =
            self.hybrid_panel.iter().map(|(w, e)| (*w, e)).collect();
        let c = rules::consensus(&evals, &["hybrid".to_owned()]);
        let ch = c.first().map_or(0.0, |r| r.score);
        let (ok, rule) = match &self.hybrid {
            Some((card, _, a, b)) => {
                let (pa, pb) = (self.held(a).map(|h| &h.card), self.held(b).map(|h| &h.card));
                let new_critical = match (pa, pb) {
                    (Some(pa), Some(pb)) => rules::adds_critical_risk(card, pa, pb),
                    _ => true,
                };
                if new_critical {
                    (
                        false,
                        "the hybrid adds a critical risk neither position had: SAFE_FALLBACK"
                            .to_owned(),
                    )
                } else if rules::lt(ch, self.params.escalate_threshold) {
                    (
                        false,
                        format!(
                            "C(hybrid)={ch:.3} < {}: the panel rejects it, SAFE_FALLBACK",
                            self.params.escalate_threshold
                        ),
                    )
                } else {
                    (
                        true,
                        format!("C(hybrid)={ch:.3}, no new critical risk: HYBRID_SYNTHESIZED"),
                    )
                }
            }
            None => (false, "no hybrid".to_owned()),
        };
        (
            PanelScored {
                round,
                consensus: c,
                rule,
            },
            ok,
        )
    }

    /// The final decision for an outcome and chosen position, with WC-8's memory rule.
    pub fn outcome(&self, kind: WcOutcomeKind, chosen: Option<String>, why: String) -> WcOutcome {
        let c_of =
            |id: &str, list: &[Ranked]| list.iter().find(|r| r.position == id).map(|r| r.score);
        let (score, consensus, memory) = match chosen.as_deref() {
            Some("hybrid") => {
                let evals: Vec<(f64, &PanelEvaluation)> =
                    self.hybrid_panel.iter().map(|(w, e)| (*w, e)).collect();
                let c = rules::consensus(&evals, &["hybrid".to_owned()]);
                match &self.hybrid {
                    Some((card, s, _, _)) => (
                        Some(*s),
                        c.first().map(|r| r.score),
                        rules::memory_write(card, None, *s, &self.params),
                    ),
                    None => (None, None, (false, vec![])),
                }
            }
            Some(id) => match self.held(id) {
                Some(h) => (
                    Some(h.total),
                    c_of(id, &self.panel_c),
                    rules::memory_write(&h.card, h.approved, h.total, &self.params),
                ),
                None => (None, None, (false, vec![])),
            },
            None => (
                None,
                None,
                (false, vec!["nothing chosen: no memory write".to_owned()]),
            ),
        };
        WcOutcome {
            outcome: kind,
            chosen,
            score,
            consensus,
            reflexions: self.reflexions,
            memory_write: memory.0,
            memory_notes: memory.1,
            reasoning: why,
            budget_exhausted: false,
            vote_baseline: None,
        }
    }
}
