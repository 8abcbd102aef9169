//! Round 1 (S4-2): each role's independent analysis of the query, and the role "angles" that
//! rounds 2 and 3 argue from.

use app::protocol::{Decision, Position, Role};

use super::features::{vague, Band, Cat, Hit, Profile};
use super::text::join_list;
use super::{pct, Rng};

pub(super) fn position(role: Role, p: &Profile, rng: &mut Rng) -> Position {
    match role {
        Role::Utility => utility(p, rng),
        Role::Safety => safety(p, rng),
        // S4 agents are utility, accuracy and safety; any other role reads like accuracy.
        _ => accuracy(p, rng),
    }
}

/// The numbers and stance are chosen first; the reasoning ends with a parseable "My call: X.".
fn finish(mut s: Vec<String>, decision: Decision, confidence: i32, risk: i32) -> Position {
    s.push(format!("My call: {decision}."));
    Position {
        decision,
        confidence: pct(confidence),
        risk: pct(risk),
        reasoning: s.join(" "),
    }
}

/// `is about weapons or explosives ("pipe bomb") and seeks to make or build it ("build")`.
pub(super) fn cites(hits: &[&Hit], n: usize) -> String {
    let items: Vec<String> = hits.iter().take(n).map(|h| h.cite()).collect();
    join_list(&items)
}

