//! What the API answers: ids, errors, debate summaries and details, and the QL-1/QL-2 figures.

use serde::{Deserialize, Serialize};

use crate::protocol::{DebateStatus, Event};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Created {
    pub id: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    pub error: String,
}

/// FK-3: one fork of a debate, as `GET /api/debates/{id}/forks` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ForkSummary {
    pub id: String,
    /// The parent's event the fork goes on after.
    pub after_seq: u64,
    /// The seed its agents answer with.
    pub seed: u64,
    pub status: DebateStatus,
    pub decision: Option<String>,
    pub created_at: String,
    /// FK-3: the parent's first event after the fork point that the fork did not write the same
    /// (where it went another way); absent while the fork has written only what the parent did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diverged_at: Option<u64>,
}

/// FK-3: where a fork (`child`, whose event n + 1 copies the parent's event n) first went
/// another way than its `parent` after event `after_seq`: the parent's event number, or `None`
/// while every event the fork wrote is the parent's (or the parent's log ended first).
pub fn divergence(parent: &[Event], child: &[Event], after_seq: u64) -> Option<u64> {
    let from = after_seq as usize;
    child
        .iter()
        .skip(from + 1)
        .zip(parent.iter().skip(from))
        .find(|(c, p)| c.body != p.body)
        .map(|(_, p)| p.seq)
        .or_else(|| {
            // The fork wrote more than the parent had: it differs where the parent stopped.
            let written = child.len().saturating_sub(1);
            (written > parent.len()).then_some(parent.len() as u64 + 1)
        })
}

/// FK-3: a debate's forks, and how many reached its decision.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Forks {
    /// The debate's own decision, once it decided.
    pub decision: Option<String>,
    /// Newest first, at most 200.
    pub forks: Vec<ForkSummary>,
    /// Forks that reached the debate's decision, of those that decided.
    pub held: u32,
    pub decided: u32,
    /// "3 of 4 forks reached the same decision (ACT)".
    pub summary: String,
}

impl Forks {
    /// Counts, against `decision`, the forks that decided.
    pub fn of(decision: Option<String>, forks: Vec<ForkSummary>) -> Forks {
        let decided = forks.iter().filter(|f| f.decision.is_some()).count() as u32;
        let held = forks
            .iter()
            .filter(|f| f.decision.is_some() && f.decision == decision)
            .count() as u32;
        let summary = match (&decision, forks.len()) {
            (_, 0) => "No forks yet.".to_owned(),
            (None, n) => format!("{n} fork(s); this debate has not decided yet."),
            (Some(d), _) => format!("{held} of {decided} forks reached the same decision ({d})."),
        };
        Forks {
            decision,
            forks,
            held,
            decided,
            summary,
        }
    }
}

/// One row of `GET /api/debates`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct DebateSummary {
    pub id: String,
    pub query: String,
    pub protocol: String,
    /// `running | finished | interrupted | budget_exhausted`.
    pub status: DebateStatus,
    /// The decision's label: `ACT`/`WARN`/`REFUSE` (S4), `BUY`/`SELL`/`HOLD` (RR), or the WC
    /// outcome (`ACCEPTED`, `CONSENSUS_REACHED`, …).
    pub decision: Option<String>,
    pub created_at: String,
    /// QL-1: whether the debate changed what a plain vote of the first positions decided
    /// (absent until it decides, and for debates decided before the baseline existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_outcome: Option<bool>,
}

/// QL-2: one run `consilium eval` saved, as `GET /api/eval` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SavedEval {
    /// The file's name in the server's eval directory.
    pub file: String,
    pub config: crate::protocol::eval::EvalConfig,
    pub started_at: String,
    pub updated_at: String,
    pub wall_ms: u64,
    pub items: usize,
    pub report: crate::protocol::eval::Report,
}

/// QL-1 over every stored debate: `GET /api/debates/baseline`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BaselineCounts {
    /// Decided debates whose decision carries a vote baseline.
    pub decided: u64,
    /// Of those, the debates that changed the plain vote's outcome.
    pub changed: u64,
}

/// `GET /api/debates/{id}`: the summary plus the whole event log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct DebateDetail {
    pub id: String,
    pub query: String,
    pub protocol: String,
    /// `running | finished | interrupted | budget_exhausted`.
    pub status: DebateStatus,
    pub decision: Option<String>,
    pub seed: u64,
    pub created_at: String,
    pub events: Vec<Event>,
    /// The server's signature over the log's end, once it has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<crate::audit::signature::LogSignature>,
}

#[cfg(test)]
mod tests {
    use super::divergence;
    use crate::protocol::chain::seal_all;
    use crate::protocol::shared::CommonEvent;
    use crate::protocol::EventBody;

    fn thinking(agent: &str) -> EventBody {
        EventBody::Common(CommonEvent::Thinking {
            agent: agent.into(),
            round: 1,
        })
    }

    /// FK-3: where a fork (its event n + 1 the parent's event n) first went another way.
    #[test]
    fn where_a_fork_went_another_way_fk_3() {
        let parent = seal_all(vec![
            thinking("a"),
            thinking("b"),
            thinking("c"),
            thinking("d"),
        ]);
        let fork = |rest: &[&str]| {
            let mut bodies = vec![EventBody::Common(CommonEvent::Resumed {
                after_seq: 0,
                process: "fork".into(),
                reason: "stands in for forked_from".into(),
            })];
            bodies.extend(["a", "b"].iter().chain(rest).map(|a| thinking(a)));
            seal_all(bodies)
        };
        let table: [(&[&str], Option<u64>); 5] = [
            (&["c", "d"], None),
            (&["c"], None),
            (&["x", "d"], Some(3)),
            (&["c", "x"], Some(4)),
            (&["c", "d", "e"], Some(5)),
        ];
        for (rest, want) in table {
            assert_eq!(divergence(&parent, &fork(rest), 2), want, "{rest:?}");
        }
    }
}
