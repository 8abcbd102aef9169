//! RC-4: the rules a topic's observations are reconciled by — what the builtin reconciler
//! answers to the RC-3 prompt, deterministically, so the protocol runs offline and `verify`
//! can recompute its beliefs.
//!
//! - **Agreement**: the same content from every observation → that belief, no conflict.
//! - **Partial overlap**: no two observations contradict and one is more specific (numbers,
//!   names, days; fewer hedges such as "several", "sometimes", "might") → the more specific one
//!   is the belief, no conflict.
//! - **Contradiction**: different specifics (3pm / 4pm, 6 / 5, Room A / Room B) or opposite
//!   words (up / down, on track / delayed, a negation).
//!   - **Temporal**: the newest observation is at least `temporal_gap_hours` newer than every
//!     observation it contradicts → it supersedes them, and the belief says so.
//!   - **Authority** (RC-2): sources whose authority differs by at least `authority_margin` →
//!     the higher authority's observation is the belief.
//!   - **Credibility**: otherwise credibilities that differ by at least `credibility_margin` →
//!     the more credible agent's observation.
//!   - **Equal weight**: otherwise no belief; a clarification question for a human.

use super::cluster::shorten;
use super::types::{RcParams, Reconciliation, Weighed};
use crate::time;

const HEDGES: [&str; 24] = [
    "several",
    "some",
    "sometimes",
    "might",
    "may",
    "maybe",
    "possibly",
    "perhaps",
    "reportedly",
    "rumored",
    "rumoured",
    "allegedly",
    "about",
    "around",
    "roughly",
    "approximately",
    "likely",
    "probably",
    "could",
    "various",
    "many",
    "few",
    "including",
    "occasionally",
];

/// Words whose presence against their opposite is a contradiction.
const OPPOSITES: [(&str, &str); 27] = [
    // The verdicts of the other protocols (`from_debates` observations carry them).
    ("act", "refuse"),
    ("act", "warn"),
    ("warn", "refuse"),
    ("buy", "sell"),
    ("buy", "hold"),
    ("sell", "hold"),
    ("up", "down"),
    ("up", "flat"),
    ("down", "flat"),
    ("rose", "fell"),
    ("rise", "fall"),
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("grew", "shrank"),
    ("growing", "shrinking"),
    ("track", "delayed"),
    ("ahead", "behind"),
    ("early", "late"),
    ("open", "closed"),
    ("approved", "rejected"),
    ("profit", "loss"),
    ("confirmed", "cancelled"),
    ("confirmed", "canceled"),
    ("available", "unavailable"),
    ("true", "false"),
    ("yes", "no"),
    ("won", "lost"),
];

const NEGATIONS: [&str; 5] = ["not", "no", "never", "none", "without"];

