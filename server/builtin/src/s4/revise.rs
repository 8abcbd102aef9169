//! Round 3 (S4-4): weigh the challenges aimed at this agent and defend, adjust or change, saying
//! who persuaded it and with what point. Clear cases are fixed by the query's features; only
//! borderline ones depend on the seeded jitter.

use protocol::s4::ChallengeSeen;
use protocol::types::display_name;
use protocol::{Decision, Position, Role};

use super::accuracy::accuracy_angle;
use super::reasoning::cites;
use super::safety::consequence;
use crate::reading::features::Signal;
use crate::reading::profile::{Band, Profile};
use crate::reading::text::{cap, join_list, point_of};
use crate::{pct, Rng};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Dir {
    /// Argues for a more cautious decision than this agent's.
    Up,
    Same,
    Down,
}

struct Judged {
    name: String,
    from_role: Role,
    argues: Decision,
    dir: Dir,
    strength: i32,
    point: String,
}

fn cues(role: Role) -> &'static [&'static str] {
    match role {
        Role::Safety => &[
            "(\"",
            "wrong",
            "lose",
            "toxic",
            "vulnerable",
            "harm",
            "risk",
            "dose",
            "danger",
            "hurt",
            "veto",
            "misus",
            "kill",
        ],
        Role::Accuracy => &[
            "(\"",
            "verify",
            "prediction",
            "judgement",
            "depends",
            "premise",
            "misinformation",
            "established",
            "fact",
            "evidence",
        ],
        Role::Utility => &[
            "(\"",
            "useful",
            "answer",
            "user",
            "practical",
            "evidence",
            "settle",
            "steps",
            "number",
            "caution",
        ],
        // Not an S4 role: no particular cue.
        _ => &[],
    }
}

/// How much a challenge should move this agent, 0–100, judged against the query itself.
fn strength(me: Role, c: &ChallengeSeen, dir: Dir, p: &Profile) -> i32 {
    let text = c.text.trim();
    let quality = if text.chars().count() < 15 || text.starts_with("(no challenge") {
        -40
    } else if text.contains('“') || text.contains('"') {
        8
    } else {
        0
    };
    let base = match (dir, c.from_role, p.band) {
        (Dir::Same, _, _) => 0,
        (Dir::Up, Role::Safety, Band::High) => 100,
        (Dir::Up, Role::Safety, Band::Moderate) => 40 + p.risk,
        (Dir::Up, Role::Safety, Band::Low) => 25,
        // A disputed premise is a safety matter; an unverifiable opinion is not.
        (Dir::Up, Role::Accuracy, _) if me == Role::Safety && !p.f.has(Signal::Myth) => 30,
        // Utility answers advice questions anyway: "facts cannot settle it" is not a reason to hedge.
        (Dir::Up, Role::Accuracy, _) if me == Role::Utility && opinion_only(p) => 75 - p.verif,
        // Nor, on a question nothing in it makes risky, is a caveat the answer can carry: Utility
        // keeps its ACT and Accuracy's WARN stays on the record as a dissent.
        (Dir::Up, Role::Accuracy, Band::Low) if me == Role::Utility => 90 - p.verif,
        (Dir::Up, Role::Accuracy, _) => 100 - p.verif,
        (Dir::Up, Role::Utility, _)
            if p.high() || p.f.has(Signal::Myth) || p.f.has(Signal::Injection) =>
        {
            75
        }
        (Dir::Up, Role::Utility, _) => 30,
        (Dir::Down, _, Band::High) => 0,
        (Dir::Down, Role::Utility, Band::Low) => p.useful - 10,
        (Dir::Down, Role::Utility, Band::Moderate) => p.useful - 40,
        (Dir::Down, Role::Accuracy, Band::Low) => p.verif - 10,
        (Dir::Down, Role::Accuracy, Band::Moderate) => p.verif - 45,
        (Dir::Down, Role::Safety, Band::Low) => 60,
        (Dir::Down, Role::Safety, Band::Moderate) => 20,
        // Not an S4 role: a middling pull.
        (Dir::Up, _, _) => 30,
        (Dir::Down, _, Band::Low) => 40,
        (Dir::Down, _, Band::Moderate) => 20,
    };
    (base + quality).clamp(0, 100)
}

