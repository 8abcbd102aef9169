//! The analyses an escalation pipeline computes from its assumptions (ES-8), as pure closed-form
//! calculators, and the dependency graph between them.
//!
//! - **DCF** (`dcf`, metric `target_price`): five years of free cash flow per share, revenue
//!   growing at `revenue_growth`, `FCF = revenue × operating_margin × (1 − tax_rate) ×
//!   (1 − reinvestment_rate)`, a Gordon terminal value at `terminal_growth`, discounted at
//!   `discount_rate`, less net debt (`net_debt_to_ebitda × revenue × operating_margin`). The
//!   target is proportional to the margin, so seed 000's 25 % → 28 % moves it by 12 %.
//! - **Sensitivity** (`sensitivity`, metric `target_price` of the downside case): the DCF over six
//!   scenarios, the discount rate ±1 point × the terminal growth ±0.5 point.
//! - **Risk** (`risk`, metric `risk_score` from 0 to 1): `0.15 + 0.35·leverage + 0.30·thin margin +
//!   0.20·growth stretch`, with leverage = net debt/EBITDA ÷ 5, thin margin = (30 % − margin) ÷
//!   30 % and growth stretch = |growth − 5 %| ÷ 25 %, each clamped to 0…1.
//! - **Rating** (`rating`, from the DCF and the risk): upside to the current price ≥ 15 % BUY,
//!   ≤ −10 % SELL, else HOLD; a risk score ≥ 0.7 lowers it one notch. Its `confidence` grows with
//!   the distance of the upside from the nearest boundary: 0.5 + min(0.45, 2 × distance).

use serde::{Deserialize, Serialize};

use super::assumptions::Assumptions;

/// The company the pipeline values: what is known, not argued about.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Company {
    /// Last year's revenue per share.
    pub revenue_per_share: f64,
    /// Today's share price (the rating's reference).
    pub price: f64,
}

impl Default for Company {
    /// A company whose DCF at the default assumptions is about $85 (seed 000's example).
    fn default() -> Self {
        Company {
            revenue_per_share: 35.7,
            price: 80.0,
        }
    }
}

/// A rating, ordered from the most cautious.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Rating {
    Sell,
    Hold,
    Buy,
}

impl Rating {
    pub fn as_str(self) -> &'static str {
        match self {
            Rating::Sell => "SELL",
            Rating::Hold => "HOLD",
            Rating::Buy => "BUY",
        }
    }

    fn lower(self) -> Rating {
        match self {
            Rating::Buy => Rating::Hold,
            _ => Rating::Sell,
        }
    }
}

/// What every analysis computed from one set of assumptions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub target_price: f64,
    /// The sensitivity grid's lowest and highest target.
    pub downside: f64,
    pub upside: f64,
    pub risk_score: f64,
    pub rating: Rating,
    pub confidence: f64,
}

/// The DCF target price per share.
pub fn dcf(company: &Company, a: &Assumptions) -> Result<f64, String> {
    dcf_at(company, a, a.get("discount_rate"), a.get("terminal_growth"))
}

fn dcf_at(company: &Company, a: &Assumptions, rate: f64, terminal: f64) -> Result<f64, String> {
    if rate - terminal < 0.01 - 1e-12 {
        return Err(format!(
            "discount_rate ({rate:.4}) must exceed terminal_growth ({terminal:.4}) by at least one point"
        ));
    }
    let growth = a.get("revenue_growth");
    let margin = a.get("operating_margin");
    let keep = (1.0 - a.get("tax_rate")) * (1.0 - a.get("reinvestment_rate"));
    let mut revenue = company.revenue_per_share;
    let mut value = 0.0;
    let mut discount = 1.0;
    let mut fcf = 0.0;
    for _ in 0..5 {
        revenue *= 1.0 + growth;
        discount *= 1.0 + rate;
        fcf = revenue * margin * keep;
        value += fcf / discount;
    }
    value += fcf * (1.0 + terminal) / (rate - terminal) / discount;
    let net_debt = a.get("net_debt_to_ebitda") * company.revenue_per_share * margin;
    Ok(value - net_debt)
}

