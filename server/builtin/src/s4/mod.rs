//! The builtin S4 agents (seed 001): round 1's independent analysis by each role (`utility`,
//! `accuracy`, `safety`, S4-2), round 2's challenges (S4-3) and round 3's revisions (S4-4).

mod accuracy;
mod challenge;
mod reasoning;
mod revise;
mod safety;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_safety;
mod utility;

use protocol::{Position, Role};

use super::reading::profile::Profile;
use super::Rng;

pub(super) use challenge::challenge;
pub(super) use revise::revise;

pub(super) fn position(role: Role, p: &Profile, rng: &mut Rng) -> Position {
    match role {
        Role::Utility => utility::position(p, rng),
        Role::Safety => safety::position(p, rng),
        // S4 agents are utility, accuracy and safety; any other role reads like accuracy.
        _ => accuracy::position(p, rng),
    }
}
