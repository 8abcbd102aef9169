//! WC-1: position cards and WC parameters as `serde` types, read through [`read`] so a bad one is
//! refused with its path (`cards[1].risks[0].residual_risk: must be a number from 0 to 1, got
//! 1.5`), then checked by [`check_card`], which agents' cards go through too.

use serde::de::{Deserialize, Deserializer, Error as _};
use serde::Deserialize as Derive;
use serde_json::Value;

use super::card::{
    Evidence, EvidenceKind, InvariantViolation, PlanStep, PositionCard, Risk, Severity,
};
use super::types::PanelEvaluation;
use crate::parse::field::{in_range, kind, read, List, Number, Object, Str, Whole};
use crate::types::Role;

mod config;
pub use config::parse_params;

pub const MAX_CARDS: usize = 8;
pub const MAX_TEXT: usize = 2000;
pub const MAX_ITEMS: usize = 20;

type R<T> = Result<T, String>;

/// WC-1: a card as it arrives. Keys are exact and unknown ones refused: a typo must not pass
/// as a card without, say, its risks.
#[derive(Derive)]
#[serde(deny_unknown_fields)]
struct CardIn {
    agent: Str,
    /// ISO 8601; the log's own time when absent.
    timestamp: Option<Str>,
    claims: List<Str>,
    plan: List<Object<StepIn>>,
    evidence: List<Object<EvidenceIn>>,
    risks: List<Object<RiskIn>>,
    confidence: Number<0, 1>,
    cost: Whole<0, 1_000_000>,
    reversibility: Number<0, 1>,
    invariant_violations: Option<List<Object<ViolationIn>>>,
}

#[derive(Derive)]
#[serde(deny_unknown_fields)]
struct StepIn {
    action: Str,
    rationale: Str,
}

#[derive(Derive)]
#[serde(deny_unknown_fields)]
struct EvidenceIn {
    #[serde(rename = "type", deserialize_with = "evidence_kind")]
    kind: EvidenceKind,
    pointer: Str,
    quality: Number<0, 1>,
}

#[derive(Derive)]
#[serde(deny_unknown_fields)]
struct RiskIn {
    #[serde(deserialize_with = "severity")]
    severity: Severity,
    description: Str,
    mitigation: Str,
    residual_risk: Number<0, 1>,
}

#[derive(Derive)]
#[serde(deny_unknown_fields)]
struct ViolationIn {
    invariant_id: Str,
    description: Str,
    justification: Str,
    #[serde(deserialize_with = "strict_bool")]
    requires_approval: bool,
}

/// A word of the card format, in its exact (lower-case) spelling.
fn one_of<'de, D: Deserializer<'de>, T: Copy>(d: D, words: &[(&str, T)]) -> Result<T, D::Error> {
    let v = Value::deserialize(d)?;
    match words.iter().find(|(w, _)| v.as_str() == Some(*w)) {
        Some((_, t)) => Ok(*t),
        None => {
            let names: Vec<&str> = words.iter().map(|(w, _)| *w).collect();
            Err(D::Error::custom(format!(
                "must be one of {}, got {v}",
                names.join(", ")
            )))
        }
    }
}

fn evidence_kind<'de, D: Deserializer<'de>>(d: D) -> Result<EvidenceKind, D::Error> {
    let words = [
        ("document", EvidenceKind::Document),
        ("test", EvidenceKind::Test),
        ("measurement", EvidenceKind::Measurement),
        ("expert_review", EvidenceKind::ExpertReview),
    ];
    one_of(d, &words)
}

fn severity<'de, D: Deserializer<'de>>(d: D) -> Result<Severity, D::Error> {
    let words = [
        ("critical", Severity::Critical),
        ("high", Severity::High),
        ("medium", Severity::Medium),
        ("low", Severity::Low),
    ];
    one_of(d, &words)
}

fn strict_bool<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    match Value::deserialize(d)? {
        Value::Bool(b) => Ok(b),
        v => Err(D::Error::custom(format!("must be true or false, got {v}"))),
    }
}

