//! CR-1: an agent's credibility from its track record.
//!
//! With `n` outcomes (fewer than 5: insufficient data, no number):
//! 1. **Recency-weighted accuracy** `R = Σ wᵢcᵢ / Σ wᵢ`, `wᵢ = 0.5^(ageᵢ / half-life)` (2 years).
//! 2. **Regime accuracy** `G`: plain accuracy of the points tagged with the current regime,
//!    counted only with ≥ 50 of them. **Overall accuracy** `O`: plain accuracy of all points.
//! 3. `base = 0.5·R + 0.3·G + 0.2·O`; without `G` its 0.3 moves to the others in proportion:
//!    `base = (0.5·R + 0.2·O) / 0.7`.
//! 4. **Context match**: a point matches when it shares at least half of the context tags the
//!    request gives (sector, metric, horizon, size, stage). With ≥ 12 matching points (the
//!    smallest sample whose worst-case 95 % Wilson half-width is under 0.25, so the blend cannot
//!    move a score by more than noise), `blended = 0.7·base + 0.3·C`.
//! 5. **Trend**: accuracy per 91-day period, a least-squares line weighted by each period's
//!    points; when R² > 0.3 (and there are ≥ 3 periods) the line's change over the next quarter,
//!    `slope × 0.25 years`, bounded to ±0.1, is added.
//! 6. **Override penalty**: when judges overrode more than 20 % of the outcomes,
//!    `0.5 × (rate − 0.2)` is taken off.
//! 7. The score is bounded to [0, 1]; its interval is the 95 % **Wilson score interval** for a
//!    proportion equal to the score with `n` trials.

use std::collections::BTreeMap;

use super::types::{Breakdown, ContextTags, CrParams, CrStatus, Credibility, Period, Point};
use super::types::{TagAccuracy, Trend};

/// CR-1 for one agent's `points` at day `now`, in the `current` context.
#[allow(clippy::too_many_lines)] // CR-2's formula term by term, as the spec states it
pub fn credibility(points: &[Point], now: f64, current: &ContextTags, p: &CrParams) -> Breakdown {
    let n = points.len();
    let count = u32::try_from(n).unwrap_or(u32::MAX);
    let periods = periods(points, p.period_days);
    let by_tag = by_tag(points);
    let correct = points.iter().filter(|x| x.correct).count();
    let overridden = points.iter().filter(|x| x.overridden).count();
    let override_rate = if n == 0 {
        0.0
    } else {
        overridden as f64 / n as f64
    };
    let mut b = Breakdown {
        credibility: Credibility {
            score: None,
            low: None,
            high: None,
            points: count,
            status: CrStatus::InsufficientData,
        },
        recency: None,
        overall: None,
        regime: None,
        regime_points: 0,
        weights: [0.0; 3],
        context: None,
        context_points: 0,
        context_used: false,
        trend: None,
        override_rate,
        override_penalty: 0.0,
        periods,
        by_tag,
    };
    if count < p.min_points {
        return b;
    }
    // 1. Recency.
    let (mut sw, mut swc) = (0.0, 0.0);
    for x in points {
        let age = (now - x.at).max(0.0);
        let w = 0.5_f64.powf(age / p.half_life_days);
        sw += w;
        if x.correct {
            swc += w;
        }
    }
    let recency = if sw > 0.0 {
        swc / sw
    } else {
        correct as f64 / n as f64
    };
    // 2. Regime and overall.
    let overall = correct as f64 / n as f64;
    let (regime, regime_points) = match current.regime.as_deref() {
        Some(r) => accuracy(
            points
                .iter()
                .filter(|x| x.tags.regime.as_deref() == Some(r)),
        ),
        None => (None, 0),
    };
    let regime_used = regime_points >= p.min_regime_points;
    // 3. Base.
    let weights = if regime_used {
        [0.5, 0.3, 0.2]
    } else {
        [0.5 / 0.7, 0.0, 0.2 / 0.7]
    };
    let base = weights[0] * recency + weights[1] * regime.unwrap_or(0.0) + weights[2] * overall;
    // 4. Context.
    let given: Vec<(&str, &str)> = current
        .dimensions()
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
    let (context, context_points) = if given.is_empty() {
        (None, 0)
    } else {
        accuracy(points.iter().filter(|x| {
            let dims = x.tags.dimensions();
            let shared = given
                .iter()
                .filter(|(k, v)| dims.iter().any(|(dk, dv)| dk == k && *dv == Some(*v)))
                .count();
            2 * shared >= given.len()
        }))
    };
    let context_used = context_points >= p.min_context_points;
    let blended = match context {
        Some(c) if context_used => 0.7 * base + 0.3 * c,
        _ => base,
    };
    // 5. Trend.
    let trend = trend(&b.periods, p);
    let adjustment = trend
        .as_ref()
        .filter(|t| t.applied)
        .map_or(0.0, |t| t.adjustment);
    // 6. Overrides.
    let override_penalty = if override_rate > p.override_rate {
        0.5 * (override_rate - p.override_rate)
    } else {
        0.0
    };
    // 7. Score and interval.
    let score = (blended + adjustment - override_penalty).clamp(0.0, 1.0);
    let (low, high) = wilson(score, count, p.z);
    b.credibility = Credibility {
        score: Some(score),
        low: Some(low),
        high: Some(high),
        points: count,
        status: CrStatus::Ok,
    };
    b.recency = Some(recency);
    b.overall = Some(overall);
    b.regime = regime;
    b.regime_points = regime_points;
    b.weights = weights;
    b.context = context;
    b.context_points = context_points;
    b.context_used = context_used;
    b.trend = trend;
    b.override_penalty = override_penalty;
    b
}

