//! WC-1: position cards and WC parameters checked field by field, so a bad one is refused with
//! the field named (`cards[1].risks[0].residual_risk: must be a number from 0 to 1, got 1.5`).
//! User cards arrive as JSON and go through [`parse_cards`]; agents' cards through [`check_card`].

use serde_json::{Map, Value};

use super::card::{
    Evidence, EvidenceKind, InvariantViolation, PlanStep, PositionCard, Risk, Severity,
};
use super::params::WcParams;
use super::types::PanelEvaluation;
use crate::protocol::types::Role;

pub const MAX_CARDS: usize = 8;
pub const MAX_TEXT: usize = 2000;
pub const MAX_ITEMS: usize = 20;

type R<T> = Result<T, String>;

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn object<'a>(v: &'a Value, path: &str, allowed: &[&str]) -> R<&'a Map<String, Value>> {
    let o = v
        .as_object()
        .ok_or_else(|| format!("{path}: must be an object, got {}", kind(v)))?;
    if let Some(k) = o.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "{path}.{k}: unknown field; expected one of {}",
            allowed.join(", ")
        ));
    }
    Ok(o)
}

fn field<'a>(o: &'a Map<String, Value>, path: &str, key: &str) -> R<&'a Value> {
    o.get(key).ok_or_else(|| format!("{path}.{key}: missing"))
}

fn text(v: &Value, path: &str) -> R<String> {
    let s = v
        .as_str()
        .ok_or_else(|| format!("{path}: must be a string, got {}", kind(v)))?;
    check_text(s, path)?;
    Ok(s.to_owned())
}

fn check_text(s: &str, path: &str) -> R<()> {
    let n = s.chars().count();
    if n > MAX_TEXT {
        return Err(format!("{path}: {n} characters; the limit is {MAX_TEXT}"));
    }
    if let Some(c) = s
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\n' | '\t'))
    {
        return Err(format!(
            "{path}: contains the control character U+{:04X}",
            u32::from(c)
        ));
    }
    Ok(())
}

fn unit(v: &Value, path: &str) -> R<f64> {
    match v.as_f64() {
        Some(x) if x.is_finite() && (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("{path}: must be a number from 0 to 1, got {v}")),
    }
}

fn list<'a>(v: &'a Value, path: &str) -> R<&'a Vec<Value>> {
    let a = v
        .as_array()
        .ok_or_else(|| format!("{path}: must be an array, got {}", kind(v)))?;
    if a.len() > MAX_ITEMS {
        return Err(format!(
            "{path}: {} items; the limit is {MAX_ITEMS}",
            a.len()
        ));
    }
    Ok(a)
}

/// A position id: it names the author and appears in ids and URLs.
fn check_id(s: &str, path: &str) -> R<()> {
    let ok = !s.is_empty()
        && s.len() <= 40
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !ok {
        return Err(format!(
            "{path}: must be 1–40 letters, digits, '-' or '_', got \"{s}\""
        ));
    }
    if s == "hybrid"
        || Role::parse(s).is_some_and(|r| super::default_panel().iter().any(|p| p.role == r))
    {
        return Err(format!(
            "{path}: \"{s}\" is reserved for the protocol's own agents"
        ));
    }
    Ok(())
}