impl From<CardIn> for PositionCard {
    fn from(c: CardIn) -> Self {
        let strs = |l: List<Str>| l.0.into_iter().map(|Str(s)| s).collect();
        PositionCard {
            agent: c.agent.0,
            timestamp: c.timestamp.map(|Str(t)| t).unwrap_or_default(),
            claims: strs(c.claims),
            plan: c
                .plan
                .0
                .into_iter()
                .map(|Object(s)| PlanStep {
                    action: s.action.0,
                    rationale: s.rationale.0,
                })
                .collect(),
            evidence: c
                .evidence
                .0
                .into_iter()
                .map(|Object(e)| Evidence {
                    kind: e.kind,
                    pointer: e.pointer.0,
                    quality: e.quality.0,
                })
                .collect(),
            risks: c
                .risks
                .0
                .into_iter()
                .map(|Object(r)| Risk {
                    severity: r.severity,
                    description: r.description.0,
                    mitigation: r.mitigation.0,
                    residual_risk: r.residual_risk.0,
                })
                .collect(),
            confidence: c.confidence.0,
            cost: c.cost.0,
            reversibility: c.reversibility.0,
            invariant_violations: c
                .invariant_violations
                .map(|l| l.0)
                .unwrap_or_default()
                .into_iter()
                .map(|Object(v)| InvariantViolation {
                    invariant_id: v.invariant_id.0,
                    description: v.description.0,
                    justification: v.justification.0,
                    requires_approval: v.requires_approval,
                })
                .collect(),
        }
    }
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

fn check_unit(x: f64, path: &str) -> R<()> {
    in_range(Some(x), 0.0, 1.0, &x)
        .map(|_| ())
        .map_err(|e| format!("{path}: {e}"))
}

/// At most [`MAX_ITEMS`] entries, and at least one where `least` says what one is.
fn check_len<T>(items: &[T], path: &str, least: Option<&str>) -> R<()> {
    if items.len() > MAX_ITEMS {
        return Err(format!(
            "{path}: {} items; the limit is {MAX_ITEMS}",
            items.len()
        ));
    }
    match least {
        Some(what) if items.is_empty() => Err(format!("{path}: at least one {what}")),
        _ => Ok(()),
    }
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
        let c = parse_card(c, &format!("cards[{i}]"))?;
        if out.iter().any(|o| o.agent == c.agent) {
            return Err(format!("cards[{i}].agent: \"{}\" appears twice", c.agent));
        }
        out.push(c);
    }
    Ok(out)
}

/// A card from JSON, every field checked by name under `path`.
pub fn parse_card(v: &Value, path: &str) -> Result<PositionCard, String> {
    let Object(c) = read::<Object<CardIn>>(v, path)?;
    let card = PositionCard::from(c);
    check_card(&card, path)?;
    Ok(card)
}

