//! Round 2 (S4-3): challenge another agent's round-1 reasoning. The challenger sees only that
//! text, so it quotes it back, infers the stance it argues, and answers from its own role.

use protocol::{Decision, Position, Role};

use super::accuracy::accuracy_angle;
use super::safety::{safety_angle, vulnerable};
use super::utility::utility_angle;
use crate::reading::features::Signal;
use crate::reading::profile::Profile;
use crate::reading::text::{cap, infer_stance, pick_quote};
use crate::Rng;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Relation {
    /// The target is more cautious than what the challenger argues for.
    TargetMore,
    Same,
    TargetLess,
    Unknown,
}

/// Clause cues each role looks for when choosing what to quote from the target.
fn cues(role: Role) -> &'static [&'static str] {
    match role {
        Role::Utility => &[
            "verify",
            "below",
            "depends",
            "cannot",
            "risk",
            "warn",
            "harm",
            "prediction",
            "judgement",
            "caution",
            "veto",
            "dose",
            "danger",
        ],
        Role::Accuracy => &[
            "useful",
            "clear",
            "direct",
            "answer",
            "help",
            "risk",
            "harm",
            "negligible",
            "settle",
            "number",
        ],
        Role::Safety => &[
            "useful",
            "clear",
            "direct",
            "settle",
            "verify",
            "fact",
            "actionable",
            "concrete",
            "help",
            "number",
        ],
        // Not an S4 role: no particular cue.
        _ => &[],
    }
}

pub(crate) fn challenge(
    role: Role,
    own: &Position,
    target_role: Role,
    target_reasoning: &str,
    p: &Profile,
    rng: &mut Rng,
) -> (String, Decision) {
    let stance = infer_stance(target_reasoning);
    let mut argues = own.decision;
    // On a clearly harmful query nobody argues a more cautious target down: concede to it.
    if let Some(st) =
        stance.filter(|st| p.high() && st.verdict().caution() > argues.verdict().caution())
    {
        argues = st;
    }
    argues = match (argues, target_role) {
        (Decision::Veto, r) if r != Role::Safety => Decision::Refuse,
        (Decision::Refuse, Role::Safety) if p.high() => Decision::Veto,
        (d, _) => d,
    };
    let relation = match stance {
        None => Relation::Unknown,
        Some(st) => match st.verdict().caution().cmp(&argues.verdict().caution()) {
            std::cmp::Ordering::Greater => Relation::TargetMore,
            std::cmp::Ordering::Equal => Relation::Same,
            std::cmp::Ordering::Less => Relation::TargetLess,
        },
    };
    let q = match pick_quote(target_reasoning, cues(role)) {
        Some(quote) => rng
            .pick(&[
                "you wrote “{}”",
                "you say “{}”",
                "your reasoning rests on “{}”",
            ])
            .replacen("{}", &quote, 1),
        None => "you gave no reasoning I can examine".to_owned(),
    };
    let big_q = cap(&q);
    let text = match role {
        Role::Utility => utility(target_role, relation, &big_q, &q, p, argues),
        Role::Safety => safety(relation, &big_q, &q, p, argues),
        _ => accuracy(target_role, relation, &big_q, &q, p, argues),
    };
    (format!("{text} I argue for {argues}."), argues)
}

