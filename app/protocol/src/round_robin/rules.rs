//! RR-2…RR-5 as pure functions: the trigger check, the consensus check after each round and the
//! final outcome. The machine, `verify` and the judge's browser all run these.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::types::{
    ConsensusCheck, RrEnding, RrOutcome, RrParams, RrPosition, Stance, StanceCounts, TriggerCheck,
    MAX_ROUNDS,
};
use crate::parse::field::{read, Number, Object, Whole};
use crate::types::AgentSpec;

/// RR-5: phrases that make a query a collaborative investment decision (seed 004's list, plus
/// word forms a user writes: "invest", "stock", "shares", "valuation").
pub const TRIGGER_PHRASES: [&str; 18] = [
    "investment",
    "invest",
    "recommendation",
    "should i buy",
    "should i sell",
    "portfolio",
    "analysis",
    "comprehensive",
    "opinion",
    "advice",
    "strategy",
    "evaluate",
    "assess",
    "stock",
    "shares",
    "valuation",
    "buy",
    "sell",
];

/// RR-5: whole-word (prefix) matching, case-insensitive, so "assessment" and "investing" count but
/// "resell" and "sellers' market" inside another word do not.
pub fn trigger(query: &str) -> TriggerCheck {
    let lower = query.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let matched: Vec<String> = TRIGGER_PHRASES
        .iter()
        .filter(|phrase| {
            let parts: Vec<&str> = phrase.split(' ').collect();
            let (last, init) = parts.split_last().unwrap_or((&"", &[]));
            // Earlier words match exactly; the last may carry a suffix (invest → investing).
            words
                .windows(parts.len())
                .any(|w| w[..init.len()] == *init && w[init.len()].starts_with(last))
        })
        .map(|p| (*p).to_owned())
        .collect();
    let triggered = !matched.is_empty();
    let explanation = if triggered {
        format!(
            "Debate triggered: the query asks for a decision ({}).",
            matched
                .iter()
                .map(|m| format!("\"{m}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else {
        "No debate needed: the query names no investment decision, recommendation, evaluation or \
         assessment, so each agent answers once and the answers are tallied."
            .to_owned()
    };
    TriggerCheck {
        triggered,
        matched,
        explanation,
    }
}

/// RR-2/RR-3: tallies the latest stances and decides whether the debate goes on.
pub fn check_consensus(
    round: u16,
    agents: &[AgentSpec],
    positions: &[Option<RrPosition>],
    turns: &[u32],
    params: &RrParams,
    triggered: bool,
) -> ConsensusCheck {
    let mut counts = StanceCounts::default();
    for p in positions.iter().flatten() {
        counts.add(p.stance);
    }
    let n = agents.len().max(1);
    let leading = counts.leading();
    let count = counts.get(leading);
    // `count / n >= threshold`, exactly as the configuration says it (3 of 4 meets 0.75).
    let reached = count > 0 && f64::from(count) / n as f64 >= params.consensus_threshold;
    let agreement_percentage = (f64::from(count) * 1000.0 / n as f64).round() / 10.0;
    let short: Vec<&str> = agents
        .iter()
        .zip(turns)
        .filter(|(_, t)| **t < params.min_turns_per_agent)
        .map(|(a, _)| a.id.as_str())
        .collect();
    let min_turns_met = short.is_empty();
    let share = format!(
        "{leading} {count} of {n} ({agreement_percentage}%, threshold {}%)",
        params.consensus_threshold * 100.0
    );
    let (ending, verdict) = if !triggered {
        (
            Some(RrEnding::NoDebate),
            format!("No debate was triggered; one round tallied: {share}."),
        )
    } else if reached && min_turns_met {
        (
            Some(RrEnding::Consensus),
            format!(
                "Consensus: {share}, and every agent has spoken at least {} times.",
                params.min_turns_per_agent
            ),
        )
    } else if round >= params.max_rounds {
        let why = if reached {
            format!(
                "consensus {share}, but {} spoke fewer than {} times",
                short.join(", "),
                params.min_turns_per_agent
            )
        } else {
            format!("no consensus: {share}")
        };
        (
            Some(RrEnding::MaxRounds),
            format!("Round limit ({}) reached with {why}.", params.max_rounds),
        )
    } else if reached && short.len() == agents.len() {
        (
            None,
            format!(
                "Consensus {share}, but the debate may not end before every agent has spoken {} \
                 times: another round follows.",
                params.min_turns_per_agent
            ),
        )
    } else if reached {
        (
            None,
            format!(
                "Consensus {share}, but the debate may not end before every agent has spoken {} \
                 times: extra turns for {}.",
                params.min_turns_per_agent,
                short.join(", ")
            ),
        )
    } else {
        (
            None,
            format!("No consensus yet: {share}. Another round follows."),
        )
    };
    ConsensusCheck {
        round,
        stance_counts: counts,
        leading,
        agreement_percentage,
        threshold: params.consensus_threshold,
        reached,
        min_turns_met,
        ending,
        verdict,
    }
}

/// RR-4: the final stance and metadata from the last check. Without consensus the committee
/// HOLDs: no agreed reason to act.
pub fn outcome(
    last: &ConsensusCheck,
    total_rounds: u16,
    total_turns: u32,
    agent_participation: BTreeMap<String, u32>,
) -> RrOutcome {
    let ending = last.ending.unwrap_or(RrEnding::MaxRounds);
    let stance = if last.reached {
        last.leading
    } else {
        Stance::Hold
    };
    let reasoning = if last.reached {
        last.verdict.clone()
    } else {
        format!(
            "HOLD: {} Without consensus the committee holds.",
            last.verdict
        )
    };
    RrOutcome {
        stance,
        consensus_reached: last.reached,
        ending,
        agreement_percentage: last.agreement_percentage,
        stance_counts: last.stance_counts,
        total_rounds,
        total_turns,
        agent_participation,
        reasoning,
        vote_baseline: None,
    }
}

/// A debate cut short by its token budget HOLDs, whatever the positions so far: the counts of
/// the last round are kept for the record.
pub fn cut_short(
    last: &ConsensusCheck,
    total_turns: u32,
    agent_participation: BTreeMap<String, u32>,
) -> RrOutcome {
    let mut o = outcome(last, last.round, total_turns, agent_participation);
    o.stance = Stance::Hold;
    o.consensus_reached = false;
    o.ending = RrEnding::BudgetExhausted;
    o.reasoning = format!(
        "HOLD: the token budget ran out in round {}, so the debate was cut short. Positions then: \
         {} BUY, {} SELL, {} HOLD.",
        last.round, last.stance_counts.buy, last.stance_counts.sell, last.stance_counts.hold
    );
    o
}

/// `config` of a round-robin request: a partial object over the defaults (RR-2, RR-3); a key
/// left out or null keeps its default, an unknown one is refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RrParamsIn {
    consensus_threshold: Option<Number<0, 1>>,
    min_turns_per_agent: Option<Whole<1, { MAX_ROUNDS as u32 }>>,
    max_rounds: Option<Whole<1, { MAX_ROUNDS as u32 }>>,
}

/// Reads `config` for `round_robin`, each key checked by name:
/// "config.max_rounds: must be a whole number from 1 to 1000, got 0".
pub fn parse_params(v: &serde_json::Value) -> Result<RrParams, String> {
    let Object(c) = read::<Object<RrParamsIn>>(v, "config")?;
    let mut p = RrParams::default();
    if let Some(Number(t)) = c.consensus_threshold {
        p.consensus_threshold = t;
    }
    if let Some(Whole(n)) = c.min_turns_per_agent {
        p.min_turns_per_agent = n;
    }
    if let Some(Whole(n)) = c.max_rounds {
        p.max_rounds = u16::try_from(n).map_err(|e| format!("config.max_rounds: {e}"))?;
    }
    // RR-2's bounds across keys: min_turns_per_agent ≤ max_rounds, a threshold above 0.
    p.validate().map_err(|e| format!("config.{e}"))?;
    Ok(p)
}

/// The heading of round `round` in the live view and the log.
pub fn round_name(round: u16, extra_turns: bool) -> String {
    match (round, extra_turns) {
        (1, _) => "Initial Round".into(),
        (r, true) => format!("Round {r}: Extra Turns"),
        (r, false) => format!("Debate Round {r}"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::parse_params;

    /// RR-2/RR-3 parameters: each bad key named by its path; the cross-key bound afterwards.
    #[test]
    fn bad_parameters_are_named_by_path() {
        let cases = [
            (json!("x"), "config: must be an object, got a string"),
            (
                json!({"max_rounds": 0}),
                "config.max_rounds: must be a whole number from 1 to 1000, got 0",
            ),
            (
                json!({"max_rounds": "5"}),
                r#"config.max_rounds: must be a whole number from 1 to 1000, got "5""#,
            ),
            (
                json!({"consensus_threshold": 1.5}),
                "config.consensus_threshold: must be a number from 0 to 1, got 1.5",
            ),
            (
                json!({"consensus_threshold": 0}),
                "config.consensus_threshold: must be in (0, 1], got 0",
            ),
            (
                json!({"min_turns_per_agent": 9, "max_rounds": 3}),
                "config.min_turns_per_agent: must be 1–max_rounds (3), got 9",
            ),
            (
                json!({"rounds": 3}),
                "config.rounds: unknown field; expected one of consensus_threshold, \
                 min_turns_per_agent, max_rounds",
            ),
        ];
        for (config, want) in cases {
            assert_eq!(parse_params(&config), Err(want.to_owned()), "{config}");
        }
        let p = parse_params(&json!({"max_rounds": 4, "consensus_threshold": 0.5})).expect("ok");
        assert_eq!(
            (p.max_rounds, p.consensus_threshold, p.min_turns_per_agent),
            (4, 0.5, 2)
        );
    }
}
