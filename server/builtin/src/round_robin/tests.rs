//! Builtin RR agents driven through the real round-robin machine (RR-1…RR-5).

use protocol::round_robin::{
    default_agents, RrDebate, RrEnding, RrEvent, RrOutcome, RrParams, RrReply,
};
use protocol::s4::S4Task;
use protocol::{AgentReply, EventBody, Task};

/// Runs a whole debate synchronously; returns every event and the outcome.
fn run(query: &str, seed: u64) -> (Vec<EventBody>, RrOutcome) {
    let d =
        RrDebate::new(query, default_agents(), RrParams::default(), seed).expect("valid debate");
    match crate::run_debate(protocol::Debate::RoundRobin(d), seed) {
        (events, protocol::Outcome::RoundRobin(outcome)) => (events, outcome),
        (_, other) => panic!("{query}: not an RR outcome: {other:?}"),
    }
}

const SURVEY: &[&str] = &[
    "Should I buy Tesla stock?",
    "Should I buy this cheap, undervalued stock now that the rally has momentum and revenue growth is strong?",
    "Is NVIDIA stock overvalued after the AI hype rally, given its revenue growth?",
    "Should I sell my shares in a company with huge debt, losses and a crash in the news?",
    "Give me an investment recommendation on Apple.",
    "Evaluate Peloton stock: cheap after the crash, but debt and losses keep growing.",
    "Is this bubble stock with popular hype and rising losses a buy?",
    "Should I invest in a profitable company with strong cash flow trading at a discount?",
    "Assess GameStop shares: meme hype and momentum, but losses and an expensive valuation.",
    "Should I sell Intel after the panic selloff even though it looks cheap?",
    "What is your opinion on buying bitcoin?",
    "Should I buy an overvalued stock with great momentum?",
    "Is Coca-Cola stock a good long-term investment for its dividend?",
    "Should I buy shares of a bankrupt airline after the crash?",
];

#[test]
#[ignore = "prints a survey of endings over seeds; run by hand to pick fixtures"]
fn survey() {
    for q in SURVEY {
        let mut line = String::new();
        for seed in 0..24 {
            let (_, o) = run(q, seed);
            line.push(match o.ending {
                RrEnding::Consensus => {
                    char::from_digit(u32::from(o.total_rounds), 10).unwrap_or('+')
                }
                RrEnding::MaxRounds => 'M',
                RrEnding::NoDebate => 'N',
                RrEnding::BudgetExhausted => 'B',
            });
        }
        println!("{line}  {q}");
    }
    let (events, _) = run(SURVEY[5], 3);
    for e in events {
        if let EventBody::RoundRobin(RrEvent::Turn { position, .. }) = e {
            println!("{}", position.reasoning);
        }
    }
}

/// (query, seed, ending) — found with `survey`; each ending holds for most seeds of its query.
const FIXTURES: &[(&str, u64, RrEnding)] = &[
    (ONE_SIDED, 0, RrEnding::Consensus),
    (ONE_SIDED, 1, RrEnding::Consensus),
    (
        "Should I buy shares of a bankrupt airline after the crash?",
        0,
        RrEnding::Consensus,
    ),
    (
        "What is your opinion on buying bitcoin?",
        0,
        RrEnding::Consensus,
    ),
    (PELOTON, 2, RrEnding::Consensus),
    (PELOTON, 1, RrEnding::MaxRounds),
    (CONTESTED[0], 0, RrEnding::MaxRounds),
    (CONTESTED[0], 1, RrEnding::MaxRounds),
    (CONTESTED[1], 0, RrEnding::MaxRounds),
];

/// Every analyst reads the same direction: agreement after the minimum two rounds.
const ONE_SIDED: &str = "Should I buy this cheap, undervalued stock now that the rally has \
                         momentum and revenue growth is strong?";
/// Cues pull each analyst its own way, strongly enough that none yields.
const CONTESTED: [&str; 2] = [
    "Is this bubble stock with popular hype and rising losses a buy?",
    "Assess GameStop shares: meme hype and momentum, but losses and an expensive valuation.",
];
/// Mixed cues: the seed decides whether the analysts come together.
const PELOTON: &str =
    "Evaluate Peloton stock: cheap after the crash, but debt and losses keep growing.";

#[test]
fn one_sided_queries_agree_in_two_rounds_and_contested_ones_never_agree() {
    for seed in 0..16 {
        let (_, o) = run(ONE_SIDED, seed);
        assert_eq!(
            (o.ending, o.total_rounds, o.stance),
            (RrEnding::Consensus, 2, protocol::round_robin::Stance::Buy),
            "seed {seed}"
        );
        for q in CONTESTED {
            let (_, o) = run(q, seed);
            assert_eq!(
                (o.ending, o.total_rounds),
                (RrEnding::MaxRounds, 5),
                "{q} seed {seed}"
            );
        }
    }
}

