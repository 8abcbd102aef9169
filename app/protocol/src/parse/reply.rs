//! The reply shapes of S4, RR and WC's reviews as `serde` types (AG-1), and the tolerant field
//! types they are made of: a number may come as `"85"` or `"85%"`, a verdict in any case, a
//! boolean as `"true"`; free text is trimmed, must be filled in and is clipped.

use serde::de::{Deserialize, Deserializer, Error as _};
use serde::Deserialize as Derive;
use serde_json::Value;

use super::field::{in_range, List, Object, Str};
use super::MAX_REPLY_TEXT;
use crate::collapse::{Critique, PanelEvaluation, PositionScore, Verification};
use crate::round_robin::{RrPosition, Stance};
use crate::types::{Decision, Position};

/// A number a model wrote: `85`, `"85"` or `"85%"`, within `LO..=HI`.
pub struct Figure<const LO: i32, const HI: i32> {
    pub value: f64,
    /// Written with a `%` sign (ES reads such a fraction as a percentage).
    pub percent: bool,
}

impl<'de, const LO: i32, const HI: i32> Deserialize<'de> for Figure<LO, HI> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let (n, percent) = match &v {
            Value::Number(n) => (n.as_f64(), false),
            Value::String(s) => (
                s.trim().trim_end_matches('%').trim().parse::<f64>().ok(),
                s.trim().ends_with('%'),
            ),
            _ => (None, false),
        };
        let value = in_range(n, f64::from(LO), f64::from(HI), &v).map_err(D::Error::custom)?;
        Ok(Figure { value, percent })
    }
}

/// An integer percentage 0–100 (a fractional one is rounded).
fn percent(f: &Figure<0, 100>) -> u8 {
    f.value.round() as u8
}

/// `true` or `false`, also as a string in any case.
pub struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match &v {
            Value::Bool(b) => Ok(Flag(*b)),
            Value::String(s) if s.trim().eq_ignore_ascii_case("true") => Ok(Flag(true)),
            Value::String(s) if s.trim().eq_ignore_ascii_case("false") => Ok(Flag(false)),
            _ => Err(D::Error::custom(format!("must be true or false, got {v}"))),
        }
    }
}

/// Free text the agent must fill in: trimmed, not empty, not the form's placeholder, clipped.
pub struct Text(pub String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Str(s) = Str::deserialize(d)?;
        let s = s.trim();
        if s.is_empty() {
            return Err(D::Error::custom("must not be empty"));
        }
        if is_placeholder(s) {
            return Err(D::Error::custom(format!(
                "the reply repeats the form's placeholder {s:?}"
            )));
        }
        Ok(Text(clip(s)))
    }
}

/// One entry of a list of texts (concerns, evidence): a non-empty string, clipped.
pub struct Line(pub String);

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match v.as_str().map(str::trim) {
            Some(s) if !s.is_empty() => Ok(Line(clip(s))),
            _ => Err(D::Error::custom(format!(
                "must be a non-empty string, got {v}"
            ))),
        }
    }
}

pub fn lines(l: List<Line>) -> Vec<String> {
    l.0.into_iter().map(|Line(s)| s).collect()
}

/// A verdict word in any case, trimmed.
fn word<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Str::deserialize(d).map(|Str(s)| s.trim().to_owned())
}

fn decision<'de, D: Deserializer<'de>>(d: D) -> Result<Decision, D::Error> {
    let w = word(d)?;
    Decision::parse(&w).ok_or_else(|| {
        D::Error::custom(format!("must be one of ACT, WARN, REFUSE, VETO, got {w:?}"))
    })
}

/// What a challenger argues its target should decide: a veto is the safety role's own call,
/// not something another agent can argue for (S4-3).
fn argued_decision<'de, D: Deserializer<'de>>(d: D) -> Result<Decision, D::Error> {
    let w = word(d)?;
    Decision::parse(&w)
        .filter(|d| *d != Decision::Veto)
        .ok_or_else(|| D::Error::custom(format!("must be one of ACT, WARN, REFUSE, got {w:?}")))
}