const DAYS: [&str; 14] = [
    "mon",
    "tue",
    "wed",
    "thu",
    "fri",
    "sat",
    "sun",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

const NUMBER_WORDS: [(&str, &str); 12] = [
    ("zero", "0"),
    ("one", "1"),
    ("two", "2"),
    ("three", "3"),
    ("four", "4"),
    ("five", "5"),
    ("six", "6"),
    ("seven", "7"),
    ("eight", "8"),
    ("nine", "9"),
    ("ten", "10"),
    ("twelve", "12"),
];

/// What RC-4 reads in one observation.
#[derive(Debug)]
struct Facts {
    words: Vec<String>,
    /// Numbers, single-letter names (Room A), days.
    specifics: Vec<String>,
    hedges: usize,
    negated: bool,
}

impl Facts {
    fn of(text: &str) -> Facts {
        let mut words = Vec::new();
        let mut specifics = Vec::new();
        for raw in text.split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '%')) {
            let raw = raw.trim_matches('.');
            if raw.is_empty() {
                continue;
            }
            let w = raw.to_lowercase();
            let number = NUMBER_WORDS.iter().find(|(n, _)| *n == w).map(|(_, d)| *d);
            if raw.chars().any(|c| c.is_ascii_digit()) {
                specifics.push(w.clone());
            } else if let Some(d) = number {
                specifics.push(d.to_owned());
            } else if raw.len() == 1 && raw.chars().all(|c| c.is_ascii_uppercase()) && raw != "I" {
                specifics.push(w.clone());
            } else if DAYS.contains(&w.as_str()) {
                specifics.push(w[..3].to_owned());
            }
            words.push(w);
        }
        specifics.sort();
        specifics.dedup();
        let hedges = words
            .iter()
            .filter(|w| HEDGES.contains(&w.as_str()))
            .count();
        let negated = words
            .iter()
            .any(|w| NEGATIONS.contains(&w.as_str()) || w.ends_with("n't"));
        Facts {
            words,
            specifics,
            hedges,
            negated,
        }
    }

    fn has(&self, w: &str) -> bool {
        self.words.iter().any(|x| x == w)
    }

    /// How specific: specifics count double, hedges take away.
    fn specificity(&self) -> i64 {
        2 * self.specifics.len() as i64 + self.words.len() as i64 - 3 * self.hedges as i64
    }
}

/// Why two observations contradict, or `None` when they are compatible.
fn contradiction(a: &Facts, b: &Facts) -> Option<String> {
    if !a.specifics.is_empty() && !b.specifics.is_empty() {
        let only_a: Vec<&String> = a
            .specifics
            .iter()
            .filter(|s| !b.specifics.contains(s))
            .collect();
        let only_b: Vec<&String> = b
            .specifics
            .iter()
            .filter(|s| !a.specifics.contains(s))
            .collect();
        if !only_a.is_empty() && !only_b.is_empty() {
            return Some(format!(
                "different specifics ({} against {})",
                join(&only_a),
                join(&only_b)
            ));
        }
    }
    for (x, y) in OPPOSITES {
        if (a.has(x) && b.has(y) && !a.has(y) && !b.has(x))
            || (a.has(y) && b.has(x) && !a.has(x) && !b.has(y))
        {
            return Some(format!("opposite words ({x} against {y})"));
        }
    }
    if a.negated != b.negated {
        return Some("one denies what the other states".into());
    }
    None
}