#[test]
fn fixtures_reach_both_endings_rr_2_rr_3() {
    for &(q, seed, ending) in FIXTURES {
        let (_, o) = run(q, seed);
        assert_eq!(o.ending, ending, "{q} (seed {seed}): {}", o.reasoning);
        match ending {
            RrEnding::Consensus => assert!(o.consensus_reached),
            RrEnding::MaxRounds => assert_eq!(o.total_rounds, 5),
            RrEnding::NoDebate | RrEnding::BudgetExhausted => {}
        }
    }
    assert!(FIXTURES.iter().any(|f| f.2 == RrEnding::Consensus));
    assert!(FIXTURES.iter().any(|f| f.2 == RrEnding::MaxRounds));
}

#[test]
fn deterministic_for_query_and_seed() {
    for q in SURVEY {
        for seed in [0, 1, 42] {
            assert_eq!(run(q, seed), run(q, seed), "{q}");
        }
    }
}

#[test]
fn non_investment_query_is_not_debated_rr_5() {
    for seed in 0..8 {
        let (events, o) = run("What is the capital of France?", seed);
        assert_eq!(o.ending, RrEnding::NoDebate);
        let turns = events
            .iter()
            .filter(|e| matches!(e, EventBody::RoundRobin(RrEvent::Turn { .. })))
            .count();
        assert_eq!(turns, 3);
    }
}

#[test]
fn replies_are_never_empty_and_engage_peers_from_turn_two_rr_1() {
    for q in SURVEY {
        for seed in 0..6 {
            let (events, _) = run(q, seed);
            for e in &events {
                let EventBody::RoundRobin(RrEvent::Turn {
                    agent,
                    turn,
                    position,
                    ..
                }) = e
                else {
                    continue;
                };
                let text = position.reasoning.to_lowercase();
                assert!(!text.trim().is_empty());
                assert!(position.confidence <= 100);
                if *turn >= 2 {
                    let peers = ["valuation", "sentiment", "fundamental"];
                    // Names are capitalised ids: "Sentiment says BUY on the "rally"".
                    assert!(
                        peers
                            .iter()
                            .filter(|p| *p != agent)
                            .any(|p| text.contains(&format!("{p} says"))),
                        "{agent} turn {turn}: {}",
                        position.reasoning
                    );
                }
            }
        }
    }
}

#[test]
fn reasoning_quotes_the_query() {
    let q = "Is NVIDIA stock overvalued after the AI hype rally, given its revenue growth?";
    let (events, _) = run(q, 0);
    let first: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            EventBody::RoundRobin(RrEvent::Turn {
                turn: 1, position, ..
            }) => Some(position.reasoning.clone()),
            _ => None,
        })
        .collect();
    assert!(first[0].contains("\"overvalued\""), "{}", first[0]);
    assert!(
        first[1].contains("\"hype\"") || first[1].contains("\"rally\""),
        "{}",
        first[1]
    );
    assert!(first[2].contains("\"revenue growth\""), "{}", first[2]);
}

#[test]
fn odd_input_never_panics() {
    let long = "Should I buy this stock? ".repeat(170);
    let weird = [
        "",
        "   ",
        "buy",
        "🚀🚀🚀 should I buy 🚀🚀🚀",
        "Soll ich die Aktie kaufen? 株を買うべきですか? invest",
        long.as_str(),
    ];
    for q in weird {
        for seed in 0..3 {
            let (_, o) = run(q, seed);
            assert!(o.total_turns >= 3);
        }
    }
    // A non-turn task to the RR entry point still answers.
    let req = protocol::AgentRequest {
        id: 0,
        agent: "valuation".into(),
        role: protocol::Role::Valuation,
        round: 1,
        task: Task::S4(S4Task::Analyse { query: "x".into() }),
    };
    let AgentReply::RoundRobin(RrReply::Stance(p)) = super::turn(0, &req) else {
        panic!("stance expected")
    };
    assert!(!p.reasoning.is_empty());
}

/// A contested query runs to a high round limit, and the log it writes is the
/// long one the audit view must render (the Playwright spec `long-log` asks the server for this
/// same debate: the default panel, 630 rounds, seed 7).
#[test]
fn a_contested_debate_runs_to_a_high_round_limit_rr_3() {
    let params = RrParams {
        max_rounds: 630,
        ..RrParams::default()
    };
    let d = RrDebate::new(CONTESTED[0], default_agents(), params, 7).expect("valid debate");
    let (events, outcome) = match crate::run_debate(protocol::Debate::RoundRobin(d), 7) {
        (events, protocol::Outcome::RoundRobin(o)) => (events, o),
        (_, other) => panic!("not an RR outcome: {other:?}"),
    };
    assert_eq!(
        (outcome.ending, outcome.total_rounds, outcome.total_turns),
        (RrEnding::MaxRounds, 630, 1_890)
    );
    // Per round: its start, a thought and a turn per agent, the consensus check; then the
    // debate's start, the trigger check and the decision.
    assert_eq!(events.len(), 630 * 8 + 3);
}
