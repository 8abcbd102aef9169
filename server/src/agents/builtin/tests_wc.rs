//! WC with the builtin agents through the real machine: fixtures reach every outcome (issue 4).

use app::protocol::collapse::{
    default_authors, recompute, WcDebate, WcOutcome, WcOutcomeKind, WcParams,
};
use app::protocol::{Event, EventBody};

pub(super) fn run_wc(query: &str, seed: u64) -> (Vec<EventBody>, WcOutcome) {
    let d =
        WcDebate::new(query, default_authors(), vec![], WcParams::default(), seed).expect("debate");
    match super::run_debate(app::protocol::Debate::Collapse(Box::new(d)), seed) {
        (events, app::protocol::Outcome::Collapse(outcome)) => (events, outcome),
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
    let mut seq = crate::drive::Sequencer::new();
    bodies.into_iter().map(|b| seq.stamp(b)).collect()
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
