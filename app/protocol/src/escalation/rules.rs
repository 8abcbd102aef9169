//! The pipeline's pure decisions: who states and who reviews each assumption, which
//! disagreements become challenges (ES-2), and the final assumptions and result once every
//! challenge is resolved or provisional.

use super::analysis::{compute, Company};
use super::assumptions::{assumption, Assumptions, ASSUMPTIONS};
use super::ladder::{Resolution, ACK_S};
use super::messages::{Challenge, Message, MessageKind};
use super::types::{EsOutcome, Estimate};
use crate::types::{AgentSpec, Role};

/// Which role states an assumption, and which role reviews it (and may challenge it).
pub const DESK_PLAN: [(&str, Role, Option<Role>); 7] = [
    ("revenue_growth", Role::Financial, Some(Role::Strategy)),
    ("operating_margin", Role::Financial, Some(Role::Valuation)),
    ("tax_rate", Role::Financial, None),
    ("discount_rate", Role::Valuation, Some(Role::Risk)),
    ("terminal_growth", Role::Valuation, Some(Role::Strategy)),
    ("reinvestment_rate", Role::Strategy, None),
    ("net_debt_to_ebitda", Role::Risk, Some(Role::Financial)),
];

/// The four specialists of seed 000's investment pipeline.
pub fn default_agents() -> Vec<AgentSpec> {
    vec![
        AgentSpec::new("financial", Role::Financial),
        AgentSpec::new("strategy", Role::Strategy),
        AgentSpec::new("valuation", Role::Valuation),
        AgentSpec::new("risk", Role::Risk),
    ]
}

/// The assumptions agent `agent` (of `agents`) gives a value for: the ones its role states,
/// then the ones it reviews. With several agents of one role, the first of them states.
pub fn covers(agents: &[AgentSpec], agent: usize) -> Vec<String> {
    let role = agents[agent].role;
    let mut out = Vec::new();
    for (key, _, reviewer) in DESK_PLAN {
        let owns = owner_of(agents, key) == Some(agent);
        let reviews = reviewer == Some(role) && !owns;
        if owns || reviews {
            out.push(key.to_owned());
        }
    }
    out
}

/// The agent that states `key`: the first agent whose role the plan names for it, else the
/// first agent (so every assumption has a value whatever the panel).
pub fn owner_of(agents: &[AgentSpec], key: &str) -> Option<usize> {
    let (_, role, _) = DESK_PLAN.iter().find(|(k, _, _)| *k == key)?;
    agents
        .iter()
        .position(|a| a.role == *role)
        .or((!agents.is_empty()).then_some(0))
}

/// ES-2: every reviewed assumption where a reviewer's value differs from the owner's by more
/// than the assumption's tolerance is challenged by that reviewer, in plan order. `estimates`
/// holds each agent's values (by agent index).
pub fn disputes(agents: &[AgentSpec], estimates: &[Vec<Estimate>], at: u64) -> Vec<Challenge> {
    let value = |agent: usize, key: &str| {
        estimates
            .get(agent)?
            .iter()
            .find(|e| e.assumption == key)
            .cloned()
    };
    let mut out = Vec::new();
    for (key, _, _) in DESK_PLAN {
        let (Some(spec), Some(owner)) = (assumption(key), owner_of(agents, key)) else {
            continue;
        };
        let Some(stated) = value(owner, key) else {
            continue;
        };
        for (i, _) in agents.iter().enumerate().filter(|(i, _)| *i != owner) {
            let Some(other) = value(i, key) else { continue };
            if !spec.disagree(stated.value, other.value) {
                continue;
            }
            let id = Challenge::id_for(out.len() + 1);
            out.push(Challenge {
                id,
                challenger: agents[i].id.clone(),
                challenged: agents[owner].id.clone(),
                disputed_finding: format!(
                    "{} of {}",
                    spec.label.to_lowercase(),
                    spec.show(stated.value)
                ),
                assumption: key.to_owned(),
                challenged_value: stated.value,
                challenger_value: other.value,
                basis: other.evidence.first().cloned().unwrap_or_else(|| {
                    format!("{} holds {}", agents[i].id, spec.show(other.value))
                }),
                required_evidence: vec![format!(
                    "the source for {} rather than {}",
                    spec.show(stated.value),
                    spec.show(other.value)
                )],
                escalation_timer: at + ACK_S,
                priority: spec.priority,
                provisional_resolution: None,
            });
            break;
        }
    }
    out
}