fn card(v: &Value, path: &str) -> R<PositionCard> {
    const FIELDS: [&str; 10] = [
        "agent",
        "timestamp",
        "claims",
        "plan",
        "evidence",
        "risks",
        "confidence",
        "cost",
        "reversibility",
        "invariant_violations",
    ];
    let o = object(v, path, &FIELDS)?;
    let agent = text(field(o, path, "agent")?, &format!("{path}.agent"))?;
    check_id(&agent, &format!("{path}.agent"))?;
    let timestamp = match o.get("timestamp") {
        None | Some(Value::Null) => String::new(),
        Some(t) => text(t, &format!("{path}.timestamp"))?,
    };
    let claims = list(field(o, path, "claims")?, &format!("{path}.claims"))?
        .iter()
        .enumerate()
        .map(|(i, c)| text(c, &format!("{path}.claims[{i}]")))
        .collect::<R<Vec<_>>>()?;
    if claims.is_empty() {
        return Err(format!("{path}.claims: at least one claim"));
    }
    let plan = list(field(o, path, "plan")?, &format!("{path}.plan"))?
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let p = format!("{path}.plan[{i}]");
            let o = object(s, &p, &["action", "rationale"])?;
            Ok(PlanStep {
                action: text(field(o, &p, "action")?, &format!("{p}.action"))?,
                rationale: text(field(o, &p, "rationale")?, &format!("{p}.rationale"))?,
            })
        })
        .collect::<R<Vec<_>>>()?;
    if plan.is_empty() {
        return Err(format!("{path}.plan: at least one step"));
    }
    let evidence = list(field(o, path, "evidence")?, &format!("{path}.evidence"))?
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let p = format!("{path}.evidence[{i}]");
            let o = object(e, &p, &["type", "pointer", "quality"])?;
            let t = field(o, &p, "type")?;
            let kind = match t.as_str() {
                Some("document") => EvidenceKind::Document,
                Some("test") => EvidenceKind::Test,
                Some("measurement") => EvidenceKind::Measurement,
                Some("expert_review") => EvidenceKind::ExpertReview,
                _ => {
                    return Err(format!(
                    "{p}.type: must be one of document, test, measurement, expert_review, got {t}"
                ))
                }
            };
            Ok(Evidence {
                kind,
                pointer: text(field(o, &p, "pointer")?, &format!("{p}.pointer"))?,
                quality: unit(field(o, &p, "quality")?, &format!("{p}.quality"))?,
            })
        })
        .collect::<R<Vec<_>>>()?;
    let risks = list(field(o, path, "risks")?, &format!("{path}.risks"))?
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let p = format!("{path}.risks[{i}]");
            let o = object(
                r,
                &p,
                &["severity", "description", "mitigation", "residual_risk"],
            )?;
            let s = field(o, &p, "severity")?;
            let severity = match s.as_str() {
                Some("critical") => Severity::Critical,
                Some("high") => Severity::High,
                Some("medium") => Severity::Medium,
                Some("low") => Severity::Low,
                _ => {
                    return Err(format!(
                        "{p}.severity: must be one of critical, high, medium, low, got {s}"
                    ))
                }
            };
            Ok(Risk {
                severity,
                description: text(field(o, &p, "description")?, &format!("{p}.description"))?,
                mitigation: text(field(o, &p, "mitigation")?, &format!("{p}.mitigation"))?,
                residual_risk: unit(
                    field(o, &p, "residual_risk")?,
                    &format!("{p}.residual_risk"),
                )?,
            })
        })
        .collect::<R<Vec<_>>>()?;
    let cost_v = field(o, path, "cost")?;
    let cost = cost_v
        .as_u64()
        .and_then(|c| u32::try_from(c).ok())
        .filter(|c| *c <= 1_000_000)
        .ok_or_else(|| {
            format!("{path}.cost: must be a whole number from 0 to 1000000, got {cost_v}")
        })?;
    let invariant_violations = match o.get("invariant_violations") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => list(v, &format!("{path}.invariant_violations"))?
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let p = format!("{path}.invariant_violations[{i}]");
                let o = object(
                    x,
                    &p,
                    &[
                        "invariant_id",
                        "description",
                        "justification",
                        "requires_approval",
                    ],
                )?;
                let ra = field(o, &p, "requires_approval")?;
                Ok(InvariantViolation {
                    invariant_id: text(
                        field(o, &p, "invariant_id")?,
                        &format!("{p}.invariant_id"),
                    )?,
                    description: text(field(o, &p, "description")?, &format!("{p}.description"))?,
                    justification: text(
                        field(o, &p, "justification")?,
                        &format!("{p}.justification"),
                    )?,
                    requires_approval: ra.as_bool().ok_or_else(|| {
                        format!("{p}.requires_approval: must be true or false, got {ra}")
                    })?,
                })
            })
            .collect::<R<Vec<_>>>()?,
    };
    Ok(PositionCard {
        agent,
        timestamp,
        claims,
        plan,
        evidence,
        risks,
        confidence: unit(field(o, path, "confidence")?, &format!("{path}.confidence"))?,
        cost,
        reversibility: unit(
            field(o, path, "reversibility")?,
            &format!("{path}.reversibility"),
        )?,
        invariant_violations,
    })
}

/// WC-1: the request's `cards`: 2–8 valid cards with distinct `agent` ids.
pub fn parse_cards(v: &Value) -> Result<Vec<PositionCard>, String> {
    let a = v
        .as_array()
        .ok_or_else(|| format!("cards: must be an array of position cards, got {}", kind(v)))?;
    if a.len() < 2 || a.len() > MAX_CARDS {
        return Err(format!(
            "cards: give 2 to {MAX_CARDS} position cards, got {}",
            a.len()
        ));
    }
    let mut out: Vec<PositionCard> = Vec::with_capacity(a.len());
    for (i, c) in a.iter().enumerate() {
        let c = card(c, &format!("cards[{i}]"))?;
        if out.iter().any(|o| o.agent == c.agent) {
            return Err(format!("cards[{i}].agent: \"{}\" appears twice", c.agent));
        }
        out.push(c);
    }
    Ok(out)
}

/// A card from JSON, every field checked by name under `path`.
pub fn parse_card(v: &Value, path: &str) -> Result<PositionCard, String> {
    card(v, path)
}

/// An agent's card: the same rules as a user's (ranges, lengths), naming the field.
pub fn check_card(c: &PositionCard, path: &str) -> Result<(), String> {
    let v = serde_json::to_value(c).map_err(|e| format!("{path}: {e}"))?;
    card(&v, path).map(|_| ())
}

