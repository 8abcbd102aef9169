//! The one answer to "is this debate over?", for the store, the live view and the SSE stream.
//! On the wire (API, database) it is one of `running | finished | interrupted | budget_exhausted`.

use serde::{Deserialize, Serialize};

use super::event::EventBody;
use crate::event::DebateEvent;
use crate::shared::CommonEvent;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DebateStatus {
    /// Agents are still being asked; more events will follow.
    #[default]
    Running,
    /// Ended with a decision. (ES-7: a judge's re-debate at the gate makes an escalation
    /// pipeline `running` again until its next decision.)
    Finished,
    /// The server stopped before the debate ended (SV-5); the log ends with `interrupted`.
    Interrupted,
    /// Ended early: the token budget ran out, and the decision is the cautious one.
    BudgetExhausted,
}

impl DebateStatus {
    pub const ALL: [DebateStatus; 4] = [
        DebateStatus::Running,
        DebateStatus::Finished,
        DebateStatus::Interrupted,
        DebateStatus::BudgetExhausted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DebateStatus::Running => "running",
            DebateStatus::Finished => "finished",
            DebateStatus::Interrupted => "interrupted",
            DebateStatus::BudgetExhausted => "budget_exhausted",
        }
    }

    /// The status named `s` on the wire, or `None`.
    pub fn parse(s: &str) -> Option<DebateStatus> {
        Self::ALL.into_iter().find(|d| d.as_str() == s)
    }

    /// Nothing more will be appended to the log.
    pub fn is_over(self) -> bool {
        self != DebateStatus::Running
    }

    /// The status a log has once `body` is appended to it: `Some` for a terminal event.
    pub fn after(body: &EventBody) -> Option<DebateStatus> {
        match body {
            EventBody::Debate(DebateEvent::Decision(o)) if o.budget_exhausted() => {
                Some(DebateStatus::BudgetExhausted)
            }
            EventBody::Debate(DebateEvent::Decision(_)) => Some(DebateStatus::Finished),
            EventBody::Common(CommonEvent::Interrupted { .. }) => Some(DebateStatus::Interrupted),
            _ => None,
        }
    }

    /// The status a log has once `bodies` are appended to it: the last one's when it is
    /// terminal, `running` when one of them reopens a decided log (ES-7) or resumes a log (RS-2:
    /// the process that stores the `resumed` event owns the debate), else unchanged (`None`).
    pub fn after_all<'a>(bodies: impl IntoIterator<Item = &'a EventBody>) -> Option<DebateStatus> {
        let mut reopened = false;
        let mut last = None;
        for b in bodies {
            reopened |= b.reopens() || matches!(b, EventBody::Common(CommonEvent::Resumed { .. }));
            last = Some(b);
        }
        last.and_then(Self::after)
            .or_else(|| reopened.then_some(DebateStatus::Running))
    }
}

impl std::fmt::Display for DebateStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::escalation::EsEvent;

    /// SV-5 / AG-2: the four statuses round-trip through their wire names, and only
    /// `running` is not over.
    #[test]
    fn statuses_round_trip_and_only_running_is_open() {
        let table = [
            ("running", false),
            ("finished", true),
            ("interrupted", true),
            ("budget_exhausted", true),
        ];
        for (name, over) in table {
            let s = DebateStatus::parse(name).expect(name);
            assert_eq!(s.as_str(), name);
            assert_eq!(s.is_over(), over, "{name}");
            assert_eq!(
                serde_json::to_string(&s).expect("json"),
                format!("\"{name}\"")
            );
        }
        assert_eq!(DebateStatus::parse("done"), None);
        assert_eq!(
            DebateStatus::after(&crate::run::interruption("x".into())),
            Some(DebateStatus::Interrupted)
        );
        assert_eq!(
            DebateStatus::after(&EventBody::Common(CommonEvent::Thinking {
                agent: "a".into(),
                round: 1
            })),
            None
        );
    }

    /// ES-7: a batch that sends a decided pipeline back to its agents makes it `running`
    /// again, unless the batch also ends the log; a batch of ordinary events changes nothing.
    #[test]
    fn a_redebate_reopens_unless_the_batch_ends_es_7() {
        use crate::escalation::{JudgeAction, JudgeRuling};
        let ruling = |action| {
            EventBody::Escalation(EsEvent::JudgeRuling(JudgeRuling {
                challenge: "CH-001".into(),
                judge: "ada".into(),
                at: 0,
                level: 5,
                action,
            }))
        };
        let redebate = ruling(JudgeAction::Redebate {
            context: "new facts".into(),
        });
        let thinking = EventBody::Common(CommonEvent::Thinking {
            agent: "financial".into(),
            round: 2,
        });
        let end = crate::run::interruption("x".into());
        let confirm = ruling(JudgeAction::Confirm);
        let table: [(Vec<&EventBody>, Option<DebateStatus>); 5] = [
            (vec![], None),
            (vec![&thinking], None),
            (vec![&confirm, &thinking], None),
            (vec![&redebate, &thinking], Some(DebateStatus::Running)),
            (vec![&redebate, &end], Some(DebateStatus::Interrupted)),
        ];
        for (batch, want) in table {
            let kinds: Vec<&str> = batch.iter().map(|b| b.kind()).collect();
            assert_eq!(DebateStatus::after_all(batch), want, "{kinds:?}");
        }
    }
}
