//! The named numeric assumptions an analysis pipeline argues about (ES-1, ES-6): each with its
//! unit, the range a value must lie in, the direction that is *cautious* (ES-6's "most
//! conservative assumption"), and the priority a dispute over it gets (ES-2).

use serde::{Deserialize, Serialize};

pub use crate::shared::judging::Priority;

/// Which end of an assumption's range is the cautious one (ES-6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caution {
    /// Lower is more cautious (a margin, a growth rate: lower means a lower price target).
    Lower,
    /// Higher is more cautious (a discount rate, leverage: higher means a lower price or more risk).
    Higher,
}

/// One assumption of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Assumption {
    pub key: &'static str,
    pub label: &'static str,
    /// How values are written: "fraction" (0.25 = 25 %) or "ratio".
    pub unit: &'static str,
    pub min: f64,
    pub max: f64,
    /// The value the pipeline starts from when no agent states one.
    pub default: f64,
    pub caution: Caution,
    pub priority: Priority,
    /// Two values closer than this are the same position (no challenge).
    pub tolerance: f64,
}

impl Assumption {
    /// ES-6: the most cautious of `values` (the lowest margin, the highest discount rate).
    pub fn most_cautious(&self, values: &[f64]) -> Option<f64> {
        let pick = match self.caution {
            Caution::Lower => f64::min,
            Caution::Higher => f64::max,
        };
        values.iter().copied().reduce(pick)
    }

    /// Whether `a` and `b` are different positions on this assumption.
    pub fn disagree(&self, a: f64, b: f64) -> bool {
        (a - b).abs() > self.tolerance
    }

    /// A value of this assumption, or why it is not one ("operating_margin: 1.4 is outside
    /// 0 to 0.8").
    pub fn check(&self, value: f64) -> Result<f64, String> {
        if !value.is_finite() || value < self.min || value > self.max {
            return Err(format!(
                "{}: {value} is outside {} to {}",
                self.key, self.min, self.max
            ));
        }
        Ok(value)
    }

    /// The first value of this assumption a text states ("the contract fixes 28 %" → 0.28 for a
    /// fraction: a percentage, or a number beyond the range, is read as per cent), if any.
    pub fn value_in(&self, text: &str) -> Option<f64> {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            if i == start {
                i += 1;
                continue;
            }
            let Ok(n) = text[start..i].trim_end_matches('.').parse::<f64>() else {
                continue;
            };
            let n = if start > 0 && bytes[start - 1] == b'-' {
                -n
            } else {
                n
            };
            let percent = text[i..].trim_start().starts_with('%');
            let n = if self.unit == "fraction"
                && (percent || n.abs() > self.max.abs().max(self.min.abs()))
            {
                n / 100.0
            } else {
                n
            };
            if let Ok(v) = self.check(n) {
                return Some(v);
            }
        }
        None
    }

    /// The value as people read it: "25.0 %" for fractions, "2.50×" for ratios.
    pub fn show(&self, value: f64) -> String {
        match self.unit {
            "fraction" => format!("{:.1} %", value * 100.0),
            _ => format!("{value:.2}×"),
        }
    }
}

/// The catalogue, in the order the pipeline lists them.
pub const ASSUMPTIONS: [Assumption; 7] = [
    Assumption {
        key: "revenue_growth",
        label: "Revenue growth (yearly, next 5 years)",
        unit: "fraction",
        min: -0.5,
        max: 1.0,
        default: 0.08,
        caution: Caution::Lower,
        priority: Priority::ValuationImpact,
        tolerance: 0.01,
    },
    Assumption {
        key: "operating_margin",
        label: "Operating margin",
        unit: "fraction",
        min: -0.5,
        max: 0.8,
        default: 0.25,
        caution: Caution::Lower,
        priority: Priority::CriticalPath,
        tolerance: 0.01,
    },
    Assumption {
        key: "discount_rate",
        label: "Discount rate (WACC)",
        unit: "fraction",
        min: 0.03,
        max: 0.3,
        default: 0.09,
        caution: Caution::Higher,
        priority: Priority::ValuationImpact,
        tolerance: 0.005,
    },
    Assumption {
        key: "terminal_growth",
        label: "Terminal growth",
        unit: "fraction",
        min: -0.02,
        max: 0.05,
        default: 0.025,
        caution: Caution::Lower,
        priority: Priority::ValuationImpact,
        tolerance: 0.0025,
    },
    Assumption {
        key: "tax_rate",
        label: "Tax rate",
        unit: "fraction",
        min: 0.0,
        max: 0.5,
        default: 0.21,
        caution: Caution::Higher,
        priority: Priority::Supporting,
        tolerance: 0.01,
    },
    Assumption {
        key: "reinvestment_rate",
        label: "Reinvestment (share of after-tax profit)",
        unit: "fraction",
        min: 0.0,
        max: 0.9,
        default: 0.3,
        caution: Caution::Higher,
        priority: Priority::Supporting,
        tolerance: 0.02,
    },
    Assumption {
        key: "net_debt_to_ebitda",
        label: "Net debt / EBITDA",
        unit: "ratio",
        min: -5.0,
        max: 10.0,
        default: 1.5,
        caution: Caution::Higher,
        priority: Priority::Supporting,
        tolerance: 0.25,
    },
];

/// The assumption named `key`.
pub fn assumption(key: &str) -> Option<&'static Assumption> {
    ASSUMPTIONS.iter().find(|a| a.key == key)
}

/// Values for every assumption, by key, in catalogue order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Assumptions(pub Vec<(String, f64)>);

impl Default for Assumptions {
    fn default() -> Self {
        Assumptions(
            ASSUMPTIONS
                .iter()
                .map(|a| (a.key.to_owned(), a.default))
                .collect(),
        )
    }
}

impl Assumptions {
    /// The value of `key` (the catalogue's default when unset).
    pub fn get(&self, key: &str) -> f64 {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| *v)
            .or_else(|| assumption(key).map(|a| a.default))
            .unwrap_or(0.0)
    }

    /// A copy with `key` set to `value`.
    pub fn with(&self, key: &str, value: f64) -> Assumptions {
        let mut next = self.clone();
        match next.0.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => next.0.push((key.to_owned(), value)),
        }
        next
    }
}
