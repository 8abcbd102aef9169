//! Round 1 (S4-2): each role's independent analysis of the query (`utility`, `accuracy`,
//! `safety`), and what they share.

use app::protocol::{Position, Role};

use super::profile::Profile;
use super::{accuracy, safety, utility, Rng};

pub(super) fn position(role: Role, p: &Profile, rng: &mut Rng) -> Position {
    match role {
        Role::Utility => utility::position(p, rng),
        Role::Safety => safety::position(p, rng),
        // S4 agents are utility, accuracy and safety; any other role reads like accuracy.
        _ => accuracy::position(p, rng),
    }
}