/// WC-1's ranges and lengths, naming the field: the pass after [`parse_card`], and the whole
/// check of an agent's card, which arrives typed.
pub fn check_card(c: &PositionCard, path: &str) -> Result<(), String> {
    let at = |field: &str| format!("{path}.{field}");
    check_text(&c.agent, &at("agent"))?;
    check_id(&c.agent, &at("agent"))?;
    check_text(&c.timestamp, &at("timestamp"))?;
    check_len(&c.claims, &at("claims"), Some("claim"))?;
    for (i, claim) in c.claims.iter().enumerate() {
        check_text(claim, &at(&format!("claims[{i}]")))?;
    }
    check_len(&c.plan, &at("plan"), Some("step"))?;
    for (i, s) in c.plan.iter().enumerate() {
        let p = at(&format!("plan[{i}]"));
        check_text(&s.action, &format!("{p}.action"))?;
        check_text(&s.rationale, &format!("{p}.rationale"))?;
    }
    check_len(&c.evidence, &at("evidence"), None)?;
    for (i, e) in c.evidence.iter().enumerate() {
        let p = at(&format!("evidence[{i}]"));
        check_text(&e.pointer, &format!("{p}.pointer"))?;
        check_unit(e.quality, &format!("{p}.quality"))?;
    }
    check_len(&c.risks, &at("risks"), None)?;
    for (i, r) in c.risks.iter().enumerate() {
        let p = at(&format!("risks[{i}]"));
        check_text(&r.description, &format!("{p}.description"))?;
        check_text(&r.mitigation, &format!("{p}.mitigation"))?;
        check_unit(r.residual_risk, &format!("{p}.residual_risk"))?;
    }
    if c.cost > 1_000_000 {
        return Err(format!(
            "{}: must be a whole number from 0 to 1000000, got {}",
            at("cost"),
            c.cost
        ));
    }
    check_len(&c.invariant_violations, &at("invariant_violations"), None)?;
    for (i, v) in c.invariant_violations.iter().enumerate() {
        let p = at(&format!("invariant_violations[{i}]"));
        check_text(&v.invariant_id, &format!("{p}.invariant_id"))?;
        check_text(&v.description, &format!("{p}.description"))?;
        check_text(&v.justification, &format!("{p}.justification"))?;
    }
    check_unit(c.confidence, &at("confidence"))?;
    check_unit(c.reversibility, &at("reversibility"))
}

/// WC-5: a seat must score every position exactly once, each 0–1, with a confidence 0–1.
pub fn check_evaluation(e: &PanelEvaluation, positions: &[String]) -> Result<(), String> {
    check_unit(e.confidence, "evaluation.confidence")?;
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
        check_unit(s.score, &format!("evaluation.scores[{i}].score"))?;
        check_text(&s.rationale, &format!("evaluation.scores[{i}].rationale"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::parse_card;

    /// WC-1: the full texts of card errors, each with its path.
    #[test]
    fn card_errors_name_the_path_wc_1() {
        let good = json!({"agent": "a", "claims": ["c"], "plan": [{"action": "x", "rationale": "y"}],
            "evidence": [], "risks": [], "confidence": 0.5, "cost": 10, "reversibility": 0.5});
        let cases = [
            (
                "/claims",
                json!("c"),
                "card.claims: must be an array, got a string",
            ),
            (
                "/claims/0",
                json!(5),
                "card.claims[0]: must be a string, got a number",
            ),
            (
                "/plan/0",
                json!("x"),
                "card.plan[0]: must be an object, got a string",
            ),
            (
                "/plan/0/action",
                json!(null),
                "card.plan[0].action: must be a string, got null",
            ),
            (
                "/cost",
                json!(1.5),
                "card.cost: must be a whole number from 0 to 1000000, got 1.5",
            ),
            (
                "/evidence",
                json!([{"type": "Test", "pointer": "p", "quality": 0.5}]),
                r#"card.evidence[0].type: must be one of document, test, measurement, expert_review, got "Test""#,
            ),
            (
                "/plan",
                json!([{"action": "x", "rationale": "y", "why": "z"}]),
                "card.plan[0].why: unknown field; expected action or rationale",
            ),
            (
                "/claims",
                serde_json::Value::Array(vec![json!("c"); 21]),
                "card.claims: 21 items; the limit is 20",
            ),
        ];
        for (pointer, value, want) in cases {
            let mut card = good.clone();
            *card.pointer_mut(pointer).expect(pointer) = value;
            assert_eq!(parse_card(&card, "card"), Err(want.to_owned()), "{pointer}");
        }
        let mut card = good.clone();
        card.as_object_mut().expect("object").remove("risks");
        assert_eq!(
            parse_card(&card, "card"),
            Err("card.risks: missing".to_owned())
        );
        let card = parse_card(&good, "card").expect("good");
        assert_eq!(
            (card.timestamp.as_str(), card.invariant_violations.len()),
            ("", 0)
        );
    }
}