/// The Wilson score interval for a proportion `p` observed over `n` trials at normal quantile
/// `z`: `(p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n)`. It always contains `p`, lies in
/// [0, 1], and narrows as `n` grows; `n = 0` gives [0, 1].
pub fn wilson(p: f64, n: u32, z: f64) -> (f64, f64) {
    if n == 0 || !p.is_finite() {
        return (0.0, 1.0);
    }
    let p = p.clamp(0.0, 1.0);
    let n = f64::from(n);
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // Rounding can leave p a hair outside when it sits on an end.
    ((centre - half).clamp(0.0, p), (centre + half).clamp(p, 1.0))
}

fn accuracy<'a>(points: impl Iterator<Item = &'a Point>) -> (Option<f64>, u32) {
    let (mut n, mut c) = (0u32, 0u32);
    for x in points {
        n += 1;
        c += u32::from(x.correct);
    }
    ((n > 0).then(|| f64::from(c) / f64::from(n)), n)
}

/// The record in `width`-day periods (aligned to 1970-01-01), oldest first; empty ones left out.
fn periods(points: &[Point], width: f64) -> Vec<Period> {
    let mut by: BTreeMap<i64, (u32, u32)> = BTreeMap::new();
    for x in points {
        let k = (x.at / width).floor() as i64;
        let e = by.entry(k).or_default();
        e.0 += 1;
        e.1 += u32::from(x.correct);
    }
    by.into_iter()
        .map(|(k, (points, correct))| Period {
            start: k as f64 * width,
            points,
            correct,
        })
        .collect()
}

/// Weighted least squares of period accuracy over the period's middle (in years).
fn trend(periods: &[Period], p: &CrParams) -> Option<Trend> {
    if periods.len() < 3 {
        return None;
    }
    let pts: Vec<(f64, f64, f64)> = periods
        .iter()
        .map(|q| {
            (
                (q.start + p.period_days / 2.0) / 365.25,
                q.accuracy(),
                f64::from(q.points),
            )
        })
        .collect();
    let sw: f64 = pts.iter().map(|x| x.2).sum();
    let mx = pts.iter().map(|x| x.0 * x.2).sum::<f64>() / sw;
    let my = pts.iter().map(|x| x.1 * x.2).sum::<f64>() / sw;
    let sxx: f64 = pts.iter().map(|x| x.2 * (x.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|x| x.2 * (x.0 - mx) * (x.1 - my)).sum();
    let syy: f64 = pts.iter().map(|x| x.2 * (x.1 - my).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    // A flat accuracy (syy = 0) is explained by nothing: no trend.
    let r2 = if syy > 0.0 {
        (sxy * sxy / (sxx * syy)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let applied = r2 > p.trend_r2;
    Some(Trend {
        slope_per_year: slope,
        r2,
        applied,
        adjustment: (slope * 0.25).clamp(-0.1, 0.1),
    })
}

/// Accuracy per regime value and per context value, sorted by tag then value.
fn by_tag(points: &[Point]) -> Vec<TagAccuracy> {
    let mut by: BTreeMap<(usize, String), (u32, u32)> = BTreeMap::new();
    for x in points {
        let mut add = |i: usize, v: Option<&str>| {
            if let Some(v) = v {
                let e = by.entry((i, v.to_owned())).or_default();
                e.0 += 1;
                e.1 += u32::from(x.correct);
            }
        };
        add(0, x.tags.regime.as_deref());
        for (i, (_, v)) in x.tags.dimensions().into_iter().enumerate() {
            add(i + 1, v);
        }
    }
    by.into_iter()
        .map(|((i, value), (points, correct))| TagAccuracy {
            tag: if i == 0 {
                "regime".to_owned()
            } else {
                ContextTags::DIMENSIONS[i - 1].to_owned()
            },
            value,
            points,
            correct,
        })
        .collect()
}