/// The sensitivity grid's (lowest, highest) target over its six scenarios.
pub fn sensitivity(company: &Company, a: &Assumptions) -> Result<(f64, f64), String> {
    let (rate, terminal) = (a.get("discount_rate"), a.get("terminal_growth"));
    let mut low = f64::INFINITY;
    let mut high = f64::NEG_INFINITY;
    for dr in [-0.01, 0.0, 0.01] {
        for dt in [-0.005, 0.005] {
            // A scenario the model cannot value (rate too close to growth) is left out.
            if let Ok(v) = dcf_at(company, a, rate + dr, terminal + dt) {
                low = low.min(v);
                high = high.max(v);
            }
        }
    }
    if low.is_finite() {
        Ok((low, high))
    } else {
        Err("no sensitivity scenario can be valued".into())
    }
}

/// The risk score, 0 (safe) to 1.
pub fn risk(a: &Assumptions) -> f64 {
    let clamp = |x: f64| x.clamp(0.0, 1.0);
    let leverage = clamp(a.get("net_debt_to_ebitda") / 5.0);
    let thin = clamp((0.30 - a.get("operating_margin")) / 0.30);
    let stretch = clamp((a.get("revenue_growth") - 0.05).abs() / 0.25);
    clamp(0.15 + 0.35 * leverage + 0.30 * thin + 0.20 * stretch)
}

/// The rating and its confidence from a target price and a risk score.
pub fn rating(company: &Company, target: f64, risk: f64) -> (Rating, f64) {
    let upside = target / company.price - 1.0;
    // A boundary hit exactly counts (a price of 90 against 100 is −10 %, not −9.99…%).
    let mut r = if upside >= 0.15 - 1e-9 {
        Rating::Buy
    } else if upside <= -0.10 + 1e-9 {
        Rating::Sell
    } else {
        Rating::Hold
    };
    if risk >= 0.7 {
        r = r.lower();
    }
    let distance = (upside - 0.15).abs().min((upside + 0.10).abs());
    (r, 0.5 + (2.0 * distance).min(0.45))
}

/// Every analysis, in dependency order.
pub fn compute(company: &Company, a: &Assumptions) -> Result<Results, String> {
    let target_price = dcf(company, a)?;
    let (downside, upside) = sensitivity(company, a)?;
    let risk_score = risk(a);
    let (rating, confidence) = rating(company, target_price, risk_score);
    Ok(Results {
        target_price,
        downside,
        upside,
        risk_score,
        rating,
        confidence,
    })
}

/// One analysis in the dependency graph: the assumptions and the analyses it reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub id: &'static str,
    pub assumptions: &'static [&'static str],
    pub analyses: &'static [&'static str],
}

const ALL_DCF_INPUTS: &[&str] = &[
    "revenue_growth",
    "operating_margin",
    "discount_rate",
    "terminal_growth",
    "tax_rate",
    "reinvestment_rate",
    "net_debt_to_ebitda",
];

/// ES-8: the pipeline's graph, in dependency order (a node only reads nodes before it).
pub const GRAPH: [Node; 4] = [
    Node {
        id: "dcf",
        assumptions: ALL_DCF_INPUTS,
        analyses: &[],
    },
    Node {
        id: "sensitivity",
        assumptions: ALL_DCF_INPUTS,
        analyses: &[],
    },
    Node {
        id: "risk",
        assumptions: &["operating_margin", "net_debt_to_ebitda", "revenue_growth"],
        analyses: &[],
    },
    Node {
        id: "rating",
        assumptions: &[],
        analyses: &["dcf", "risk"],
    },
];

/// ES-8: every analysis a change of `assumption` reaches, directly or through other analyses,
/// in the graph's (dependency) order.
pub fn affected(graph: &[Node], assumption: &str) -> Vec<&'static str> {
    let mut hit: Vec<&'static str> = Vec::new();
    for node in graph {
        let direct = node.assumptions.contains(&assumption);
        let through = node.analyses.iter().any(|a| hit.contains(a));
        if direct || through {
            hit.push(node.id);
        }
    }
    hit
}

/// Whether analysis `a` reads analysis `b`, directly or transitively.
pub fn depends_on(graph: &[Node], a: &str, b: &str) -> bool {
    let Some(node) = graph.iter().find(|n| n.id == a) else {
        return false;
    };
    node.analyses
        .iter()
        .any(|parent| *parent == b || depends_on(graph, parent, b))
}
