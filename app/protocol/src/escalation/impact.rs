//! ES-8: what changing one assumption does downstream — every affected analysis, its old and
//! new value, whether the change is big enough to require a re-run — and the re-run plan.
//!
//! The calculators are closed-form, so the "estimate" is the exact new value, not seed 000's
//! linear approximation; what a re-run adds is the new values entering the log as events.

use serde::{Deserialize, Serialize};

use super::analysis::{self, Company, Node, Results};
use super::assumptions::Assumptions;

/// ES-8's thresholds: a re-run is required when a metric moves by more than this.
pub const TARGET_PRICE_REL: f64 = 0.10;
pub const CONFIDENCE_ABS: f64 = 0.15;
pub const RISK_ABS: f64 = 0.10;

/// One affected analysis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Impact {
    pub analysis: String,
    /// `target_price`, `risk_score` or `rating`.
    pub metric: String,
    pub old: String,
    pub new: String,
    /// The move in the metric's own terms: relative for prices, absolute for scores, 1 for a
    /// changed rating.
    pub delta: f64,
    pub requires_rerun: bool,
}

/// The impact of setting one assumption, shown to the judge before an override is confirmed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ImpactReport {
    pub assumption: String,
    pub old_value: f64,
    pub new_value: f64,
    pub impacts: Vec<Impact>,
    pub plan: RerunPlan,
}

/// ES-8: how the required re-runs go.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RerunPlan {
    /// Required re-runs, largest move first.
    pub required: Vec<String>,
    /// Analyses that only get their new value recorded.
    pub update_only: Vec<String>,
    /// `serial` (two or fewer, or dependent) or `parallel`.
    pub strategy: String,
    /// The order to run in: each batch's analyses may run at once; batches one after another.
    pub batches: Vec<Vec<String>>,
}

fn rel(old: f64, new: f64) -> f64 {
    if old.abs() < 1e-9 {
        (new - old).abs()
    } else {
        ((new - old) / old).abs()
    }
}

/// Each analysis's moves between two results: (analysis, metric, old, new, delta, required).
fn moves(before: &Results, after: &Results) -> Vec<(&'static str, Impact)> {
    let money = |v: f64| format!("${v:.2}");
    let score = |v: f64| format!("{v:.3}");
    let one =
        |analysis: &str, metric: &str, old: String, new: String, delta: f64, limit: f64| Impact {
            analysis: analysis.to_owned(),
            metric: metric.to_owned(),
            old,
            new,
            delta,
            requires_rerun: delta > limit + 1e-12,
        };
    let rating_moved = before.rating != after.rating;
    let confidence = (after.confidence - before.confidence).abs();
    vec![
        (
            "dcf",
            one(
                "dcf",
                "target_price",
                money(before.target_price),
                money(after.target_price),
                rel(before.target_price, after.target_price),
                TARGET_PRICE_REL,
            ),
        ),
        (
            "sensitivity",
            one(
                "sensitivity",
                "target_price",
                money(before.downside),
                money(after.downside),
                rel(before.downside, after.downside),
                TARGET_PRICE_REL,
            ),
        ),
        (
            "risk",
            one(
                "risk",
                "risk_score",
                score(before.risk_score),
                score(after.risk_score),
                (after.risk_score - before.risk_score).abs(),
                RISK_ABS,
            ),
        ),
        (
            "rating",
            Impact {
                requires_rerun: rating_moved || confidence > CONFIDENCE_ABS + 1e-12,
                ..one(
                    "rating",
                    "rating",
                    format!("{} ({:.2})", before.rating.as_str(), before.confidence),
                    format!("{} ({:.2})", after.rating.as_str(), after.confidence),
                    if rating_moved { 1.0 } else { confidence },
                    CONFIDENCE_ABS,
                )
            },
        ),
    ]
}

/// ES-8: the impact of setting `key` to `value` from the assumptions `before`.
pub fn impact(
    graph: &[Node],
    company: &Company,
    before: &Assumptions,
    key: &str,
    value: f64,
) -> Result<ImpactReport, String> {
    let reached = analysis::affected(graph, key);
    let after_set = before.with(key, value);
    let old = analysis::compute(company, before)?;
    let new = analysis::compute(company, &after_set)?;
    let impacts: Vec<Impact> = moves(&old, &new)
        .into_iter()
        .filter(|(id, _)| reached.contains(id))
        .map(|(_, i)| i)
        .collect();
    let plan = plan(graph, &impacts);
    Ok(ImpactReport {
        assumption: key.to_owned(),
        old_value: before.get(key),
        new_value: value,
        impacts,
        plan,
    })
}

/// ES-8's scheduler: required re-runs by the size of their move; serial for two or fewer,
/// parallel (in dependency layers) when more, serial again when each depends on the one before.
pub fn plan(graph: &[Node], impacts: &[Impact]) -> RerunPlan {
    let mut required: Vec<&Impact> = impacts.iter().filter(|i| i.requires_rerun).collect();
    required.sort_by(|a, b| b.delta.total_cmp(&a.delta));
    let update_only = impacts
        .iter()
        .filter(|i| !i.requires_rerun)
        .map(|i| i.analysis.clone())
        .collect();
    // Dependency order first: an analysis runs after those it reads.
    let ids: Vec<&str> = graph
        .iter()
        .map(|n| n.id)
        .filter(|id| required.iter().any(|i| i.analysis == *id))
        .collect();
    let mut layers: Vec<Vec<String>> = Vec::new();
    let mut depth_of: Vec<(&str, usize)> = Vec::new();
    for id in &ids {
        let depth = depth_of
            .iter()
            .filter(|(other, _)| analysis::depends_on(graph, id, other))
            .map(|(_, d)| d + 1)
            .max()
            .unwrap_or(0);
        depth_of.push((id, depth));
        if layers.len() <= depth {
            layers.resize(depth + 1, Vec::new());
        }
        layers[depth].push((*id).to_owned());
    }
    let parallel = ids.len() > 2 && layers.len() < ids.len();
    let batches = if parallel {
        layers
    } else {
        ids.iter().map(|id| vec![(*id).to_owned()]).collect()
    };
    RerunPlan {
        required: required.iter().map(|i| i.analysis.clone()).collect(),
        update_only,
        strategy: if parallel { "parallel" } else { "serial" }.to_owned(),
        batches,
    }
}