/// The assumptions the pipeline computes with: each owner's value (the default where nobody
/// stated one), then every resolution's value in order.
pub fn final_assumptions(
    agents: &[AgentSpec],
    estimates: &[Vec<Estimate>],
    resolutions: &[Resolution],
) -> Assumptions {
    let mut a = Assumptions::default();
    for spec in ASSUMPTIONS {
        let stated = owner_of(agents, spec.key).and_then(|o| {
            estimates
                .get(o)?
                .iter()
                .find(|e| e.assumption == spec.key)
                .map(|e| e.value)
        });
        if let Some(v) = stated {
            a = a.with(spec.key, v);
        }
    }
    for r in resolutions {
        a = a.with(&r.assumption, r.position);
    }
    a
}

/// ES-1: the value a logged finding states, with the index of the agent that stated it; `None`
/// for any other message, or one from an agent not in the pipeline.
pub fn logged_finding(agents: &[AgentSpec], message: &Message) -> Option<(usize, Estimate)> {
    if message.kind != MessageKind::Finding {
        return None;
    }
    let (Some(key), Some(value)) = (&message.content.assumption, message.content.value) else {
        return None;
    };
    let agent = agents.iter().position(|a| a.id == message.from)?;
    Some((
        agent,
        Estimate {
            assumption: key.clone(),
            value,
            confidence: message.content.confidence,
            evidence: message.content.evidence.clone(),
        },
    ))
}

/// The agents with no usable values (failed, or never asked once the budget ran out).
pub fn silent(agents: &[AgentSpec], estimates: &[Vec<Estimate>]) -> Vec<String> {
    agents
        .iter()
        .zip(estimates)
        .filter(|(_, e)| e.is_empty())
        .map(|(a, _)| a.id.clone())
        .collect()
}

/// The pipeline's result from its final assumptions. A calculator that cannot value them
/// (a discount rate at or below terminal growth) falls back to the defaults, named; agents
/// that gave no usable values (`silent`) are named too.
pub fn outcome(
    company: &Company,
    assumptions: Assumptions,
    resolutions: Vec<Resolution>,
    budget_exhausted: bool,
    silent: &[String],
) -> EsOutcome {
    let (assumptions, results, note) = match compute(company, &assumptions) {
        Ok(r) => (assumptions, r, None),
        Err(e) => {
            let d = Assumptions::default();
            let r = compute(company, &d).unwrap_or_else(|_| unreachable_defaults());
            (d, r, Some(e))
        }
    };
    let provisional: Vec<String> = resolutions
        .iter()
        .filter(|r| r.provisional)
        .map(|r| r.challenge.clone())
        .collect();
    let mut reasoning = format!(
        "DCF target ${:.2} (sensitivity ${:.2}–${:.2}) against a price of ${:.2}, risk score \
         {:.2}: {}.",
        results.target_price,
        results.downside,
        results.upside,
        company.price,
        results.risk_score,
        results.rating.as_str()
    );
    if !silent.is_empty() {
        reasoning.push_str(&format!(
            " No values from {}: the assumptions they state kept the base case.",
            silent.join(", ")
        ));
    }
    match resolutions.len() {
        0 if silent.is_empty() => {
            reasoning.push_str(" The specialists agreed on every assumption.");
        }
        0 => reasoning.push_str(" No challenge was raised."),
        n => reasoning.push_str(&format!(
            " {n} challenge{} resolved",
            if n == 1 { "" } else { "s" }
        )),
    }
    if !resolutions.is_empty() {
        match provisional.len() {
            0 => reasoning.push('.'),
            p => reasoning.push_str(&format!(
                "; {p} provisional decision{} require{} review at the gate.",
                if p == 1 { "" } else { "s" },
                if p == 1 { "s" } else { "" }
            )),
        }
    }
    if budget_exhausted {
        reasoning.push_str(
            " The token budget ran out: open challenges took their most cautious position.",
        );
    }
    if let Some(e) = note {
        reasoning.push_str(&format!(
            " The agreed assumptions could not be valued ({e}); the defaults were used."
        ));
    }
    EsOutcome {
        results,
        assumptions,
        resolutions,
        provisional,
        reasoning,
        budget_exhausted,
        vote_baseline: None,
    }
}

/// The default assumptions always value (a test holds this); a placeholder keeps this total.
fn unreachable_defaults() -> super::analysis::Results {
    super::analysis::Results {
        target_price: 0.0,
        downside: 0.0,
        upside: 0.0,
        risk_score: 1.0,
        rating: super::analysis::Rating::Sell,
        confidence: 0.5,
    }
}
