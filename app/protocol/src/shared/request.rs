//! One request to an agent, whatever its protocol: `T` is what the agent is asked (a protocol's
//! own task inside its machine, the envelope's `Task` once it leaves it).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::types::Role;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request<T> {
    /// Unique within a debate; the reply is fed back under this id.
    pub id: u32,
    pub agent: String,
    pub role: Role,
    pub round: u16,
    pub task: T,
}

impl<T> Request<T> {
    /// The same request with its task wrapped (a protocol's task into the envelope's).
    pub fn map<U>(self, wrap: impl FnOnce(T) -> U) -> Request<U> {
        Request {
            id: self.id,
            agent: self.agent,
            role: self.role,
            round: self.round,
            task: wrap(self.task),
        }
    }
}

/// Every task gives the agent the debate's query.
pub trait Query {
    fn query(&self) -> &Arc<str>;

    /// FK-1: the query as this task gives it, to add a fork's note to.
    fn query_mut(&mut self) -> &mut Arc<str>;

    /// FK-1: a fork's note, after the query.
    fn add_note(&mut self, note: &str) {
        let query = self.query_mut();
        *query = Arc::from(format!("{query}\n\n{note}"));
    }
}
