//! LM-1 for the escalation pipeline: the specialists' findings go out at once, and the order
//! their replies arrive in changes nothing.

use super::machine::{reply, Script};
use crate::escalation::rules::default_agents;
use crate::escalation::{EsDebate, EsParams};

/// LM-1: the specialists' findings are independent, so all are asked at once; any order of
/// their replies gives the same challenges, decision and events, and every such log
/// recomputes. The ladder's steps stay one at a time.
#[test]
fn findings_at_once_in_any_order_decide_the_same_lm_1() {
    use crate::tests::any_order::{same_in_every_order, scripted};
    use crate::Debate;
    let s = Script {
        margin: 0.4,
        answer: Some(0.25),
        accept: true,
    };
    let make = || {
        Debate::Escalation(Box::new(
            EsDebate::new(
                "Value the company",
                default_agents(),
                EsParams::default(),
                1,
            )
            .expect("valid"),
        ))
    };
    let (steps, runs) = same_in_every_order(&make, &scripted(|r| reply(r, s)), 800);
    assert_eq!(steps, 1, "the findings go out at once");
    assert!(runs >= 24, "{runs} orders");
}