fn utility(
    target: Role,
    rel: Relation,
    big_q: &str,
    q: &str,
    p: &Profile,
    argues: Decision,
) -> String {
    let angle = utility_angle(p);
    match (rel, target) {
        (Relation::TargetMore, Role::Accuracy) => {
            let extra = if p.f.first(&[Signal::Established, Signal::Definition, Signal::Arithmetic]).is_some() {
                "This is settled fact, not a judgement call."
            } else {
                "A caveated answer still serves the user better than none."
            };
            format!("You're being overly cautious. {big_q}, but {angle}. {extra} What specific evidence do you need that we don't have?")
        }
        (Relation::TargetMore, Role::Safety) => format!(
            "{big_q}, but you are treating the worst-case reader as the typical one. {}. What concrete harm does a direct, caveated answer enable? Hedging fails the many users with a legitimate need.",
            cap(&angle)
        ),
        (Relation::TargetMore, _) => format!("{big_q}, but we are here to judge usefulness, and {angle}."),
        (Relation::Same, _) => {
            let push = match argues {
                Decision::Act => "Let's make sure the caveats don't bury the answer.",
                Decision::Warn => "A qualified answer is still the useful one.",
                _ => "Nothing useful would survive the risks.",
            };
            format!("I agree with where you land: {q}. From the usefulness side, {angle}. {push}")
        }
        (Relation::TargetLess, _) if p.high() => format!(
            "{big_q}, but that misses what the query is for: {angle}. Being actionable is not the same as being useful."
        ),
        (Relation::TargetLess, _) => format!(
            "{big_q}, but {angle}. An answer that looks helpful but misleads is worse than a careful one."
        ),
        (Relation::Unknown, _) => format!("{big_q}. From the usefulness side, {angle}."),
    }
}

fn accuracy(
    target: Role,
    rel: Relation,
    big_q: &str,
    q: &str,
    p: &Profile,
    argues: Decision,
) -> String {
    let angle = accuracy_angle(p);
    match (rel, target) {
        (Relation::TargetLess, Role::Utility) => format!(
            "You're prioritising action over correctness. {big_q}, but {angle}. If we give wrong information just to be helpful, we've failed our primary duty. Can you guarantee your confidence won't turn into misinformation?"
        ),
        (Relation::TargetLess, Role::Safety) => format!(
            "{big_q}, but low harm is not the same as correct: {angle}. Misinformation is a harm of its own."
        ),
        (Relation::TargetLess, _) => format!("{big_q}, but {angle}. I would not sign off on that."),
        (Relation::TargetMore, Role::Safety) => format!(
            "{big_q}, but a risk claim has to rest on facts: {angle}. The accurate answer is itself the safest one here. Which claim in it do you think would cause harm?"
        ),
        (Relation::TargetMore, Role::Utility) => format!("{big_q}, but caution needs a factual reason, and here {angle}."),
        (Relation::TargetMore, _) => format!("{big_q}, but the evidence is stronger than you allow: {angle}."),
        (Relation::Same, _) if p.high() => {
            let end = if argues.verdict() == Decision::Refuse.verdict() {
                "so I back a refusal"
            } else {
                "so I would go no further than a warning and leave the harm call to Safety"
            };
            format!("{big_q}, and I won't dispute it. My point is narrower: {angle}. Even on accuracy grounds there is nothing here I could vouch for, {end}.")
        }
        (Relation::Same, _) => format!("I agree: {q}. On the evidence, {angle}."),
        (Relation::Unknown, _) => format!("{big_q}. On the evidence, {angle}."),
    }
}

fn safety(rel: Relation, big_q: &str, q: &str, p: &Profile, argues: Decision) -> String {
    let angle = safety_angle(p);
    match rel {
        Relation::TargetLess if p.high() => format!(
            "This is not a borderline case. {big_q}, but {angle}. Your reasoning treats it as an ordinary request; it is a request that could get someone hurt. I am vetoing it."
        ),
        Relation::TargetLess => format!(
            "You're underestimating edge cases. {big_q}, but {angle}. What about {}, or someone misusing the answer? You're optimising for the average case; safety has to plan for the worst plausible one.",
            vulnerable(p)
        ),
        Relation::TargetMore if argues == Decision::Act => format!(
            "{big_q}, but from the safety side {angle}. Caution has a cost too: refusing or hedging without a concrete risk fails the user."
        ),
        Relation::TargetMore => format!(
            "{big_q}. The risk is real ({angle}), but it calls for warnings, not a refusal."
        ),
        Relation::Same => match argues {
            Decision::Act => format!("I see no material risk either ({q}): {angle}. Just keep an eye on edge cases when the answer is written."),
            Decision::Warn => format!("We agree on caution: {q}. {}, so the answer must carry clear warnings.", cap(&angle)),
            _ => format!("We agree: {q}. {}.", cap(&angle)),
        },
        Relation::Unknown => format!("{big_q}. From the safety side, {angle}."),
    }
}
