//! LM-1 for S4: each round's requests go out at once, and the order their replies arrive in
//! changes nothing the machine decides or logs.

use super::super::S4Debate;
use super::{agents, pos};

use crate::types::{Decision, Role};
use Decision::{Act as A, Warn as W};

/// LM-1: each round's requests are all handed out at once, and answering them in any order
/// gives the same decision and the same events — revisions included, whose replies here repeat
/// the challenges they were shown, in the order shown.
#[test]
fn a_round_at_once_in_any_order_decides_the_same_lm_1() {
    use crate::s4::{S4Reply, S4Task};
    use crate::shared::Request;
    use crate::tests::any_order::{same_in_every_order, scripted};
    use crate::Debate;
    let reply = |req: &Request<S4Task>| match &req.task {
        S4Task::Analyse { .. } => {
            let d = match req.role {
                Role::Safety => Decision::Warn,
                _ => A,
            };
            S4Reply::Position(pos(d, &format!("{} r1", req.agent)))
        }
        S4Task::Challenge { target, .. } => S4Reply::Challenge {
            text: format!("{} vs {target}", req.agent),
            argues_for: if req.role == Role::Safety { W } else { A },
        },
        S4Task::Revise { challenges, .. } => {
            let seen: Vec<&str> = challenges.iter().map(|c| c.text.as_str()).collect();
            let d = if challenges.iter().any(|c| c.argues_for == W) {
                W
            } else {
                A
            };
            S4Reply::Position(pos(d, &seen.join(" | ")))
        }
    };
    for n in [3, 4] {
        let make = || Debate::S4(S4Debate::new("q", agents(n), 1).expect("valid"));
        let (steps, runs) = same_in_every_order(&make, &scripted(reply), 800);
        assert_eq!(
            steps, 3,
            "analyses, challenges and revisions each go out at once (N={n})"
        );
        assert!(runs >= 6 + 720 + 6, "N={n}: {runs} orders");
    }
}
