//! The record's points and what CR-1 makes of them.

use serde::{Deserialize, Serialize};

/// The context a request or a prediction carries (CR-1): the market regime and five matching
/// dimensions. All optional free text, at most [`ContextTags::MAX_CHARS`] characters each.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
// DX-3: also the query string of `GET /api/agents/{identity}`, so it documents those parameters.
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema, utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct ContextTags {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regime: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
}

impl ContextTags {
    pub const MAX_CHARS: usize = 64;
    /// The five context-match dimensions (the regime is scored on its own).
    pub const DIMENSIONS: [&'static str; 5] = ["sector", "metric", "horizon", "size", "stage"];

    pub fn is_empty(&self) -> bool {
        self.regime.is_none() && self.dimensions().iter().all(|(_, v)| v.is_none())
    }

    /// `(name, value)` of the five match dimensions, in [`Self::DIMENSIONS`] order.
    pub fn dimensions(&self) -> [(&'static str, Option<&str>); 5] {
        [
            ("sector", self.sector.as_deref()),
            ("metric", self.metric.as_deref()),
            ("horizon", self.horizon.as_deref()),
            ("size", self.size.as_deref()),
            ("stage", self.stage.as_deref()),
        ]
    }

    /// Trims every tag (an empty one becomes absent) and checks its length and characters,
    /// naming the tag: "context.sector: 80 characters; the limit is 64".
    pub fn normalised(&self) -> Result<ContextTags, String> {
        let one = |name: &str, v: &Option<String>| -> Result<Option<String>, String> {
            let Some(v) = v.as_deref().map(str::trim).filter(|v| !v.is_empty()) else {
                return Ok(None);
            };
            let n = v.chars().count();
            if n > Self::MAX_CHARS {
                return Err(format!(
                    "context.{name}: {n} characters; the limit is {}",
                    Self::MAX_CHARS
                ));
            }
            if let Some(c) = v.chars().find(|c| c.is_control()) {
                return Err(format!(
                    "context.{name}: contains the control character U+{:04X}",
                    u32::from(c)
                ));
            }
            Ok(Some(v.to_owned()))
        };
        Ok(ContextTags {
            regime: one("regime", &self.regime)?,
            sector: one("sector", &self.sector)?,
            metric: one("metric", &self.metric)?,
            horizon: one("horizon", &self.horizon)?,
            size: one("size", &self.size)?,
            stage: one("stage", &self.stage)?,
        })
    }
}

/// One prediction of the record whose outcome is known: when it was made, whether it was right,
/// whether a judge overrode it, and the context it was made in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Point {
    /// Days since 1970-01-01 ([`super::time::days`]).
    pub at: f64,
    pub correct: bool,
    pub overridden: bool,
    pub tags: ContextTags,
}

/// CR-1's constants. The defaults are the spec's; the half-life is configurable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CrParams {
    /// Exponential-decay half-life of the recency weighting (2 years).
    pub half_life_days: f64,
    /// Fewer outcomes than this: "insufficient data" (5).
    pub min_points: u32,
    /// Regime accuracy counts only with this many points in the current regime (50).
    pub min_regime_points: u32,
    /// Context-match accuracy is blended in only with this many matching points (12: the
    /// smallest sample whose worst-case 95 % Wilson half-width is under 0.25, ES-4's gap).
    pub min_context_points: u32,
    /// The trend term applies when the fit's R² exceeds this (0.3).
    pub trend_r2: f64,
    /// Width of the periods the trend is fitted over and the chart draws (91 days: a quarter).
    pub period_days: f64,
    /// The override penalty starts above this override rate (0.2).
    pub override_rate: f64,
    /// z of the interval (1.96: 95 %).
    pub z: f64,
}

impl Default for CrParams {
    fn default() -> Self {
        CrParams {
            half_life_days: 730.5,
            min_points: 5,
            min_regime_points: 50,
            min_context_points: 12,
            trend_r2: 0.3,
            period_days: 91.0,
            override_rate: 0.2,
            z: 1.96,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum CrStatus {
    Ok,
    InsufficientData,
}

/// The contract's short form: `score`, `low`, `high` are `None` (JSON null) with
/// `insufficient_data` — never a number pretending to be one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Credibility {
    pub score: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Predictions with a known outcome.
    pub points: u32,
    pub status: CrStatus,
}

impl Credibility {
    /// The weight a vote gets from this credibility: the score, or RC-2's neutral 0.5 when the
    /// record is too short to say.
    pub fn weight(&self) -> f64 {
        self.score.unwrap_or(0.5)
    }
}

/// CR-1's trend term: the weighted least-squares line through the periods' accuracy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Trend {
    /// Accuracy change per year.
    pub slope_per_year: f64,
    pub r2: f64,
    /// R² > 0.3: the term is in the score.
    pub applied: bool,
    /// What it adds: the fitted line a quarter ahead, bounded to ±0.1.
    pub adjustment: f64,
}

/// Accuracy in one period of the record (the chart's points).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Period {
    /// First day of the period (days since 1970-01-01).
    pub start: f64,
    pub points: u32,
    pub correct: u32,
}

impl Period {
    pub fn accuracy(&self) -> f64 {
        f64::from(self.correct) / f64::from(self.points.max(1))
    }
}

/// Accuracy of the points that share one value of one tag.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TagAccuracy {
    /// `regime`, `sector`, …
    pub tag: String,
    pub value: String,
    pub points: u32,
    pub correct: u32,
}

/// CR-1 in full: the score and every part of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Breakdown {
    pub credibility: Credibility,
    /// Recency-weighted accuracy (half-life decay).
    pub recency: Option<f64>,
    /// Plain accuracy over every point.
    pub overall: Option<f64>,
    /// Accuracy in the current regime and its points (counted only with ≥ 50).
    pub regime: Option<f64>,
    pub regime_points: u32,
    /// The weights used for recency, regime and overall (0.5/0.3/0.2, or 0.714/0/0.286).
    pub weights: [f64; 3],
    /// Accuracy of the points matching the current context, and how many there are.
    pub context: Option<f64>,
    pub context_points: u32,
    pub context_used: bool,
    pub trend: Option<Trend>,
    /// Share of outcomes where a judge overrode the agent.
    pub override_rate: f64,
    pub override_penalty: f64,
    /// Accuracy per period, oldest first.
    pub periods: Vec<Period>,
    /// Accuracy per regime and per context value.
    pub by_tag: Vec<TagAccuracy>,
}
