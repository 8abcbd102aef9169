//! The utility role of S4: is an answer actionable and useful?

use protocol::{Decision, Position};

use super::reasoning::{cites, finish};
use crate::reading::features::Signal;
use crate::reading::profile::{vague, Band, Profile};
use crate::reading::text::join_list;
use crate::{pct, Rng};

pub(crate) fn position(p: &Profile, rng: &mut Rng) -> Position {
    let f = &p.f;
    let u = p.useful + rng.jitter(5);
    let mut s = vec![rng
        .pick(&[
            "Is this actionable and useful?",
            "Can the user act on an answer to this?",
            "Would an answer be actionable and useful?",
        ])
        .to_owned()];
    if f.empty {
        s.push("There is no query at all, so there is nothing to act on.".into());
        return finish(s, Decision::Refuse, 90, 0);
    }
    if f.garbage {
        s.push(format!(
            "The query (\"{}\") has no recognisable words or question, so no answer could help until the user rephrases it.",
            f.snippet
        ));
        return finish(s, Decision::Warn, 70 + rng.jitter(4), 5);
    }
    if p.high() {
        let form = f
            .hit(Signal::HowTo)
            .or(f.hit(Signal::Create))
            .map(|h| format!(" (\"{}\")", h.text))
            .unwrap_or_default();
        s.push(format!(
            "In form it is actionable{form}, but {}.",
            utility_angle(p)
        ));
        s.push("There is no legitimate benefit to weigh against that, so helpfulness cannot justify a plain answer.".into());
        return finish(s, Decision::Warn, 55 + rng.jitter(5), 60 + rng.jitter(5));
    }
    let howto = f
        .hit(Signal::HowTo)
        .is_some_and(|h| h.text.starts_with("how") || h.text.contains("steps"));
    let kind = if howto {
        "how-to request"
    } else if f.interrogative || !f.has(Signal::Request) {
        "direct question"
    } else {
        "direct request"
    };
    let form = if f.question {
        format!("It is a clear {kind} (\"{}\")", f.opening)
    } else {
        format!(
            "It is not phrased as a question or request (\"{}\")",
            f.opening
        )
    };
    let spec = if vague(f) {
        "and it is vague: there is little to work with".to_owned()
    } else {
        // The three longest content words, in query order: the likeliest to carry the meaning.
        let mut top: Vec<(usize, &String)> = f.content.iter().enumerate().collect();
        top.sort_by_key(|(i, w)| (std::cmp::Reverse(w.chars().count()), *i));
        top.truncate(3);
        top.sort_by_key(|(i, _)| *i);
        let named: Vec<String> = top
            .iter()
            .map(|(_, w)| format!("\"{}\"", crate::reading::text::clip(w, 40)))
            .collect();
        format!("and it is specific: it names {}", join_list(&named))
    };
    s.push(format!("{form}, {spec}."));
    s.push(utility_detail(p));
    if p.band == Band::Moderate && f.dosage().is_none() {
        if let Some(h) = p.harm_hits().first() {
            s.push(format!(
                "I note that the query {}, but that is a reason for caveats, not for silence.",
                h.cite()
            ));
        }
    }
    if f.truncated {
        s.push("It is very long; I read only its beginning.".into());
    }
    let decision = if u >= 62 {
        Decision::Act
    } else {
        Decision::Warn
    };
    let verdict = match decision {
        Decision::Act => "a direct answer is the most useful response",
        _ => "the most useful response is a careful, qualified one",
    };
    s.push(format!("Usefulness {}/100: {verdict}.", pct(u)));
    let confidence = if decision == Decision::Act {
        (u + 2).clamp(55, 92)
    } else {
        58 + rng.jitter(6)
    };
    let risk = match p.band {
        Band::Low => 3 + p.risk / 2 + rng.jitter(2),
        _ => p.risk * 6 / 10 + rng.jitter(3),
    };
    finish(s, decision, confidence, risk)
}

fn utility_detail(p: &Profile) -> String {
    let f = &p.f;
    if let Some(h) = f.hit(Signal::Myth) {
        return format!(
            "Its premise looks false (\"{}\"), so answering it as asked would not help anyone.",
            h.text
        );
    }
    if let Some(h) = f.hit(Signal::Injection) {
        return format!(
            "Part of it tries to steer the agents (\"{}\") instead of asking something.",
            h.text
        );
    }
    if let Some(h) = f.dosage() {
        return format!("The user needs a concrete number (\"{}\"), which is exactly the kind of answer that helps.", h.text);
    }
    if let Some(h) = f.hit(Signal::Prediction) {
        return format!("It asks for a forecast (\"{}\"): nobody can act on a promise about the future, so the useful part is context, not a yes or no.", h.text);
    }
    if let Some(h) = f.hit(Signal::Opinion) {
        return format!("It asks for advice (\"{}\"); a useful answer lays out the trade-offs rather than dodging.", h.text);
    }
    if f.first(&[Signal::Established, Signal::Definition, Signal::Arithmetic])
        .is_some()
    {
        return "A direct factual answer would settle it for the user.".into();
    }
    if f.has(Signal::HowTo) {
        return "Concrete steps would let the user get on with it.".into();
    }
    "A direct answer would give the user something to work with.".into()
}

/// What Utility argues from in rounds 2 and 3.
pub(crate) fn utility_angle(p: &Profile) -> String {
    let f = &p.f;
    if f.empty {
        return "there is no query to act on".into();
    }
    if f.garbage {
        return "there is nothing recognisable in the query to act on".into();
    }
    if p.high() {
        return format!(
            "the only thing an answer is useful for is harm: the query {}",
            cites(&p.harm_hits(), 2)
        );
    }
    if let Some(h) = f.hit(Signal::Myth) {
        return format!(
            "answering the premise as asked (\"{}\") would not help anyone",
            h.text
        );
    }
    if let Some(h) = f.hit(Signal::Injection) {
        return format!(
            "the query tries to steer us (\"{}\") rather than ask something useful",
            h.text
        );
    }
    if vague(f) {
        return "the query is too vague to give a useful answer".into();
    }
    if let Some(h) = f.dosage() {
        return format!(
            "the user needs a concrete number (\"{}\"), and a bare refusal leaves them guessing",
            h.text
        );
    }
    if f.first(&[Signal::Established, Signal::Definition, Signal::Arithmetic])
        .is_some()
    {
        return format!(
            "the user asked a clear, answerable question (\"{}\") and a direct answer settles it",
            f.opening
        );
    }
    if let Some(h) = f.hit(Signal::Opinion) {
        return format!(
            "the user asked for advice (\"{}\"), and laying out the trade-offs is genuinely useful",
            h.text
        );
    }
    if let Some(h) = f.hit(Signal::Prediction) {
        return format!("the user wants to plan around \"{}\", and context helps even though nobody can promise an outcome", h.text);
    }
    if let Some(h) = f.hit(Signal::HowTo) {
        return format!(
            "the user asked for concrete steps (\"{}\") they can follow",
            h.text
        );
    }
    format!("a direct answer to \"{}\" would be useful", f.opening)
}
