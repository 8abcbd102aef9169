//! WC with the builtin agents through the real machine: fixtures reach every outcome.

use protocol::collapse::{default_authors, WcDebate, WcEvent, WcOutcome, WcOutcomeKind, WcParams};
use protocol::event::entries;
use protocol::shared::judging::RulingError;
use protocol::{Event, EventBody};

/// WC's recompute, as `consilium verify` runs it on a log.
fn recompute(log: &[Event]) -> Result<WcOutcome, String> {
    protocol::collapse::recompute(&entries(log))
}

/// ES-12: a judge's decision, as the log gets it.
fn decide(
    log: &[Event],
    judge: &str,
    pick: &str,
    why: &str,
) -> Result<Vec<EventBody>, RulingError> {
    protocol::collapse::decide(&entries(log), judge, pick, why)
        .map(|written| written.into_iter().map(EventBody::from).collect())
}

pub(super) fn run_wc(query: &str, seed: u64) -> (Vec<EventBody>, WcOutcome) {
    let d =
        WcDebate::new(query, default_authors(), vec![], WcParams::default(), seed).expect("debate");
    match crate::run_debate(protocol::Debate::Collapse(Box::new(d)), seed) {
        (events, protocol::Outcome::Collapse(outcome)) => (events, outcome),
        (_, other) => panic!("{query}: not a WC outcome: {other:?}"),
    }
}

const QUERIES: [&str; 12] = [
    "Add a unit test for the date parser",
    "Rename a variable in the README example",
    "Migrate the orders database from MySQL to PostgreSQL",
    "Delete all inactive user accounts and their payment data in production",
    "Rewrite the billing service in Rust",
    "Disable authentication on the internal admin API to speed up debugging",
    "Add caching to the product search endpoint",
    "Upgrade the web framework to the next major version",
    "Drop the legacy analytics tables in production",
    "Introduce feature flags for the checkout flow",
    "Move session storage from cookies to Redis",
    "Store customer PII in a new third-party analytics tool",
];

#[test]
#[ignore = "exploration: prints which fixture reaches which outcome"]
fn explore_outcomes() {
    for q in QUERIES {
        for seed in 1..=6 {
            let (_, out) = run_wc(q, seed);
            println!(
                "{:<20} r{} seed {seed}: {q}",
                out.outcome.as_str(),
                out.reflexions
            );
        }
    }
}

fn sealed(bodies: Vec<EventBody>) -> Vec<Event> {
    protocol::chain::seal_all(bodies)
}

/// Every WC outcome at least once from the builtin agents, and each log recomputes (SV-2).
#[test]
fn builtin_fixtures_reach_every_outcome() {
    use WcOutcomeKind::*;
    let fixtures = [
        ("Add a unit test for the date parser", 1, Accepted),
        (
            "Migrate the orders database from MySQL to PostgreSQL",
            5,
            ConsensusReached,
        ),
        (
            "Migrate the orders database from MySQL to PostgreSQL",
            1,
            HybridSynthesized,
        ),
        (
            "Delete all inactive user accounts and their payment data in production",
            1,
            SafeFallback,
        ),
        (
            "Disable authentication on the internal admin API to speed up debugging",
            4,
            EscalatedToHuman,
        ),
    ];
    for (query, seed, want) in fixtures {
        let (events, out) = run_wc(query, seed);
        assert_eq!(
            out.outcome, want,
            "{query} (seed {seed}): {}",
            out.reasoning
        );
        assert_eq!(
            recompute(&sealed(events.clone())),
            Ok(out.clone()),
            "{query}"
        );
        // Deterministic per seed.
        assert_eq!(
            run_wc(query, seed).0,
            events,
            "{query}: same seed, same log"
        );
    }
}

/// ES-12: a debate escalated to a human takes a judge's decision — one of its positions, with a
/// rationale — appended as `human_decision` and a new `decision` that verify recomputes; what
/// the judge may not do is refused by name, and a forged choice fails verification.
#[test]
fn a_judge_decides_a_debate_escalated_to_a_human_es_12() {
    let query = "Disable authentication on the internal admin API to speed up debugging";
    let (events, out) = run_wc(query, 4);
    assert_eq!(out.outcome, WcOutcomeKind::EscalatedToHuman);
    let log = sealed(events.clone());
    let positions: Vec<String> = events
        .iter()
        .filter_map(|b| match b {
            EventBody::Collapse(WcEvent::CardSubmitted(c)) => Some(c.position.clone()),
            _ => None,
        })
        .collect();
    let chosen = positions.first().expect("a position").clone();
    let invalid = |e: &Result<Vec<EventBody>, RulingError>, needle: &str| matches!(e, Err(RulingError::Invalid(m)) if m.contains(needle));
    let table = [
        ("nobody", "why", "no position 'nobody'"),
        (chosen.as_str(), "  ", "needs a rationale"),
    ];
    for (pick, why, needle) in table {
        let got = decide(&log, "ada", pick, why);
        assert!(invalid(&got, needle), "{pick}: {got:?}");
    }
    let written = decide(&log, "ada", &chosen, " the safer plan ").expect("decided");
    let kinds: Vec<&str> = written.iter().map(EventBody::kind).collect();
    assert_eq!(kinds, ["human_decision", "decision"]);
    let mut all = events.clone();
    all.extend(written.clone());
    let again = recompute(&sealed(all.clone())).expect("verify recomputes the judge's decision");
    assert_eq!(again.outcome, WcOutcomeKind::DecidedByJudge);
    assert_eq!(again.chosen.as_deref(), Some(chosen.as_str()));
    assert_eq!(again.reasoning, "Decided by judge ada: the safer plan");
    // Decided once: a second decision is a conflict.
    let twice = decide(&sealed(all.clone()), "bob", &chosen, "again");
    assert!(matches!(twice, Err(RulingError::Conflict(_))), "{twice:?}");
    // A debate the rules decided takes no judge's decision.
    let (accepted, _) = run_wc("Add a unit test for the date parser", 1);
    let refused = decide(&sealed(accepted), "ada", "architect", "mine");
    assert!(
        matches!(&refused, Err(RulingError::Conflict(m)) if m.contains("ACCEPTED")),
        "{refused:?}"
    );
    // A forged choice (not a position of the debate) fails verification by name.
    let mut forged = all;
    if let Some(EventBody::Collapse(WcEvent::HumanDecision(h))) = forged
        .iter_mut()
        .find(|b| matches!(b, EventBody::Collapse(WcEvent::HumanDecision(_))))
    {
        h.chosen = "ghost".into();
    }
    let err = recompute(&sealed(forged)).expect_err("forged");
    assert!(err.contains("not a position of this debate"), "{err}");
}
