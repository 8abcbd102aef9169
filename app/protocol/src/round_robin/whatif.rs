//! UI-5 what-if for round-robin: the judge changes the consensus threshold and each agent's
//! weight (by hand, or by credibility from the logged snapshot, CR-4) and sees the stance the
//! agents' final positions would then give. With the logged threshold and equal weights it is
//! RR-2's tally of the last round; a debate cut short by its budget HOLDs whatever the weights.

use serde::{Deserialize, Serialize};

use super::types::{RrPosition, Stance};
use crate::round_robin::{RrEntry, RrEvent};
use crate::shared::{CommonEvent, Seen};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RrWhatIfRules {
    /// Share of the total weight the leading stance needs, in (0, 1].
    pub consensus_threshold: f64,
    /// Weight per agent id (1 by default; 0 leaves the agent out).
    pub weights: Vec<(String, f64)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RrWhatIf {
    pub stance: Stance,
    pub reached: bool,
    /// Weight behind BUY, SELL, HOLD.
    pub weighted: [f64; 3],
    /// The leading stance's share of the total weight, in percent.
    pub share: f64,
    pub reasoning: String,
}

impl RrWhatIfRules {
    /// The logged threshold and weight 1 for every agent; `None` when the log is not a
    /// round-robin debate.
    pub fn defaults(events: &[RrEntry<'_>]) -> Option<RrWhatIfRules> {
        events.iter().find_map(|e| match e.body {
            Seen::Started {
                agents,
                config: Some(p),
                ..
            } => Some(RrWhatIfRules {
                consensus_threshold: p.consensus_threshold,
                weights: agents.iter().map(|a| (a.id.clone(), 1.0)).collect(),
            }),
            _ => None,
        })
    }

    fn weight(&self, agent: &str) -> f64 {
        self.weights
            .iter()
            .find(|(a, _)| a == agent)
            .map_or(1.0, |(_, w)| if w.is_finite() { w.max(0.0) } else { 0.0 })
    }
}

/// The stance the final positions give under `knobs`.
pub fn what_if(events: &[RrEntry<'_>], knobs: &RrWhatIfRules) -> RrWhatIf {
    let mut agents: Vec<String> = Vec::new();
    let mut last: Vec<(String, RrPosition)> = Vec::new();
    let mut cut = false;
    for e in events {
        match e.body {
            Seen::Started { agents: a, .. } => {
                agents = a.iter().map(|a| a.id.clone()).collect();
            }
            Seen::Own(RrEvent::Turn {
                agent, position, ..
            }) => match last.iter_mut().find(|(a, _)| a == agent) {
                Some(slot) => slot.1 = position.clone(),
                None => last.push((agent.clone(), position.clone())),
            },
            Seen::Common(CommonEvent::BudgetExhausted { .. }) => cut = true,
            _ => {}
        }
    }
    let mut weighted = [0.0_f64; 3];
    for (agent, p) in &last {
        weighted[index(p.stance)] += knobs.weight(agent);
    }
    let total: f64 = agents.iter().map(|a| knobs.weight(a)).sum();
    // Ties go to the more cautious stance (HOLD, then SELL), as RR-2's tally does.
    let mut leading = Stance::Buy;
    for s in Stance::ALL {
        if weighted[index(s)] >= weighted[index(leading)] {
            leading = s;
        }
    }
    let top = weighted[index(leading)];
    let share = if total > 0.0 {
        (top * 1000.0 / total).round() / 10.0
    } else {
        0.0
    };
    let reached = !cut && total > 0.0 && top > 0.0 && top >= knobs.consensus_threshold * total;
    let split = format!(
        "{:.2} BUY, {:.2} SELL, {:.2} HOLD of {total:.2} (weighted)",
        weighted[0], weighted[1], weighted[2]
    );
    let (stance, reasoning) = if cut {
        (
            Stance::Hold,
            "HOLD: the debate was cut short by its token budget.".to_owned(),
        )
    } else if reached {
        (
            leading,
            format!(
                "{leading} holds {share}% ≥ {}%: {split}.",
                knobs.consensus_threshold * 100.0
            ),
        )
    } else {
        (
            Stance::Hold,
            format!(
                "No {}% consensus: {split}, so HOLD.",
                knobs.consensus_threshold * 100.0
            ),
        )
    };
    RrWhatIf {
        stance,
        reached,
        weighted,
        share,
        reasoning,
    }
}

fn index(s: Stance) -> usize {
    match s {
        Stance::Buy => 0,
        Stance::Sell => 1,
        Stance::Hold => 2,
    }
}
