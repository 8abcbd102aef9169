//! What a protocol machine asks of an agent and what the agent answers. Each protocol owns its
//! tasks and replies (`S4Task` and `S4Reply` in `s4/`, …); this envelope wraps them, one variant
//! per protocol, so the runner and the `Agent` interface (AG-1) stay protocol-blind. Each task
//! carries exactly what the agent may see at that step, and nothing more. The wire does not show
//! the wrapping: a task is `{"kind": "analyse", …}` as before protocols owned their tasks.

use std::sync::Arc;

use serde::de::{Deserializer, Error};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::collapse::{WcReply, WcTask};
use super::escalation::{EsReply, EsTask};
use super::reconcile::{RcReply, RcTask};
use super::round_robin::{RrReply, RrTask};
pub use super::s4::ChallengeSeen;
use super::s4::{S4Reply, S4Task};
use super::shared::{Query, Request};

/// A request as the runner hands it to an agent, whichever protocol asks.
pub type AgentRequest = Request<Task>;

impl Request<Task> {
    /// FK-1: whether the request is asked of agent `agent`, or is an S4 challenge aimed at it.
    pub fn concerns(&self, agent: &str) -> bool {
        self.agent == agent
            || matches!(&self.task, Task::S4(S4Task::Challenge { target, .. }) if target == agent)
    }
}

/// A task for an agent, whichever protocol asks it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Task {
    S4(S4Task),
    RoundRobin(RrTask),
    Collapse(WcTask),
    Escalation(EsTask),
    Reconcile(RcTask),
}

macro_rules! each {
    ($value:expr, $enum:ident, $x:ident => $e:expr) => {
        match $value {
            $enum::S4($x) => $e,
            $enum::RoundRobin($x) => $e,
            $enum::Collapse($x) => $e,
            $enum::Escalation($x) => $e,
            $enum::Reconcile($x) => $e,
        }
    };
}

impl Query for Task {
    fn query(&self) -> &Arc<str> {
        each!(self, Task, t => t.query())
    }

    fn query_mut(&mut self) -> &mut Arc<str> {
        each!(self, Task, t => t.query_mut())
    }
}

impl Task {
    /// The debate's query, as this task gives it.
    pub fn query(&self) -> &Arc<str> {
        Query::query(self)
    }

    /// FK-1: a fork's note, after the query.
    pub fn add_note(&mut self, note: &str) {
        Query::add_note(self, note);
    }

    /// The reply variant this task expects, as named in [`AgentReply::kind`].
    pub fn expects(&self) -> &'static str {
        each!(self, Task, t => t.expects())
    }
}

/// What an agent answers, whichever protocol asked. The variant must match the task it was asked
/// ([`Task::expects`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AgentReply {
    S4(S4Reply),
    RoundRobin(RrReply),
    Collapse(WcReply),
    Escalation(EsReply),
    Reconcile(RcReply),
}

impl AgentReply {
    pub fn kind(&self) -> &'static str {
        each!(self, AgentReply, r => r.kind())
    }
}

/// Each protocol's tasks and replies into the envelope's and back out of it, and the envelope's
/// readers: a task or reply is read by the enum of the protocol that owns its `kind`.
macro_rules! wraps {
    ($($variant:ident: $task:ident, $reply:ident;)*) => {
    $(
        impl From<$task> for Task {
            fn from(t: $task) -> Self {
                Task::$variant(t)
            }
        }

        impl TryFrom<Task> for $task {
            type Error = Task;
            fn try_from(t: Task) -> Result<Self, Task> {
                match t {
                    Task::$variant(t) => Ok(t),
                    other => Err(other),
                }
            }
        }

        impl From<$reply> for AgentReply {
            fn from(r: $reply) -> Self {
                AgentReply::$variant(r)
            }
        }
    )*

        impl<'de> Deserialize<'de> for Task {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let owners: &[Owner<Task>] =
                    &[$(($task::KINDS, |v| $task::deserialize(v).map(Task::$variant)),)*];
                by_kind(Value::deserialize(d)?, owners, "task")
            }
        }

        impl<'de> Deserialize<'de> for AgentReply {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let owners: &[Owner<AgentReply>] =
                    &[$(($reply::KINDS, |v| $reply::deserialize(v).map(AgentReply::$variant)),)*];
                by_kind(Value::deserialize(d)?, owners, "reply")
            }
        }
    };
}

wraps! {
    S4: S4Task, S4Reply;
    RoundRobin: RrTask, RrReply;
    Collapse: WcTask, WcReply;
    Escalation: EsTask, EsReply;
    Reconcile: RcTask, RcReply;
}

/// The wire's `kind`, read before its owner's enum reads the rest: every task kind belongs to one
/// protocol, and so does every reply kind.
fn kind_of<E: Error>(value: &Value) -> Result<String, E> {
    match value.get("kind") {
        Some(Value::String(kind)) => Ok(kind.clone()),
        Some(_) => Err(E::custom("kind: expected a string")),
        None => Err(E::missing_field("kind")),
    }
}

/// One protocol's kinds, and how it reads a value of one of them.
type Owner<T> = (
    &'static [&'static str],
    fn(Value) -> Result<T, serde_json::Error>,
);

/// Reads `value` with the owner of its `kind`: `owners` pairs each protocol's kinds with how that
/// protocol reads them; `what` names the thing read in the error for an unknown kind.
fn by_kind<T, E: Error>(value: Value, owners: &[Owner<T>], what: &str) -> Result<T, E> {
    let kind = kind_of::<E>(&value)?;
    let (_, read) = owners
        .iter()
        .find(|(kinds, _)| kinds.contains(&kind.as_str()))
        .ok_or_else(|| E::custom(format!("unknown {what} kind `{kind}`")))?;
    read(value).map_err(E::custom)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// Every `kind` has one owner, among tasks and among replies.
    #[test]
    fn every_kind_has_one_owner() {
        for kinds in [
            [
                S4Task::KINDS,
                RrTask::KINDS,
                WcTask::KINDS,
                EsTask::KINDS,
                RcTask::KINDS,
            ],
            [
                S4Reply::KINDS,
                RrReply::KINDS,
                WcReply::KINDS,
                EsReply::KINDS,
                RcReply::KINDS,
            ],
        ] {
            let mut seen = HashSet::new();
            for k in kinds.iter().flat_map(|k| k.iter()) {
                assert!(seen.insert(*k), "`{k}` is claimed twice");
            }
        }
    }

    #[test]
    fn tasks_and_replies_read_as_they_are_written() {
        let task = Task::S4(S4Task::Analyse { query: "q".into() });
        let text = serde_json::to_string(&task).expect("json");
        assert_eq!(text, r#"{"kind":"analyse","query":"q"}"#);
        assert_eq!(serde_json::from_str::<Task>(&text).expect("read"), task);
        let table: [(&str, &str); 3] = [
            (r#"{"kind": "dance"}"#, "unknown task kind `dance`"),
            (r#"{"query": "q"}"#, "missing field `kind`"),
            (r#"{"kind": "turn", "query": "q"}"#, "missing field `turn`"),
        ];
        for (text, want) in table {
            let err = serde_json::from_str::<Task>(text).expect_err(text);
            assert!(err.to_string().contains(want), "{text}: {err}");
        }
        let err = serde_json::from_str::<AgentReply>(r#"{"kind": "shrug"}"#).expect_err("shrug");
        assert!(
            err.to_string().contains("unknown reply kind `shrug`"),
            "{err}"
        );
    }
}