/// WC-5: a seat must score every position exactly once, each 0–1, with a confidence 0–1.
pub fn check_evaluation(e: &PanelEvaluation, positions: &[String]) -> Result<(), String> {
    if !(e.confidence.is_finite() && (0.0..=1.0).contains(&e.confidence)) {
        return Err(format!(
            "evaluation.confidence: must be a number from 0 to 1, got {}",
            e.confidence
        ));
    }
    for p in positions {
        let n = e.scores.iter().filter(|s| &s.position == p).count();
        if n != 1 {
            return Err(format!(
                "evaluation.scores: position {p} scored {n} times, expected once"
            ));
        }
    }
    for (i, s) in e.scores.iter().enumerate() {
        if !positions.contains(&s.position) {
            return Err(format!(
                "evaluation.scores[{i}].position: unknown position {}",
                s.position
            ));
        }
        if !(s.score.is_finite() && (0.0..=1.0).contains(&s.score)) {
            return Err(format!(
                "evaluation.scores[{i}].score: must be a number from 0 to 1, got {}",
                s.score
            ));
        }
        check_text(&s.rationale, &format!("evaluation.scores[{i}].rationale"))?;
    }
    Ok(())
}

/// The request's `config` for `collapse`: overrides of [`WcParams`], each checked by name.
pub fn parse_params(v: &Value) -> Result<WcParams, String> {
    let o = v
        .as_object()
        .ok_or_else(|| format!("config: must be an object, got {}", kind(v)))?;
    let mut p = WcParams::default();
    for (key, value) in o {
        let path = format!("config.{key}");
        let num = |lo: f64, hi: f64| -> R<f64> {
            match value.as_f64() {
                Some(x) if x.is_finite() && x >= lo && x <= hi => Ok(x),
                _ => Err(format!(
                    "{path}: must be a number from {lo} to {hi}, got {value}"
                )),
            }
        };
        match key.as_str() {
            "w_e" => p.weights.w_e = num(0.0, 100.0)?,
            "w_r" => p.weights.w_r = num(0.0, 100.0)?,
            "w_v" => p.weights.w_v = num(0.0, 100.0)?,
            "w_k" => p.weights.w_k = num(0.0, 100.0)?,
            "w_gamma" => p.weights.w_gamma = num(0.0, 100.0)?,
            "w_i" => p.weights.w_i = num(0.0, 100.0)?,
            "accept_threshold" => p.accept_threshold = num(-1000.0, 1000.0)?,
            "gap_threshold" => p.gap_threshold = num(0.0, 1000.0)?,
            "max_reflexions" => {
                p.max_reflexions = value
                    .as_u64()
                    .filter(|n| *n <= 5)
                    .map(|n| n as u32)
                    .ok_or_else(|| {
                        format!("{path}: must be a whole number from 0 to 5, got {value}")
                    })?;
            }
            "consensus_threshold" => p.consensus_threshold = num(0.0, 1.0)?,
            "fallback_threshold" => p.fallback_threshold = num(0.0, 1.0)?,
            "escalate_threshold" => p.escalate_threshold = num(0.0, 1.0)?,
            "hybrid_gap" => p.hybrid_gap = num(0.0, 1.0)?,
            "critical_residual" => p.critical_residual = num(0.0, 1.0)?,
            "irreversible_below" => p.irreversible_below = num(0.0, 1.0)?,
            "evidence_min" => p.evidence_min = num(0.0, 1.0)?,
            "skeptic_min" => p.skeptic_min = num(0.0, 10.0)?,
            "expert_disagreement" => p.expert_disagreement = num(0.0, 10.0)?,
            "cost_estimate" => {
                p.cost_estimate = Some(
                    value
                        .as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .filter(|n| *n > 0)
                        .ok_or_else(|| {
                            format!("{path}: must be a positive whole number, got {value}")
                        })?,
                );
            }
            "panel" => {
                let seats = value
                    .as_object()
                    .ok_or_else(|| format!("{path}: must be an object of role: weight"))?;
                for (role, w) in seats {
                    let seat = p
                        .panel
                        .iter_mut()
                        .find(|s| s.role.as_str() == role)
                        .ok_or_else(|| format!("{path}.{role}: not a panel seat; seats are minimalist, skeptic, domain_expert, verifier, collective_intelligence, risk_compliance, user_value"))?;
                    seat.weight = match w.as_f64() {
                        Some(x) if x.is_finite() && (0.0..=100.0).contains(&x) => x,
                        _ => {
                            return Err(format!(
                                "{path}.{role}: must be a number from 0 to 100, got {w}"
                            ))
                        }
                    };
                }
            }
            _ => return Err(format!("{path}: unknown parameter")),
        }
    }
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