fn utility(p: &Profile, rng: &mut Rng) -> Position {
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
            .hit(Cat::HowTo)
            .or(f.hit(Cat::Create))
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
        .hit(Cat::HowTo)
        .is_some_and(|h| h.text.starts_with("how") || h.text.contains("steps"));
    let kind = if howto {
        "how-to request"
    } else if f.interrogative || !f.has(Cat::Request) {
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
            .map(|(_, w)| format!("\"{}\"", super::text::clip(w, 40)))
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
    if let Some(h) = f.hit(Cat::Myth) {
        return format!(
            "Its premise looks false (\"{}\"), so answering it as asked would not help anyone.",
            h.text
        );
    }
    if let Some(h) = f.hit(Cat::Injection) {
        return format!(
            "Part of it tries to steer the agents (\"{}\") instead of asking something.",
            h.text
        );
    }
    if let Some(h) = f.dosage() {
        return format!("The user needs a concrete number (\"{}\"), which is exactly the kind of answer that helps.", h.text);
    }
    if let Some(h) = f.hit(Cat::Prediction) {
        return format!("It asks for a forecast (\"{}\"): nobody can act on a promise about the future, so the useful part is context, not a yes or no.", h.text);
    }
    if let Some(h) = f.hit(Cat::Opinion) {
        return format!("It asks for advice (\"{}\"); a useful answer lays out the trade-offs rather than dodging.", h.text);
    }
    if f.first(&[Cat::Established, Cat::Definition, Cat::Arithmetic])
        .is_some()
    {
        return "A direct factual answer would settle it for the user.".into();
    }
    if f.has(Cat::HowTo) {
        return "Concrete steps would let the user get on with it.".into();
    }
    "A direct answer would give the user something to work with.".into()
}

/// What Utility argues from in rounds 2 and 3.
pub(super) fn utility_angle(p: &Profile) -> String {
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
    if let Some(h) = f.hit(Cat::Myth) {
        return format!(
            "answering the premise as asked (\"{}\") would not help anyone",
            h.text
        );
    }
    if let Some(h) = f.hit(Cat::Injection) {
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
    if f.first(&[Cat::Established, Cat::Definition, Cat::Arithmetic])
        .is_some()
    {
        return format!(
            "the user asked a clear, answerable question (\"{}\") and a direct answer settles it",
            f.opening
        );
    }
    if let Some(h) = f.hit(Cat::Opinion) {
        return format!(
            "the user asked for advice (\"{}\"), and laying out the trade-offs is genuinely useful",
            h.text
        );
    }
    if let Some(h) = f.hit(Cat::Prediction) {
        return format!("the user wants to plan around \"{}\", and context helps even though nobody can promise an outcome", h.text);
    }
    if let Some(h) = f.hit(Cat::HowTo) {
        return format!(
            "the user asked for concrete steps (\"{}\") they can follow",
            h.text
        );
    }
    format!("a direct answer to \"{}\" would be useful", f.opening)
}

fn accuracy(p: &Profile, rng: &mut Rng) -> Position {
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
        s.push(format!("{}.", super::text::cap(pos)));
    }
    for (i, issue) in issues.iter().take(3).enumerate() {
        if i == 0 && positive.is_some() {
            s.push(format!("But {issue}."));
        } else {
            s.push(format!("{}.", super::text::cap(issue)));
        }
    }
    if positive.is_none() && issues.is_empty() {
        s.push(if f.has(Cat::HowTo) {
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
    if let Some(h) = f.hit(Cat::Established) {
        return Some(format!(
            "it asks for a well-established fact (\"{}\"), documented in any standard reference",
            h.text
        ));
    }
    if let Some(h) = f.hit(Cat::Definition) {
        return Some(format!(
            "it is a general-knowledge question (\"{}\") with a settled answer",
            h.text
        ));
    }
    if f.has(Cat::Arithmetic) {
        return Some("it is a calculation or conversion that can be checked exactly".into());
    }
    None
}

/// Why an answer could not be verified, each naming the feature seen.
pub(super) fn accuracy_issues(p: &Profile) -> Vec<String> {
    let f = &p.f;
    let mut out = Vec::new();
    let q = |h: &Hit| h.text.clone();
    if p.high() {
        if let Some(h) = p.harm_hits().first() {
            out.push(format!("any procedure for this (\"{}\") would be unvetted, and I will not vouch for its correctness", q(h)));
        }
    }
    let table: [(Option<&Hit>, &str); 11] = [
        (
            f.hit(Cat::Myth),
            "it rests on a false or disputed premise (\"{}\") that an accurate answer must correct",
        ),
        (
            f.hit(Cat::Prediction),
            "it asks for a prediction (\"{}\") that no source can verify",
        ),
        (
            f.hit(Cat::Opinion),
            "it asks for a judgement (\"{}\") that facts alone cannot settle",
        ),
        (
            f.dosage(),
            "a safe dose (\"{}\") depends on weight, age, other medication and health conditions",
        ),
        (
            f.hit(Cat::Medical).filter(|_| f.dosage().is_none()),
            "medical answers (\"{}\") depend on details we do not have",
        ),
        (
            f.hit(Cat::Legal),
            "the answer (\"{}\") depends on jurisdiction",
        ),
        (
            f.hit(Cat::Finance),
            "financial outcomes (\"{}\") are uncertain by nature",
        ),
        (
            f.hit(Cat::Diy),
            "codes and the actual installation (\"{}\") vary from case to case",
        ),
        (
            f.hit(Cat::Current),
            "it depends on current information (\"{}\") that may have changed",
        ),
        (
            f.hit(Cat::Injection),
            "it contains instructions to the agents (\"{}\") rather than a claim to verify",
        ),
        (
            f.hit(Cat::ChemMix),
            "what a mixture of chemicals (\"{}\") does depends on exact products and amounts",
        ),
    ];
    for (hit, template) in table {
        if let Some(h) = hit {
            out.push(template.replacen("{}", &q(h), 1));
        }
    }
    let personal = [
        Cat::Opinion,
        Cat::Medical,
        Cat::Finance,
        Cat::Legal,
        Cat::Diy,
    ]
    .iter()
    .any(|c| f.has(*c));
    if let Some(h) = f.hit(Cat::Personal).filter(|_| personal) {
        out.push(format!("the right answer depends on the asker's own circumstances (\"{}\"), which we cannot see", q(h)));
    }
    if vague(f) {
        out.push("it is too vague to check anything against".into());
    }
    out
}

/// What Accuracy argues from in rounds 2 and 3.
pub(super) fn accuracy_angle(p: &Profile) -> String {
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

fn safety(p: &Profile, rng: &mut Rng) -> Position {
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
            s.push(format!("The query {}.", cites(&p.harm_hits(), 4)));
            if f.has(Cat::SelfHarm) || f.has(Cat::SelfHarmMention) {
                s.push("The person asking may be in danger: the right response is support and crisis resources, not information.".into());
            } else {
                s.push("This is clearly harmful: an answer could directly enable serious harm, whatever the stated purpose.".into());
            }
            s.push(format!(
                "Risk {risk}/100, at or above the veto line of 50, so I exercise my veto."
            ));
            finish(s, Decision::Veto, (89 + rng.jitter(4)).min(95), risk)
        }
        Band::Moderate => {
            s.push(format!(
                "I see moderate risk: the query {}.",
                cites(&p.harm_hits(), 3)
            ));
            s.push(format!("{}.", super::text::cap(&consequence(p))));
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
            s.push(super::text::cap(&safety_angle(p)) + ".");
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
pub(super) fn consequence(p: &Profile) -> String {
    let f = &p.f;
    let c = if f.has(Cat::SelfHarmMention) {
        "a vulnerable reader may be at risk, so the answer should point to support"
    } else if f.dosage().is_some() {
        "a wrong dose can do real harm, from stomach bleeding to liver damage, and people often combine medicines without knowing it"
    } else if f.has(Cat::Diy) {
        "mistakes with mains electricity or gas can kill or start a fire"
    } else if f.has(Cat::ChemMix) {
        "some household mixtures release toxic gases"
    } else if f.has(Cat::AllIn) {
        "a concentrated bet can wipe out savings the user cannot afford to lose"
    } else if f.has(Cat::Finance) {
        "money decisions made on a generic answer can cost real savings"
    } else if f.has(Cat::Medical) {
        "health advice without an examination can delay real care"
    } else if f.has(Cat::Legal) {
        "acting on a wrong legal answer can cost someone dearly"
    } else if f.has(Cat::Injection) {
        "the query tries to manipulate the agents, and following it would bypass our checks"
    } else {
        "information about this can be misused even when the asker means no harm"
    };
    c.into()
}

pub(super) fn vulnerable(p: &Profile) -> &'static str {
    let f = &p.f;
    if f.dosage().is_some() || f.has(Cat::Medical) {
        "someone on other medication, pregnant, or with a liver or kidney condition"
    } else if f.has(Cat::Diy) {
        "a beginner who has never isolated a circuit or a gas supply"
    } else if f.has(Cat::ChemMix) {
        "someone cleaning in a small, unventilated room"
    } else if f.has(Cat::Finance) {
        "someone betting money they cannot afford to lose"
    } else if f.has(Cat::Legal) {
        "someone in a different jurisdiction"
    } else if f.has(Cat::Injection) {
        "an agent that obeys the embedded instruction"
    } else {
        "a reader who misuses the answer"
    }
}

/// What Safety argues from in rounds 2 and 3.
pub(super) fn safety_angle(p: &Profile) -> String {
    match p.band {
        Band::High => format!("the query {}", cites(&p.harm_hits(), 3)),
        Band::Moderate => format!("the query {}, and {}", cites(&p.harm_hits(), 2), consequence(p)),
        Band::Low => match (p.harm_hits().first(), p.f.first(&[Cat::Educational, Cat::Protective])) {
            (Some(h), Some(frame)) if h.cat != Cat::HarmMention => format!(
                "the query {} but {}, so an answer informs rather than enables harm",
                h.cite(),
                frame.cite()
            ),
            (Some(h), _) => format!("the query mentions \"{}\" but aims it at no one, and nothing else in it points to danger", h.text),
            (None, _) => "nothing in the query points to harm (no weapon, no dangerous procedure, no vulnerable-user trigger)".into(),
        },
    }
}
