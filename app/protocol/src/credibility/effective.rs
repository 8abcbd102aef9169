//! CR-3: how many independent votes a panel is worth. Agents that are wrong together count for
//! less (llm-council-core #638: nine correlated judges behave like about two).
//!
//! For each pair of agents, over the debates where both have a known outcome, `ρ` is the
//! correlation (phi coefficient) of their error indicators (1 = wrong); negative values count as
//! 0. When an agent's errors do not vary over the shared debates, the phi coefficient is
//! undefined: two agents that were both always right (or both always wrong) cannot be told
//! apart and count as identical (`ρ = 1`); one constant and one varying share no variation
//! (`ρ = 0`). The panel's effective number of votes is
//!
//! `N_eff = N² / Σᵢ Σⱼ ρᵢⱼ` (with `ρᵢᵢ = 1`),
//!
//! the number of independent votes with the same variance of their mean as `N` votes with these
//! correlations (`N / (1 + (N−1)ρ)` when all pairs share one `ρ`): identical agents give 1,
//! independent ones `N`. Every pair needs [`MIN_SHARED`] shared outcomes, or the panel's figure is
//! not given and the note says which pair lacks them.

use serde::{Deserialize, Serialize};

/// Shared outcomes a pair needs before its correlation is used.
pub const MIN_SHARED: u32 = 5;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairCorrelation {
    pub a: String,
    pub b: String,
    /// Debates where both have an outcome.
    pub shared: u32,
    /// The correlation of their errors, when `shared` allows.
    pub correlation: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EffectiveVotes {
    pub votes: u32,
    /// `None` when the record cannot tell (see `note`).
    pub effective: Option<f64>,
    pub pairs: Vec<PairCorrelation>,
    /// "3 votes ≈ 1.7 independent", or why the record cannot say.
    pub note: String,
}

/// `outcomes[d][i]`: in shared debate `d`, whether agent `i` (named by `agents[i]`) was right
/// (`Some(true)`), wrong (`Some(false)`), or has no outcome (`None`).
pub fn effective_votes(agents: &[String], outcomes: &[Vec<Option<bool>>]) -> EffectiveVotes {
    let n = agents.len();
    let votes = u32::try_from(n).unwrap_or(u32::MAX);
    let mut pairs = Vec::new();
    let mut sum = n as f64;
    let mut lacking: Option<(usize, usize, u32)> = None;
    for i in 0..n {
        for j in (i + 1)..n {
            let both: Vec<(bool, bool)> = outcomes
                .iter()
                .filter_map(|row| match (row.get(i)?, row.get(j)?) {
                    (Some(a), Some(b)) => Some((!a, !b)),
                    _ => None,
                })
                .collect();
            let shared = u32::try_from(both.len()).unwrap_or(u32::MAX);
            let correlation = (shared >= MIN_SHARED).then(|| phi(&both));
            match correlation {
                Some(r) => sum += 2.0 * r.max(0.0),
                None => {
                    if lacking.is_none_or(|(_, _, s)| shared < s) {
                        lacking = Some((i, j, shared));
                    }
                }
            }
            pairs.push(PairCorrelation {
                a: agents[i].clone(),
                b: agents[j].clone(),
                shared,
                correlation,
            });
        }
    }
    let (effective, note) = match (n, lacking) {
        (0, _) => (None, "no votes".to_owned()),
        (1, _) => (Some(1.0), "1 vote".to_owned()),
        (_, Some((i, j, shared))) => (
            None,
            format!(
                "{n} votes; the record cannot yet tell how independent they are: {} and {} share \
                 {shared} of the {MIN_SHARED} outcomes needed",
                agents[i], agents[j]
            ),
        ),
        _ => {
            let e = (n * n) as f64 / sum;
            (Some(e), format!("{n} votes ≈ {e:.1} independent"))
        }
    };
    EffectiveVotes {
        votes,
        effective,
        pairs,
        note,
    }
}

/// The phi coefficient of two error series (see the module note for constant series).
fn phi(errors: &[(bool, bool)]) -> f64 {
    let n = errors.len() as f64;
    let a = errors.iter().filter(|e| e.0).count() as f64;
    let b = errors.iter().filter(|e| e.1).count() as f64;
    let ab = errors.iter().filter(|e| e.0 && e.1).count() as f64;
    let (va, vb) = (a * (n - a), b * (n - b));
    match (va == 0.0, vb == 0.0) {
        (true, true) => {
            if (a == 0.0) == (b == 0.0) {
                1.0
            } else {
                0.0
            }
        }
        (true, false) | (false, true) => 0.0,
        _ => ((n * ab - a * b) / (va * vb).sqrt()).clamp(-1.0, 1.0),
    }
}