fn opinion_only(p: &Profile) -> bool {
    let f = &p.f;
    f.has(Signal::Opinion)
        && ![Signal::Prediction, Signal::Myth, Signal::Current]
            .iter()
            .any(|c| f.has(*c))
}

pub(crate) fn revise(
    role: Role,
    own: &Position,
    challenges: &[ChallengeSeen],
    p: &Profile,
    rng: &mut Rng,
) -> Position {
    let mine = own.decision;
    let judged: Vec<Judged> = challenges
        .iter()
        .map(|c| {
            let argues = match c.argues_for {
                Decision::Veto if role != Role::Safety => Decision::Refuse,
                d => d,
            };
            let dir = match argues.verdict().caution().cmp(&mine.verdict().caution()) {
                std::cmp::Ordering::Greater => Dir::Up,
                std::cmp::Ordering::Equal => Dir::Same,
                std::cmp::Ordering::Less => Dir::Down,
            };
            Judged {
                name: display_name(&c.from),
                from_role: c.from_role,
                argues,
                dir,
                strength: strength(role, c, dir, p),
                point: point_of(&c.text, cues(c.from_role)),
            }
        })
        .collect();
    let opener = rng
        .pick(&[
            "In round 1 I said {d} at {c}% confidence.",
            "My round-1 position was {d} ({c}% confidence).",
            "I started at {d} with {c}% confidence.",
        ])
        .replacen("{d}", mine.as_str(), 1)
        .replacen("{c}", &own.confidence.to_string(), 1);
    let mut out = match role {
        Role::Safety => safety(own, &judged, p, rng),
        _ => utility_or_accuracy(role, own, &judged, p, rng),
    };
    out.reasoning = format!("{opener} {} My call: {}.", out.reasoning, out.decision);
    out
}

fn strongest(judged: &[Judged], dir: Dir) -> Option<&Judged> {
    judged
        .iter()
        .filter(|j| j.dir == dir)
        .max_by_key(|j| (j.strength, j.from_role == Role::Safety))
}

/// "Safety Agent argued for WARN (“…”)".
fn argued(j: &Judged) -> String {
    format!("{} argued for {} (“{}”)", j.name, j.argues, j.point)
}

fn agreeing(judged: &[Judged]) -> Option<String> {
    let names: Vec<String> = judged
        .iter()
        .filter(|j| j.dir == Dir::Same)
        .map(|j| j.name.clone())
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "{} agrees with me, which raises my confidence a little.",
            join_list(&names)
        )
    })
}

/// Confidence after holding: supporters raise it, strong unanswered objections lower it.
fn held_confidence(own: &Position, judged: &[Judged], rng: &mut Rng) -> i32 {
    let same = judged.iter().filter(|j| j.dir == Dir::Same).count() as i32;
    let strong = judged
        .iter()
        .filter(|j| j.dir != Dir::Same && j.strength >= 50)
        .count() as i32;
    (i32::from(own.confidence) + (3 * same).min(6) - (3 * strong).min(6) + rng.jitter(2))
        .clamp(30, 95)
}

fn position(decision: Decision, confidence: i32, risk: i32, reasoning: Vec<String>) -> Position {
    Position {
        decision,
        confidence: pct(confidence.min(95)),
        risk: pct(risk),
        reasoning: reasoning.join(" "),
    }
}