fn stance<'de, D: Deserializer<'de>>(d: D) -> Result<Stance, D::Error> {
    let w = word(d)?;
    Stance::parse(&w)
        .ok_or_else(|| D::Error::custom(format!("must be one of BUY, SELL, HOLD, got {w:?}")))
}

/// S4-2/S4-4: an analysis or its revision.
#[derive(Derive)]
pub struct PositionIn {
    #[serde(deserialize_with = "decision")]
    decision: Decision,
    confidence: Figure<0, 100>,
    risk: Figure<0, 100>,
    reasoning: Text,
}

impl From<PositionIn> for Position {
    fn from(p: PositionIn) -> Self {
        Position {
            decision: p.decision,
            confidence: percent(&p.confidence),
            risk: percent(&p.risk),
            reasoning: p.reasoning.0,
        }
    }
}

/// S4-3: a challenge to another agent's position.
#[derive(Derive)]
pub struct ChallengeIn {
    #[serde(deserialize_with = "argued_decision")]
    pub argues_for: Decision,
    pub text: Text,
}

/// RR-1: one turn's stance.
#[derive(Derive)]
pub struct StanceIn {
    #[serde(deserialize_with = "stance")]
    stance: Stance,
    confidence: Figure<0, 100>,
    reasoning: Text,
}

impl From<StanceIn> for RrPosition {
    fn from(s: StanceIn) -> Self {
        RrPosition {
            stance: s.stance,
            confidence: percent(&s.confidence),
            reasoning: s.reasoning.0,
        }
    }
}

/// WC-3 rule 1: the verifier's review.
#[derive(Derive)]
pub struct VerificationIn {
    approve: Flag,
    notes: Text,
}

impl From<VerificationIn> for Verification {
    fn from(v: VerificationIn) -> Self {
        Verification {
            approve: v.approve.0,
            notes: v.notes.0,
        }
    }
}

/// WC-7: the skeptic's 0–10 score and concerns.
#[derive(Derive)]
pub struct CritiqueIn {
    score: Figure<0, 10>,
    concerns: List<Line>,
}

impl From<CritiqueIn> for Critique {
    fn from(c: CritiqueIn) -> Self {
        Critique {
            score: c.score.value,
            concerns: lines(c.concerns),
        }
    }
}

/// WC-5: a panel seat's scores; which positions it must score is checked afterwards.
#[derive(Derive)]
pub struct EvaluationIn {
    scores: List<Object<ScoreIn>>,
    recommendation: Text,
    concerns: List<Line>,
    confidence: Figure<0, 1>,
}

#[derive(Derive)]
struct ScoreIn {
    position: Text,
    score: Figure<0, 1>,
    rationale: Text,
}

impl From<EvaluationIn> for PanelEvaluation {
    fn from(e: EvaluationIn) -> Self {
        PanelEvaluation {
            scores: e
                .scores
                .0
                .into_iter()
                .map(|Object(s)| PositionScore {
                    position: s.position.0,
                    score: s.score.value,
                    rationale: s.rationale.0,
                })
                .collect(),
            recommendation: e.recommendation.0,
            concerns: lines(e.concerns),
            confidence: e.confidence.value,
        }
    }
}

/// A small model may copy the reply form instead of filling it in: `"<one or two sentences>"`.
fn is_placeholder(s: &str) -> bool {
    let bare = s
        .trim_matches(|c: char| c == '<' || c == '>' || c == '.' || c.is_whitespace())
        .to_lowercase();
    (s.starts_with('<') && s.ends_with('>'))
        || [
            "one or two sentences",
            "your challenge, one or two sentences",
            "one sentence",
        ]
        .contains(&bare.as_str())
}

/// Control characters other than tabs and line breaks are dropped; over-long text is cut.
fn clip(s: &str) -> String {
    let clean: String = s
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect();
    if clean.chars().count() <= MAX_REPLY_TEXT {
        clean
    } else {
        let mut out: String = clean.chars().take(MAX_REPLY_TEXT - 1).collect();
        out.push('…');
        out
    }
}
