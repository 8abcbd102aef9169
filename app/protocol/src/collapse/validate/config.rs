//! WC-2…WC-7: the request's `config` for `collapse` as a `serde` type: overrides of
//! [`WcParams`], each refused by its path (`config.hybrid_gap: must be a number from 0 to 1, …`).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::collapse::params::WcParams;
use crate::parse::field::{read, Number, Object, Whole};

/// The request's `config` for `collapse`: overrides of [`WcParams`] (WC-2…WC-7); a key left out
/// or null keeps its default, an unknown one is refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamsIn {
    w_e: Option<Number<0, 100>>,
    w_r: Option<Number<0, 100>>,
    w_v: Option<Number<0, 100>>,
    w_k: Option<Number<0, 100>>,
    w_gamma: Option<Number<0, 100>>,
    w_i: Option<Number<0, 100>>,
    accept_threshold: Option<Number<-1000, 1000>>,
    gap_threshold: Option<Number<0, 1000>>,
    max_reflexions: Option<Whole<0, 5>>,
    consensus_threshold: Option<Number<0, 1>>,
    fallback_threshold: Option<Number<0, 1>>,
    escalate_threshold: Option<Number<0, 1>>,
    hybrid_gap: Option<Number<0, 1>>,
    critical_residual: Option<Number<0, 1>>,
    irreversible_below: Option<Number<0, 1>>,
    evidence_min: Option<Number<0, 1>>,
    skeptic_min: Option<Number<0, 10>>,
    expert_disagreement: Option<Number<0, 10>>,
    cost_estimate: Option<Whole<1, { u32::MAX }>>,
    /// WC-5: seat weights by role.
    panel: Option<Object<BTreeMap<String, Number<0, 100>>>>,
}

fn set<const LO: i32, const HI: i32>(slot: &mut f64, v: Option<Number<LO, HI>>) {
    if let Some(Number(x)) = v {
        *slot = x;
    }
}

/// The request's `config` for `collapse`, checked by name (`config.hybrid_gap: …`).
pub fn parse_params(v: &Value) -> Result<WcParams, String> {
    let Object(c) = read::<Object<ParamsIn>>(v, "config")?;
    let mut p = WcParams::default();
    let w = &mut p.weights;
    set(&mut w.w_e, c.w_e);
    set(&mut w.w_r, c.w_r);
    set(&mut w.w_v, c.w_v);
    set(&mut w.w_k, c.w_k);
    set(&mut w.w_gamma, c.w_gamma);
    set(&mut w.w_i, c.w_i);
    set(&mut p.accept_threshold, c.accept_threshold);
    set(&mut p.gap_threshold, c.gap_threshold);
    if let Some(Whole(n)) = c.max_reflexions {
        p.max_reflexions = n;
    }
    set(&mut p.consensus_threshold, c.consensus_threshold);
    set(&mut p.fallback_threshold, c.fallback_threshold);
    set(&mut p.escalate_threshold, c.escalate_threshold);
    set(&mut p.hybrid_gap, c.hybrid_gap);
    set(&mut p.critical_residual, c.critical_residual);
    set(&mut p.irreversible_below, c.irreversible_below);
    set(&mut p.evidence_min, c.evidence_min);
    set(&mut p.skeptic_min, c.skeptic_min);
    set(&mut p.expert_disagreement, c.expert_disagreement);
    if let Some(Whole(n)) = c.cost_estimate {
        p.cost_estimate = Some(n);
    }
    for (role, Number(weight)) in c.panel.map(|o| o.0).unwrap_or_default() {
        match p.panel.iter_mut().find(|s| s.role.as_str() == role) {
            Some(seat) => seat.weight = weight,
            None => {
                let seats: Vec<&str> = p.panel.iter().map(|s| s.role.as_str()).collect();
                return Err(format!(
                    "config.panel.{role}: not a panel seat; seats are {}",
                    seats.join(", ")
                ));
            }
        }
    }
    // WC-6: the outcome bands must nest.
    if !(p.escalate_threshold <= p.fallback_threshold
        && p.fallback_threshold <= p.consensus_threshold)
    {
        return Err(format!(
            "config: thresholds must satisfy escalate ({}) ≤ fallback ({}) ≤ consensus ({})",
            p.escalate_threshold, p.fallback_threshold, p.consensus_threshold
        ));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::parse_params;

    /// WC-2…WC-7: each bad key is named by its path, unknown ones with the keys there are.
    #[test]
    fn bad_parameters_are_named_by_path() {
        let cases = [
            (json!([1]), "config: must be an object, got an array"),
            (
                json!({"hybrid_gap": -2}),
                "config.hybrid_gap: must be a number from 0 to 1, got -2",
            ),
            (
                json!({"w_e": "5"}),
                r#"config.w_e: must be a number from 0 to 100, got "5""#,
            ),
            (
                json!({"max_reflexions": 6}),
                "config.max_reflexions: must be a whole number from 0 to 5, got 6",
            ),
            (
                json!({"cost_estimate": 0}),
                "config.cost_estimate: must be a whole number of at least 1, got 0",
            ),
            (
                json!({"panel": {"verifier": 300}}),
                "config.panel.verifier: must be a number from 0 to 100, got 300",
            ),
            (
                json!({"panel": 3}),
                "config.panel: must be an object, got a number",
            ),
            (
                json!({"panel": {"oracle": 2}}),
                "config.panel.oracle: not a panel seat; seats are minimalist, skeptic, \
                 domain_expert, verifier, collective_intelligence, risk_compliance, user_value",
            ),
            (
                json!({"escalate_threshold": 0.8}),
                "config: thresholds must satisfy escalate (0.8) ≤ fallback (0.6) ≤ consensus (0.7)",
            ),
        ];
        for (config, want) in cases {
            assert_eq!(parse_params(&config), Err(want.to_owned()), "{config}");
        }
        let unknown = parse_params(&json!({"w_x": 1})).expect_err("unknown");
        assert!(
            unknown.starts_with("config.w_x: unknown field; expected one of w_e, w_r"),
            "{unknown}"
        );
        let p = parse_params(&json!({"cost_estimate": 40, "max_reflexions": 0, "w_i": null}))
            .expect("good");
        assert_eq!(
            (p.cost_estimate, p.max_reflexions, p.weights.w_i),
            (Some(40), 0, 10.0)
        );
    }
}
