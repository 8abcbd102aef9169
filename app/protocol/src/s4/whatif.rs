//! UI-5 what-if for S4: the judge changes the veto threshold, the strong-majority threshold and
//! each agent's vote weight, and sees the decision the logged votes would then give. Pure, so it
//! runs in the browser on the logged votes; with the defaults it reproduces [`super::aggregate`].

use serde::{Deserialize, Serialize};

use super::types::{Consensus, Vote, VETO_RISK};
use crate::types::{Decision, Role, Verdict};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct S4WhatIfRules {
    /// S4-6: the safety role vetoes at this risk or above (50).
    pub veto_risk: u8,
    /// S4-6: a majority at or above this share (66 %) decides.
    pub strong_majority: u8,
    /// Vote weight per agent id (1 by default; 0 leaves the vote out).
    pub weights: Vec<(String, f64)>,
}

impl S4WhatIfRules {
    pub fn defaults(votes: &[Vote]) -> S4WhatIfRules {
        S4WhatIfRules {
            veto_risk: VETO_RISK,
            strong_majority: 66,
            weights: votes.iter().map(|v| (v.agent.clone(), 1.0)).collect(),
        }
    }

    fn weight(&self, agent: &str) -> f64 {
        self.weights
            .iter()
            .find(|(a, _)| a == agent)
            .map_or(1.0, |(_, w)| if w.is_finite() { w.max(0.0) } else { 0.0 })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct S4WhatIf {
    pub decision: Verdict,
    pub consensus: Consensus,
    /// Weighted votes for ACT, WARN, REFUSE.
    pub weighted: [f64; 3],
    pub agreement_percentage: f64,
    pub reasoning: String,
}

/// S4-6 with the judge's knobs. A logged VETO whose risk is now below the veto threshold counts
/// as REFUSE (the agent's pre-veto decision is not in the log); a safety vote at or above it
/// becomes a veto.
pub fn what_if(votes: &[Vote], knobs: &S4WhatIfRules) -> S4WhatIf {
    let mut weighted = [0.0_f64; 3];
    let mut veto = None;
    for v in votes {
        let w = knobs.weight(&v.agent);
        if w == 0.0 {
            continue;
        }
        let decision = match (v.role, v.decision) {
            (Role::Safety, _) if v.risk >= knobs.veto_risk => Decision::Veto,
            (_, Decision::Veto) => Decision::Refuse,
            (_, d) => d,
        };
        if decision == Decision::Veto && veto.is_none() {
            veto = Some(v);
        }
        weighted[usize::from(decision.verdict().caution())] += w;
    }
    let total: f64 = weighted.iter().sum();
    // Ties go to the more cautious verdict (S4-6): scan from ACT up, keeping equal counts later.
    let mut majority = Verdict::Act;
    for v in Verdict::ALL {
        if weighted[usize::from(v.caution())] >= weighted[usize::from(majority.caution())] {
            majority = v;
        }
    }
    let top = weighted[usize::from(majority.caution())];
    let agreement_percentage = if total > 0.0 {
        (top * 1000.0 / total).round() / 10.0
    } else {
        0.0
    };
    // Two decimals: credibility weights are not round numbers (0.638 + 0.836 = 1.47).
    let split = format!(
        "{} ACT, {} WARN, {} REFUSE (weighted)",
        short(weighted[0]),
        short(weighted[1]),
        short(weighted[2])
    );
    let (decision, consensus, reasoning) = if let Some(v) = veto {
        (
            Verdict::Refuse,
            Consensus::Veto,
            format!("{} vetoes: risk {} ≥ {}", v.agent, v.risk, knobs.veto_risk),
        )
    } else if total > 0.0 && top == total {
        (
            majority,
            Consensus::Unanimous,
            format!("All weight on {majority}."),
        )
    } else if total > 0.0 && top * 100.0 >= f64::from(knobs.strong_majority) * total {
        (
            majority,
            Consensus::StrongMajority,
            format!(
                "{majority} holds {agreement_percentage}% ≥ {}%: {split}.",
                knobs.strong_majority
            ),
        )
    } else {
        (
            Verdict::Warn,
            Consensus::Split,
            format!("No {}% majority: {split}, so WARN.", knobs.strong_majority),
        )
    };
    S4WhatIf {
        decision,
        consensus,
        weighted,
        agreement_percentage,
        reasoning,
    }
}

/// A weight as written: whole numbers as they are (`2`), others to two decimals (`1.47`).
fn short(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x}")
    } else {
        format!("{x:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s4::aggregate;

    fn vote(agent: &str, role: Role, decision: Decision, risk: u8) -> Vote {
        Vote {
            agent: agent.into(),
            role,
            decision,
            confidence: 60,
            risk,
            reasoning: String::new(),
        }
    }

    #[test]
    fn defaults_reproduce_the_aggregation_s4_6() {
        use Decision::{Act as A, Refuse as R, Veto as V, Warn as W};
        let tables = [
            [A, A, A],
            [A, A, W],
            [A, W, R],
            [W, W, R],
            [R, R, A],
            [A, A, V],
            [W, R, R],
        ];
        for t in tables {
            let votes = vec![
                vote("utility", Role::Utility, t[0], 10),
                vote("accuracy", Role::Accuracy, t[1], 20),
                vote(
                    "safety",
                    Role::Safety,
                    t[2],
                    if t[2] == V { 80 } else { 30 },
                ),
            ];
            let logged = aggregate(&votes, vec![]);
            let again = what_if(&votes, &S4WhatIfRules::defaults(&votes));
            assert_eq!(
                (again.decision, again.consensus),
                (logged.decision, logged.consensus),
                "{t:?}"
            );
            assert_eq!(
                again.agreement_percentage, logged.agreement_percentage,
                "{t:?}"
            );
        }
    }

    #[test]
    fn knobs_change_the_decision() {
        let votes = vec![
            vote("utility", Role::Utility, Decision::Act, 10),
            vote("accuracy", Role::Accuracy, Decision::Warn, 20),
            vote("safety", Role::Safety, Decision::Veto, 55),
        ];
        let mut k = S4WhatIfRules::defaults(&votes);
        assert_eq!(
            what_if(&votes, &k).decision,
            Verdict::Refuse,
            "veto at 55 ≥ 50"
        );
        k.veto_risk = 60;
        let w = what_if(&votes, &k);
        assert_eq!(
            (w.decision, w.consensus),
            (Verdict::Warn, Consensus::Split),
            "1 ACT, 1 WARN, 1 REFUSE"
        );
        k.weights = vec![
            ("utility".into(), 3.0),
            ("accuracy".into(), 1.0),
            ("safety".into(), 1.0),
        ];
        let w = what_if(&votes, &k);
        assert_eq!(
            (w.decision, w.agreement_percentage),
            (Verdict::Warn, 60.0),
            "ACT holds 3 of 5 < 66 %"
        );
        assert_eq!(w.consensus, Consensus::Split);
        k.strong_majority = 60;
        let w = what_if(&votes, &k);
        assert_eq!(
            (w.decision, w.consensus),
            (Verdict::Act, Consensus::StrongMajority),
            "exactly 60 % ≥ 60 %"
        );
        k.weights[2].1 = 0.0;
        assert_eq!(what_if(&votes, &k).weighted, [3.0, 1.0, 0.0]);
    }
}
