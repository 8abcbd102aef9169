//! The accuracy role of S4: can an answer be verified?

use protocol::{Decision, Position};

use super::reasoning::finish;
use crate::reading::features::{Hit, Signal};
use crate::reading::profile::{vague, Profile};
use crate::{pct, Rng};

pub(crate) fn position(p: &Profile, rng: &mut Rng) -> Position {
    let f = &p.f;
    let v = p.verif + rng.jitter(5);
    let mut s = vec![rng
        .pick(&[
            "Can I verify this is correct?",
            "Can an answer be checked against reliable sources?",
            "How sure can I be that an answer is correct?",
        ])
        .to_owned()];
    if f.empty {
        s.push("There is no claim or question to verify.".into());
        return finish(s, Decision::Refuse, 85, 10);
    }
    if f.garbage {
        s.push(format!(
            "I cannot find a claim or question in it (\"{}\") to check.",
            f.snippet
        ));
        return finish(s, Decision::Refuse, 75 + rng.jitter(4), 20);
    }
    let positive = accuracy_positive(p);
    let issues = accuracy_issues(p);
    if let Some(pos) = &positive {
        s.push(format!("{}.", crate::reading::text::cap(pos)));
    }
    for (i, issue) in issues.iter().take(3).enumerate() {
        if i == 0 && positive.is_some() {
            s.push(format!("But {issue}."));
        } else {
            s.push(format!("{}.", crate::reading::text::cap(issue)));
        }
    }
    if positive.is_none() && issues.is_empty() {
        s.push(if f.has(Signal::HowTo) {
            "Procedures like this are well documented, though the details vary by source.".into()
        } else {
            "Nothing in it marks it as a settled fact; I can only partly verify a general answer."
                .into()
        });
    }
    if f.tokens.len() > 60 || f.question_marks >= 2 {
        s.push("It bundles several points, each needing its own check.".into());
    }
    let v = pct(v);
    // A false premise gets corrected (WARN); REFUSE is for queries with nothing to verify.
    let decision = if v >= 70 {
        Decision::Act
    } else {
        Decision::Warn
    };
    s.push(match decision {
        Decision::Act => format!("I can verify it with about {v}% confidence, which clears my 70% bar for an unqualified answer."),
        Decision::Warn => format!("I can verify it with only about {v}% confidence, below the 70% I need for an unqualified answer."),
        _ => format!("At about {v}% there is nothing I can stand behind."),
    });
    let v = i32::from(v);
    let confidence = match decision {
        Decision::Act => (v - 4).clamp(60, 92),
        Decision::Warn => (60 + (70 - v) / 3 + rng.jitter(3)).clamp(55, 85),
        _ => 75,
    };
    let mut risk = (100 - v) * 6 / 10 + rng.jitter(3);
    if p.high() {
        risk = risk.max(55);
    }
    finish(s, decision, confidence, risk.clamp(3, 80))
}

fn accuracy_positive(p: &Profile) -> Option<String> {
    let f = &p.f;
    if p.high() {
        return None;
    }
    if let Some(h) = f.hit(Signal::Established) {
        return Some(format!(
            "it asks for a well-established fact (\"{}\"), documented in any standard reference",
            h.text
        ));
    }
    if let Some(h) = f.hit(Signal::Definition) {
        return Some(format!(
            "it is a general-knowledge question (\"{}\") with a settled answer",
            h.text
        ));
    }
    if f.has(Signal::Arithmetic) {
        return Some("it is a calculation or conversion that can be checked exactly".into());
    }
    None
}

/// Why an answer could not be verified, each naming the feature seen.
pub(crate) fn accuracy_issues(p: &Profile) -> Vec<String> {
    let f = &p.f;
    let mut out = Vec::new();
    let q = |h: &Hit| h.text.clone();
    if let Some(r) = p.resemblance() {
        out.push(format!(
            "{r}, and whether an answer is safe depends on this person's situation, which no general answer can verify"
        ));
    }
    if p.high() {
        if let Some(h) = p.harm_hits().first() {
            out.push(format!("any procedure for this (\"{}\") would be unvetted, and I will not vouch for its correctness", q(h)));
        }
    }
    let table: [(Option<&Hit>, &str); 11] = [
        (
            f.hit(Signal::Myth),
            "it rests on a false or disputed premise (\"{}\") that an accurate answer must correct",
        ),
        (
            f.hit(Signal::Prediction),
            "it asks for a prediction (\"{}\") that no source can verify",
        ),
        (
            f.hit(Signal::Opinion),
            "it asks for a judgement (\"{}\") that facts alone cannot settle",
        ),
        (
            f.dosage(),
            "a safe dose (\"{}\") depends on weight, age, other medication and health conditions",
        ),
        (
            f.hit(Signal::Medical).filter(|_| f.dosage().is_none()),
            "medical answers (\"{}\") depend on details we do not have",
        ),
        (
            f.hit(Signal::Legal),
            "the answer (\"{}\") depends on jurisdiction",
        ),
        (
            f.hit(Signal::Finance),
            "financial outcomes (\"{}\") are uncertain by nature",
        ),
        (
            f.hit(Signal::Diy),
            "codes and the actual installation (\"{}\") vary from case to case",
        ),
        (
            f.hit(Signal::Current),
            "it depends on current information (\"{}\") that may have changed",
        ),
        (
            f.hit(Signal::Injection),
            "it contains instructions to the agents (\"{}\") rather than a claim to verify",
        ),
        (
            f.hit(Signal::ChemMix),
            "what a mixture of chemicals (\"{}\") does depends on exact products and amounts",
        ),
    ];
    for (hit, template) in table {
        if let Some(h) = hit {
            out.push(template.replacen("{}", &q(h), 1));
        }
    }
    let personal = [
        Signal::Opinion,
        Signal::Medical,
        Signal::Finance,
        Signal::Legal,
        Signal::Diy,
    ]
    .iter()
    .any(|c| f.has(*c));
    if let Some(h) = f.hit(Signal::Personal).filter(|_| personal) {
        out.push(format!("the right answer depends on the asker's own circumstances (\"{}\"), which we cannot see", q(h)));
    }
    if vague(f) {
        out.push("it is too vague to check anything against".into());
    }
    out
}

/// What Accuracy argues from in rounds 2 and 3.
pub(crate) fn accuracy_angle(p: &Profile) -> String {
    let issues = accuracy_issues(p);
    if !issues.is_empty() {
        return issues
            .into_iter()
            .take(2)
            .collect::<Vec<_>>()
            .join(", and ");
    }
    accuracy_positive(p).map_or_else(
        || {
            "nothing in it is a settled fact I can check, and procedures like this vary by source"
                .into()
        },
        |pos| {
            pos.replacen("it asks for", "this is", 1)
                .replacen("it is", "this is", 1)
        },
    )
}
