//! RC-2: how much each observation counts — its agent's credibility (from the track record,
//! 0.5 with too few points) and its source's authority (0.5 when none was given), where the
//! authority outranks the credibility: an earnings call beats a forum rumour whatever the
//! agents' records. The weight shown is 0.8 · authority + 0.2 · credibility; RC-4 compares
//! authorities first ([`super::rules`]).

use super::types::{Observation, Weight};
use super::vectors::round3;
use crate::credibility::CredibilitySnapshot;

/// The authority of an observation without a named source.
pub const DEFAULT_AUTHORITY: f64 = 0.5;
/// The credibility of an agent without enough record (RC-2's neutral prior).
pub const DEFAULT_CREDIBILITY: f64 = 0.5;

/// One agent's credibility as the reconciliation uses it, and whether a record backs it.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentCredibility {
    pub agent: String,
    pub score: f64,
    pub known: bool,
}

/// The credibilities a logged snapshot gives, by agent (rounded as the what-if panels use
/// them).
pub fn from_snapshot(snapshot: Option<&CredibilitySnapshot>) -> Vec<AgentCredibility> {
    snapshot.map_or_else(Vec::new, |s| {
        s.agents
            .iter()
            .map(|a| AgentCredibility {
                agent: a.agent.clone(),
                score: round3(a.credibility.weight()),
                known: a.credibility.score.is_some(),
            })
            .collect()
    })
}

/// RC-2: the weights of `members`, in their order.
pub fn weigh(members: &[&Observation], credibility: &[AgentCredibility]) -> Vec<Weight> {
    members
        .iter()
        .map(|o| {
            let cred = credibility.iter().find(|c| c.agent == o.agent);
            let (c, c_why) = match cred {
                Some(c) if c.known => (c.score, format!("credibility {:.2} from its track record", c.score)),
                _ => (
                    DEFAULT_CREDIBILITY,
                    format!("credibility {DEFAULT_CREDIBILITY:.2} (too little track record: the neutral default)"),
                ),
            };
            let (a, a_why) = match &o.source_authority {
                Some(auth) => (
                    auth.score,
                    match &auth.source {
                        Some(s) => format!("authority {:.2} ({s})", auth.score),
                        None => format!("authority {:.2}", auth.score),
                    },
                ),
                None => (
                    DEFAULT_AUTHORITY,
                    format!("authority {DEFAULT_AUTHORITY:.2} (no source given)"),
                ),
            };
            Weight {
                observation: o.id.clone(),
                agent: o.agent.clone(),
                credibility: c,
                authority: a,
                weight: round3(0.8 * a + 0.2 * c),
                why: format!("{a_why}; {c_why}"),
            }
        })
        .collect()
}

/// RC-2: a named source's authority, when the request gives a name instead of a number. The
/// table is documented in the README; an unknown name counts as 0.5.
pub fn authority_of(source: &str) -> f64 {
    const TIERS: [(f64, &[&str]); 6] = [
        (
            0.95,
            &[
                "filing",
                "10-k",
                "10-q",
                "audited",
                "regulator",
                "court record",
                "official record",
            ],
        ),
        (
            0.9,
            &[
                "earnings call",
                "press release",
                "ceo",
                "cfo",
                "annual report",
                "official",
            ],
        ),
        (
            0.75,
            &[
                "reuters",
                "bloomberg",
                "news",
                "newspaper",
                "journal",
                "calendar",
                "minutes",
            ],
        ),
        (
            0.6,
            &["analyst", "research", "report", "survey", "email", "memo"],
        ),
        (0.35, &["blog", "podcast", "hearsay", "overheard", "chat"]),
        (
            0.2,
            &[
                "forum",
                "reddit",
                "rumor",
                "rumour",
                "twitter",
                "tweet",
                "social media",
                "anonymous",
            ],
        ),
    ];
    let s = source.to_lowercase();
    // The lowest tier named wins: "a reddit post about the earnings call" is a rumour.
    TIERS
        .iter()
        .rev()
        .find(|(_, words)| words.iter().any(|w| s.contains(w)))
        .map_or(DEFAULT_AUTHORITY, |(score, _)| *score)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reconcile::types::Authority;

    fn obs(id: &str, agent: &str, authority: Option<(f64, &str)>) -> Observation {
        Observation {
            id: id.into(),
            agent: agent.into(),
            content: "x".into(),
            topic_hint: None,
            timestamp: "2026-01-05T09:00:00Z".into(),
            source_authority: authority.map(|(score, s)| Authority {
                score,
                source: Some(s.into()),
            }),
            conflicts_with: vec![],
        }
    }

    /// RC-2 (seed 003, FR-003.6): the CEO's earnings call outweighs a Reddit rumour even when
    /// the rumour's agent has the better record; agents without a record count 0.5.
    #[test]
    fn authority_outranks_credibility() {
        let a = obs(
            "o1",
            "agent_a",
            Some((authority_of("CEO earnings call"), "CEO earnings call")),
        );
        let b = obs(
            "o2",
            "agent_b",
            Some((authority_of("Reddit rumor"), "Reddit rumor")),
        );
        let cred = [
            AgentCredibility {
                agent: "agent_a".into(),
                score: 0.5,
                known: true,
            },
            AgentCredibility {
                agent: "agent_b".into(),
                score: 0.8,
                known: true,
            },
        ];
        let w = weigh(&[&a, &b], &cred);
        assert_eq!((w[0].authority, w[1].authority), (0.9, 0.2));
        assert!(w[0].weight > w[1].weight, "{w:?}");
        assert!(
            w[1].why.contains("Reddit rumor") && w[1].why.contains("0.80"),
            "{}",
            w[1].why
        );
        let w = weigh(&[&obs("o3", "new_agent", None)], &cred);
        assert_eq!(
            (w[0].credibility, w[0].authority, w[0].weight),
            (0.5, 0.5, 0.5)
        );
        assert!(w[0].why.contains("neutral default"), "{}", w[0].why);
    }

    #[test]
    fn named_sources_map_to_documented_tiers() {
        let table = [
            ("SEC 10-K filing", 0.95),
            ("CEO earnings call", 0.9),
            ("Reuters", 0.75),
            ("sell-side analyst note", 0.6),
            ("a personal blog", 0.35),
            ("Reddit rumor", 0.2),
            ("a reddit post about the earnings call", 0.2),
            ("my neighbour", 0.5),
        ];
        for (source, want) in table {
            assert_eq!(authority_of(source), want, "{source}");
        }
    }
}