fn join(items: &[&String]) -> String {
    items
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn quote(o: &Weighed) -> String {
    format!("“{}” ({})", shorten(&o.content, 120), o.agent)
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// RC-4: the builtin reconciler's answer for a topic's observations.
pub fn reconcile(label: &str, obs: &[Weighed], params: &RcParams) -> Reconciliation {
    let Some(first) = obs.first() else {
        return unresolved("the topic has no observations", label, obs);
    };
    let facts: Vec<Facts> = obs.iter().map(|o| Facts::of(&o.content)).collect();
    let plain = |o: &Weighed| super::cluster::plain(&o.content);
    if obs.iter().all(|o| plain(o) == plain(first)) {
        let agents = {
            let mut a: Vec<&str> = obs.iter().map(|o| o.agent.as_str()).collect();
            a.sort_unstable();
            a.dedup();
            a.len()
        };
        return Reconciliation {
            conflicts: false,
            consolidated_belief: Some(first.content.trim().to_owned()),
            confidence: round2((0.7 + 0.05 * (agents as f64 - 1.0)).min(0.95)),
            needs_clarification: false,
            clarification_question: None,
            reasoning: format!(
                "Agreement: all {} observations say the same ({} agent{}).",
                obs.len(),
                agents,
                if agents == 1 { "" } else { "s" }
            ),
        };
    }
    // Every contradicting pair, with why.
    let mut clashes: Vec<(usize, usize, String)> = Vec::new();
    for i in 0..obs.len() {
        for j in i + 1..obs.len() {
            if let Some(why) = contradiction(&facts[i], &facts[j]) {
                clashes.push((i, j, why));
            }
        }
    }
    if clashes.is_empty() {
        return overlap(obs, &facts);
    }
    if let Some(reply) = temporal(obs, &clashes, params) {
        return reply;
    }
    weigh(label, obs, &facts, &clashes, params)
}

/// RC-4 partial overlap: the most specific observation stands; the others agree with it.
fn overlap(obs: &[Weighed], facts: &[Facts]) -> Reconciliation {
    let best = (0..obs.len())
        .max_by(|&a, &b| {
            facts[a]
                .specificity()
                .cmp(&facts[b].specificity())
                .then(b.cmp(&a))
        })
        .unwrap_or(0);
    let others: Vec<String> = (0..obs.len())
        .filter(|&i| i != best)
        .map(|i| quote(&obs[i]))
        .collect();
    Reconciliation {
        conflicts: false,
        consolidated_belief: Some(obs[best].content.trim().to_owned()),
        confidence: round2((0.6 + 0.3 * obs[best].weight).min(0.95)),
        needs_clarification: false,
        clarification_question: None,
        reasoning: format!(
            "Partial overlap, no conflict: {} is the most specific, and {} {} consistent with it \
             but less specific, so the specific one stands.",
            quote(&obs[best]),
            others.join(" and "),
            if others.len() == 1 { "is" } else { "are" }
        ),
    }
}

/// RC-4 temporal: the newest observation supersedes every older one it contradicts, when all
/// of them are at least the gap older.
fn temporal(
    obs: &[Weighed],
    clashes: &[(usize, usize, String)],
    params: &RcParams,
) -> Option<Reconciliation> {
    let at = |i: usize| time::days(&obs[i].timestamp);
    let newest = (0..obs.len())
        .filter_map(|i| at(i).map(|d| (i, d)))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
    let gap_days = params.temporal_gap_hours / 24.0;
    let older: Vec<usize> = clashes
        .iter()
        .filter_map(|(i, j, _)| {
            if *i == newest.0 {
                Some(*j)
            } else if *j == newest.0 {
                Some(*i)
            } else {
                None
            }
        })
        .collect();
    if older.is_empty()
        || clashes
            .iter()
            .any(|(i, j, _)| *i != newest.0 && *j != newest.0)
    {
        return None;
    }
    if !older
        .iter()
        .all(|&i| at(i).is_some_and(|d| newest.1 - d >= gap_days))
    {
        return None;
    }
    let n = &obs[newest.0];
    let date = |ts: &str| ts.get(..10).unwrap_or(ts).to_owned();
    let earlier: Vec<String> = older
        .iter()
        .map(|&i| format!("{} on {}", quote(&obs[i]), date(&obs[i].timestamp)))
        .collect();
    Some(Reconciliation {
        conflicts: false,
        consolidated_belief: Some(format!(
            "{} (as of {}; it supersedes the earlier {})",
            n.content.trim(),
            date(&n.timestamp),
            earlier.join(" and ")
        )),
        confidence: 0.8,
        needs_clarification: false,
        clarification_question: None,
        reasoning: format!(
            "Temporal: {} was observed on {}, at least {} hours after {}; both can be true at \
             their time, and the newer one supersedes.",
            quote(n),
            date(&n.timestamp),
            params.temporal_gap_hours,
            earlier.join(" and ")
        ),
    })
}

/// RC-4 by weight: authority first, then credibility, else a question for a human.
fn weigh(
    label: &str,
    obs: &[Weighed],
    facts: &[Facts],
    clashes: &[(usize, usize, String)],
    params: &RcParams,
) -> Reconciliation {
    // The strongest observation by authority, then credibility, then specificity, and its
    // strongest contradictor.
    let rank = |i: usize| (obs[i].authority, obs[i].credibility, facts[i].specificity());
    let order = |a: &usize, b: &usize| {
        let (x, y) = (rank(*a), rank(*b));
        x.0.total_cmp(&y.0)
            .then(x.1.total_cmp(&y.1))
            .then(x.2.cmp(&y.2))
            .then(b.cmp(a))
    };
    let top = (0..obs.len()).max_by(order).unwrap_or(0);
    let against: Vec<(usize, &str)> = clashes
        .iter()
        .filter_map(|(i, j, why)| match (*i == top, *j == top) {
            (true, _) => Some((*j, why.as_str())),
            (_, true) => Some((*i, why.as_str())),
            _ => None,
        })
        .collect();
    let (rival, why) = match against.iter().copied().max_by(|a, b| order(&a.0, &b.0)) {
        Some(r) => r,
        // The strongest contradicts no one: the clash is between weaker ones; take the first.
        None => (clashes[0].1, clashes[0].2.as_str()),
    };
    let top = if against.is_empty() {
        clashes[0].0
    } else {
        top
    };
    let (w, c) = (&obs[top], &obs[rival]);
    let da = w.authority - c.authority;
    let dc = w.credibility - c.credibility;
    let decided = if da.abs() >= params.authority_margin {
        Some((
            if da > 0.0 { top } else { rival },
            da.abs(),
            format!(
                "The sources' authority differs by {:.2} (≥ {:.2}), and authority outranks \
                 credibility",
                da.abs(),
                params.authority_margin
            ),
        ))
    } else if dc.abs() >= params.credibility_margin {
        Some((
            if dc > 0.0 { top } else { rival },
            dc.abs(),
            format!(
                "With equal authority, the agents' credibility differs by {:.2} (≥ {:.2})",
                dc.abs(),
                params.credibility_margin
            ),
        ))
    } else {
        None
    };
    let clash = format!(
        "{} (credibility {:.2}, authority {:.2}) and {} (credibility {:.2}, authority {:.2}) \
         contradict: {why}",
        quote(w),
        w.credibility,
        w.authority,
        quote(c),
        c.credibility,
        c.authority
    );
    match decided {
        Some((winner, margin, because)) => Reconciliation {
            conflicts: true,
            consolidated_belief: Some(obs[winner].content.trim().to_owned()),
            confidence: round2((0.55 + margin / 2.0).min(0.95)),
            needs_clarification: false,
            clarification_question: None,
            reasoning: format!(
                "{clash}. {because}, so {} is believed.",
                quote(&obs[winner])
            ),
        },
        None => Reconciliation {
            conflicts: true,
            consolidated_belief: None,
            confidence: 0.5,
            needs_clarification: true,
            clarification_question: Some(question(label, w, c)),
            reasoning: format!(
                "{clash}. Their weight is equal (authority within {:.2}, credibility within \
                 {:.2}), so neither can be chosen: a human must clarify.",
                params.authority_margin, params.credibility_margin
            ),
        },
    }
}

/// A question a human can answer in a word.
pub fn question(label: &str, a: &Weighed, b: &Weighed) -> String {
    // A topic named by one of its own observations adds nothing to the question.
    let named = label.trim_end_matches('…');
    let about = if a.content.trim().starts_with(named) || b.content.trim().starts_with(named) {
        String::new()
    } else {
        format!(" about “{}”", shorten(label, 60))
    };
    format!(
        "Which is correct{about}: “{}” ({}) or “{}” ({})?",
        shorten(&a.content, 100),
        a.agent,
        shorten(&b.content, 100),
        b.agent
    )
}

/// An answer that decides nothing: the reply could not be used.
pub fn unresolved(reason: &str, label: &str, obs: &[Weighed]) -> Reconciliation {
    let question = match obs {
        [a, b, ..] => question(label, a, b),
        _ => format!("What is true about “{}”?", shorten(label, 60)),
    };
    Reconciliation {
        conflicts: true,
        consolidated_belief: None,
        confidence: 0.0,
        needs_clarification: true,
        clarification_question: Some(question),
        reasoning: format!("Unresolved — needs clarification: {reason}."),
    }
}