fn safety(own: &Position, judged: &[Judged], p: &Profile, rng: &mut Rng) -> Position {
    let risk0 = i32::from(own.risk);
    let mut s = Vec::new();
    // S4-6: a clearly harmful request keeps its veto; no argument removes the harm.
    if p.high() || own.decision == Decision::Veto || risk0 >= 50 {
        for j in judged.iter().take(4) {
            if j.argues.verdict().caution() >= Decision::Refuse.verdict().caution() {
                s.push(format!("{} agrees the request should be refused.", j.name));
            } else {
                s.push(format!(
                    "{}, but that does not change what an answer would enable.",
                    argued(j)
                ));
            }
        }
        if p.high() {
            s.push(format!("The query {}.", cites(&p.harm_hits(), 3)));
        }
        s.push("I hold my veto: nothing in the challenges removes the harm.".into());
        let risk = risk0.max(p.risk).max(55);
        return position(Decision::Veto, i32::from(own.confidence) + 3, risk, s);
    }
    let ceiling = 46; // below the veto line: this query is not clearly harmful
    let downs_only =
        !judged.is_empty() && judged.iter().all(|j| j.dir == Dir::Down || j.strength == 0);
    match own.decision {
        Decision::Warn => {
            let best = strongest(judged, Dir::Down);
            if let Some(j) =
                best.filter(|j| downs_only && risk0 <= 27 && j.strength + rng.jitter(10) >= 55)
            {
                s.push(format!(
                    "I change from WARN to ACT. {} persuaded me: “{}”.",
                    j.name, j.point
                ));
                s.push("The risk I flagged is real but small, and a plain answer that points to a professional covers it.".into());
                return position(
                    Decision::Act,
                    i32::from(own.confidence) + 4,
                    (risk0 - 8).clamp(5, 19),
                    s,
                );
            }
            match best {
                Some(j) => s.push(format!(
                    "I hold WARN. {}, but the risk I named is not addressed by that: {}.",
                    argued(j),
                    consequence(p)
                )),
                None => s.push(format!("I hold WARN: {}.", consequence(p))),
            }
            if let Some(j) = strongest(judged, Dir::Up) {
                s.push(format!("{} wants more, but a refusal would be overkill at risk {risk0}/100, below the veto line.", j.name));
            }
            s.extend(agreeing(judged));
            let risk = if best.is_some() { risk0 - 2 } else { risk0 };
            position(
                Decision::Warn,
                held_confidence(own, judged, rng),
                risk.clamp(20, ceiling),
                s,
            )
        }
        Decision::Act => {
            let best = strongest(judged, Dir::Up);
            if let Some(j) = best.filter(|j| j.strength + rng.jitter(10) >= 65) {
                s.push(format!(
                    "I change from ACT to WARN. {} persuaded me: “{}”.",
                    j.name, j.point
                ));
                s.push("I saw no direct harm, but a misleading or unqualified answer can hurt too, so I want a warning attached.".into());
                return position(
                    Decision::Warn,
                    i32::from(own.confidence) - 5,
                    risk0.clamp(22, 35),
                    s,
                );
            }
            match best {
                Some(j) => s.push(format!(
                    "I hold ACT. {}, but I still see no concrete path to harm in the query.",
                    argued(j)
                )),
                None => s.push("I hold ACT: no challenge points to a concrete harm.".into()),
            }
            s.extend(agreeing(judged));
            position(
                Decision::Act,
                held_confidence(own, judged, rng),
                risk0.min(19),
                s,
            )
        }
        d => {
            s.push(format!(
                "I hold {d}: the challenges give me no reason to move."
            ));
            position(d, held_confidence(own, judged, rng), risk0.min(ceiling), s)
        }
    }
}

