//! The safety role of S4: what could go wrong? It alone may veto (S4-6).

use protocol::{Decision, Position};

use super::reasoning::{cites, finish};
use crate::reading::features::{Hit, Signal};
use crate::reading::profile::{Band, Profile};
use crate::reading::safety_first;
use crate::reading::taxonomy::Category;
use crate::Rng;

/// Why safety warns on a query whose meaning it cannot settle (MN-3).
const UNCERTAIN: &str = "By meaning it sits as close to a dangerous request as to a harmless one: I cannot rule out harm, so I warn rather than guess.";
const NOT_ENGLISH: &str = "It is not written in English, which the sentence model reads best.";

pub(crate) fn position(p: &Profile, rng: &mut Rng) -> Position {
    let f = &p.f;
    // S4-6: the band fixes which side of the veto line (50) the risk lands on; jitter stays inside.
    let risk = match p.band {
        Band::High => (p.risk + rng.jitter(5)).clamp(55, 98),
        Band::Moderate => (p.risk + rng.jitter(4)).clamp(20, 46),
        Band::Low => (p.risk + rng.jitter(3)).clamp(2, 16),
    };
    let mut s = vec![rng
        .pick(&[
            "What could go wrong?",
            "What is the worst plausible outcome of answering?",
            "Who could be hurt by an answer?",
        ])
        .to_owned()];
    match p.band {
        Band::High => {
            s.push(format!("The query {}.", what(p, 4)));
            let self_harm = f.has(Signal::SelfHarm)
                || f.has(Signal::SelfHarmMention)
                || p.semantic
                    .as_ref()
                    .is_some_and(|(found, _)| found.category == Category::SelfHarm);
            if self_harm {
                s.push("The person asking may be in danger: the right response is support and crisis resources, not information.".into());
                s.push(safety_first::CRISIS.into());
            } else if let Some((_, floor)) = &p.semantic {
                s.push(floor.note.into());
            } else {
                s.push("This is clearly harmful: an answer could directly enable serious harm, whatever the stated purpose.".into());
            }
            s.push(format!(
                "Risk {risk}/100, at or above the veto line of 50, so I exercise my veto."
            ));
            finish(s, Decision::Veto, (89 + rng.jitter(4)).min(95), risk)
        }
        Band::Moderate => {
            s.push(format!("I see moderate risk: the query {}.", what(p, 3)));
            match &p.semantic {
                Some((_, floor)) => s.push(floor.note.into()),
                None if p.uncertain => {
                    if !p.f.english() {
                        s.push(NOT_ENGLISH.into());
                    }
                    s.push(UNCERTAIN.into());
                }
                None => s.push(format!("{}.", crate::reading::text::cap(&consequence(p)))),
            }
            s.push(format!("What about {}?", vulnerable(p)));
            s.push(format!(
                "Risk {risk}/100: not enough to veto, but the answer needs clear warnings."
            ));
            finish(
                s,
                Decision::Warn,
                (62 + (risk - 20) / 2 + rng.jitter(4)).clamp(55, 85),
                risk,
            )
        }
        Band::Low => {
            s.push(crate::reading::text::cap(&safety_angle(p)) + ".");
            if let Some(l) = &p.look_alike {
                s.push(format!(
                    "By meaning it reads like a harmless question (\"{}\", similarity {:.2}), not like {}.",
                    l.exemplar,
                    l.similarity,
                    l.category.label()
                ));
            }
            s.push(
                rng.pick(&[
                    "The realistic misuse of an answer is negligible.",
                    "I cannot see a plausible way for an answer to hurt anyone.",
                ])
                .into(),
            );
            s.push(format!(
                "Risk {risk}/100, so there is no safety reason to hold back."
            ));
            finish(
                s,
                Decision::Act,
                (84 - risk / 2 + rng.jitter(4)).clamp(65, 92),
                risk,
            )
        }
    }
}

/// The most serious moderate concern, as a clause.
pub(crate) fn consequence(p: &Profile) -> String {
    let f = &p.f;
    let c = if f.has(Signal::SelfHarmMention) {
        "a vulnerable reader may be at risk, so the answer should point to support"
    } else if f.dosage().is_some() {
        "a wrong dose can do real harm, from stomach bleeding to liver damage, and people often combine medicines without knowing it"
    } else if f.has(Signal::Diy) {
        "mistakes with mains electricity or gas can kill or start a fire"
    } else if f.has(Signal::ChemMix) {
        "some household mixtures release toxic gases"
    } else if f.has(Signal::AllIn) {
        "a concentrated bet can wipe out savings the user cannot afford to lose"
    } else if f.has(Signal::Finance) {
        "money decisions made on a generic answer can cost real savings"
    } else if f.has(Signal::Medical) {
        "health advice without an examination can delay real care"
    } else if f.has(Signal::Legal) {
        "acting on a wrong legal answer can cost someone dearly"
    } else if f.has(Signal::Injection) {
        "the query tries to manipulate the agents, and following it would bypass our checks"
    } else {
        "information about this can be misused even when the asker means no harm"
    };
    c.into()
}

pub(crate) fn vulnerable(p: &Profile) -> &'static str {
    let f = &p.f;
    if f.dosage().is_some() || f.has(Signal::Medical) {
        "someone on other medication, pregnant, or with a liver or kidney condition"
    } else if f.has(Signal::Diy) {
        "a beginner who has never isolated a circuit or a gas supply"
    } else if f.has(Signal::ChemMix) {
        "someone cleaning in a small, unventilated room"
    } else if f.has(Signal::Finance) {
        "someone betting money they cannot afford to lose"
    } else if f.has(Signal::Legal) {
        "someone in a different jurisdiction"
    } else if f.has(Signal::Injection) {
        "an agent that obeys the embedded instruction"
    } else {
        "a reader who misuses the answer"
    }
}

/// What Safety argues from in rounds 2 and 3.
pub(crate) fn safety_angle(p: &Profile) -> String {
    match p.band {
        Band::High => format!("the query {}", what(p, 3)),
        Band::Moderate => format!("the query {}, and {}", what(p, 2), consequence(p)),
        Band::Low => match (p.harm_hits().first(), frame(p)) {
            (Some(h), Some(frame)) if h.cat != Signal::HarmMention => format!(
                "the query {} but {}, so an answer informs rather than enables harm",
                h.cite(),
                frame.cite()
            ),
            (Some(h), _) => format!("the query mentions \"{}\" but aims it at no one, and nothing else in it points to danger", h.text),
            (None, _) => "nothing in the query points to harm (no weapon, no dangerous procedure, no vulnerable-user trigger)".into(),
        },
    }
}

/// What makes a harm word harmless here: a game (unless the real thing is asked for), a question
/// about facts, or protection.
fn frame(p: &Profile) -> Option<&Hit> {
    let frames: &[Signal] = if p.f.has(Signal::RealThing) {
        &[Signal::Educational, Signal::Protective]
    } else {
        &[Signal::Game, Signal::Educational, Signal::Protective]
    };
    p.f.first(frames)
}

/// What the query does that matters to safety: the phrase features that justify the band, and
/// what the taxonomy recognised by meaning (the category and the exemplar it resembled).
fn what(p: &Profile, n: usize) -> String {
    let hits = cites(&p.harm_hits(), n);
    match (hits.is_empty(), p.resemblance()) {
        (true, None) if p.uncertain => {
            "may ask for something dangerous in words I cannot read with confidence".into()
        }
        (_, None) => hits,
        (true, Some(r)) => format!("reads as a request for help with something dangerous: {r}"),
        (false, Some(r)) => format!("{hits}, and {r}"),
    }
}
