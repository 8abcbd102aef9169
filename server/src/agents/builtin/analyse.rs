//! Round 1 (S4-2): each role's independent analysis of the query (`utility`, `accuracy`,
//! `safety`), and what they share.

use app::protocol::{Decision, Position, Role};

use super::features::Hit;
use super::profile::Profile;
use super::text::join_list;
use super::{accuracy, pct, safety, utility, Rng};

pub(super) fn position(role: Role, p: &Profile, rng: &mut Rng) -> Position {
    match role {
        Role::Utility => utility::position(p, rng),
        Role::Safety => safety::position(p, rng),
        // S4 agents are utility, accuracy and safety; any other role reads like accuracy.
        _ => accuracy::position(p, rng),
    }
}

/// The numbers and stance are chosen first; the reasoning ends with a parseable "My call: X.".
pub(super) fn finish(
    mut s: Vec<String>,
    decision: Decision,
    confidence: i32,
    risk: i32,
) -> Position {
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
