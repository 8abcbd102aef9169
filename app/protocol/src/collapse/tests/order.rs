//! LM-1 for collapse: each step's requests go out at once, and the order their replies arrive in
//! changes nothing the machine decides or logs.

use super::*;

/// LM-1: the authors' cards, the verifications, the revisions and the panel's seats are each
/// asked at once; any order of their replies gives the same decision and the same events, and
/// every such log recomputes (the replay holds cards in author order and evaluations in seat
/// order, as the machine does).
#[test]
fn every_step_at_once_in_any_order_decides_the_same_lm_1() {
    use crate::tests::any_order::{same_in_every_order, scripted};
    use crate::Debate;
    let three = |a, b, c| vec![a, b, c];
    let cases = [
        (
            "close → panel",
            Script {
                cards: three(
                    card("a", 0.5, 0.3, 0.5, 40, 0.6),
                    card("b", 0.45, 0.3, 0.5, 40, 0.6),
                    card("c", 0.4, 0.3, 0.5, 40, 0.6),
                ),
                approve: |_| true,
                panel: |p, seat| match p {
                    "a" => 0.5 + 0.05 * seat as f64,
                    _ => 0.4,
                },
                improve: 0.0,
            },
        ),
        (
            "near tie → hybrid re-score",
            Script {
                cards: three(
                    card("a", 0.5, 0.3, 0.5, 40, 0.6),
                    card("b", 0.45, 0.3, 0.5, 40, 0.6),
                    card("c", 0.1, 0.9, 0.5, 90, 0.4),
                ),
                approve: |c| c.agent != "c",
                panel: |p, seat| match p {
                    "a" => 0.6 + 0.01 * seat as f64,
                    "b" => 0.6,
                    _ => 0.8,
                },
                improve: 0.0,
            },
        ),
        (
            "reflexion, then revisions",
            Script {
                cards: three(
                    card("a", 0.2, 0.1, 0.9, 10, 0.9),
                    card("b", 0.1, 0.9, 0.5, 90, 0.4),
                    card("c", 0.15, 0.5, 0.5, 50, 0.5),
                ),
                approve: |_| true,
                panel: |_, _| 0.9,
                improve: 0.3,
            },
        ),
    ];
    for (name, s) in &cases {
        let authors: Vec<_> = s
            .cards
            .iter()
            .map(|c| crate::AgentSpec::new(c.agent.clone(), crate::Role::Author))
            .collect();
        let make = || {
            Debate::Collapse(Box::new(
                WcDebate::new(
                    "Pick a store",
                    authors.clone(),
                    vec![],
                    WcParams::default(),
                    1,
                )
                .expect("debate"),
            ))
        };
        let (steps, runs) = same_in_every_order(&make, &scripted(|r| answer(s, r)), 800);
        assert!(steps >= 2, "{name}: {steps} steps asked at once");
        assert!(runs >= 6, "{name}: {runs} orders");
    }
}