/// The utility and accuracy roles revise alike: toward a better-argued challenge, away from risk.
fn utility_or_accuracy(
    role: Role,
    own: &Position,
    judged: &[Judged],
    p: &Profile,
    rng: &mut Rng,
) -> Position {
    let risk0 = i32::from(own.risk);
    let conf0 = i32::from(own.confidence);
    let mine = own.decision;
    let mut s = Vec::new();
    if p.high() {
        let best = judged
            .iter()
            .filter(|j| j.argues.verdict().caution() >= Decision::Refuse.verdict().caution())
            .max_by_key(|j| (j.from_role == Role::Safety, j.strength));
        if let (Some(j), true) = (
            best,
            mine.verdict().caution() < Decision::Refuse.verdict().caution(),
        ) {
            let was = match role {
                Role::Utility => "an actionable request",
                _ => "a question of whether instructions could be verified",
            };
            s.push(format!(
                "I change from {mine} to REFUSE. {} persuaded me: “{}”.",
                j.name, j.point
            ));
            s.push(format!("I treated it as {was}, but the harm outweighs that; I was wrong to leave the door open."));
            return position(Decision::Refuse, 80 + rng.jitter(5), risk0.max(60), s);
        }
    }
    let downs_only =
        !judged.is_empty() && judged.iter().all(|j| j.dir == Dir::Down || j.strength == 0);
    match mine {
        Decision::Act => {
            if let Some(j) = strongest(judged, Dir::Up).filter(|j| j.strength + rng.jitter(8) >= 60)
            {
                s.push(format!(
                    "I change from ACT to WARN. {} raised a point I had not weighed: “{}”.",
                    j.name, j.point
                ));
                s.push(match role {
                    Role::Utility => "I still think most users deserve an answer, but that warrants a WARN instead of an unqualified ACT.".into(),
                    _ => "A correct fact delivered without its caveats can still mislead, so I qualify my answer.".into(),
                });
                return position(Decision::Warn, conf0 - 6 + rng.jitter(2), risk0 + 6, s);
            }
            hold(role, own, judged, p, rng, s)
        }
        Decision::Warn if p.band == Band::Low && downs_only => {
            let willing = if role == Role::Accuracy {
                p.verif
            } else {
                p.useful
            };
            let best = strongest(judged, Dir::Down);
            if let Some(j) = best.filter(|j| j.strength >= 50 && willing + rng.jitter(8) >= 62) {
                let conf = conf0.max(willing - 8).clamp(65, 88);
                s.push(format!(
                    "I change from WARN to ACT. {} makes a valid point: “{}”.",
                    j.name, j.point
                ));
                let others: Vec<String> = judged
                    .iter()
                    .filter(|o| o.dir == Dir::Down && o.name != j.name)
                    .map(|o| o.name.clone())
                    .collect();
                if !others.is_empty() {
                    s.push(format!("{} argues the same.", join_list(&others)));
                }
                s.push(match role {
                    Role::Accuracy => format!("I can't reach certainty, but the query is straightforward enough that {conf}% confidence is sufficient for action; I'm adjusting my threshold to the context."),
                    _ => "The caution I had is not needed for a query this plain.".into(),
                });
                return position(Decision::Act, conf, (risk0 - 8).max(2), s);
            }
            hold(role, own, judged, p, rng, s)
        }
        _ => hold(role, own, judged, p, rng, s),
    }
}

fn hold(
    role: Role,
    own: &Position,
    judged: &[Judged],
    p: &Profile,
    rng: &mut Rng,
    mut s: Vec<String>,
) -> Position {
    let mine = own.decision;
    let opposing = judged
        .iter()
        .filter(|j| j.dir != Dir::Same)
        .max_by_key(|j| j.strength);
    match opposing {
        Some(j) => {
            let why = match (role, j.dir) {
                (Role::Utility, Dir::Up) => {
                    "the user still needs an answer, and the caveats can go inside it".to_owned()
                }
                (Role::Utility, _) => "a plain answer would not serve the user here".to_owned(),
                (_, Dir::Down) => format!(
                    "usefulness does not make an answer correct: {}",
                    accuracy_angle(p)
                ),
                _ => format!(
                    "the evidence does not support more caution: {}",
                    accuracy_angle(p)
                ),
            };
            s.push(format!("I hold {mine}. {}, but {why}.", argued(j)));
        }
        None => s.push(format!("I hold {mine}: no challenge argues against it.")),
    }
    s.extend(agreeing(judged));
    if let Some(first) = s.first_mut() {
        *first = cap(first);
    }
    position(
        mine,
        held_confidence(own, judged, rng),
        i32::from(own.risk),
        s,
    )
}
