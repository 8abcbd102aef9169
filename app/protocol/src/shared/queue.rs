//! The request queue every protocol machine shares: requests waiting to be handed out, requests
//! handed out and not yet answered (each with what the machine must remember about it), and the
//! `thinking` event that announces each one (SV-1). Ids are handed out in order from 0, unique
//! within a debate.

use std::collections::VecDeque;

use super::events::CommonEvent;
use super::request::{Query, Request};
use crate::error::ProtocolError;
use crate::types::Role;

/// `T` is the protocol's task; `P` is what the machine needs back with the reply (an agent
/// index, a pending step…).
#[derive(Debug)]
pub struct RequestQueue<T, P> {
    waiting: VecDeque<(Request<T>, P)>,
    outstanding: Vec<(u32, P)>,
    next_id: u32,
}

impl<T, P> Default for RequestQueue<T, P> {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl<T: Query, P> RequestQueue<T, P> {
    /// FK-1: the requests not handed out yet give a fork's note after the query.
    pub fn add_note(&mut self, note: &str) {
        for (req, _) in &mut self.waiting {
            req.task.add_note(note);
        }
    }
}

impl<T, P> RequestQueue<T, P> {
    pub fn with_capacity(n: usize) -> Self {
        RequestQueue {
            waiting: VecDeque::with_capacity(n),
            outstanding: Vec::with_capacity(n),
            next_id: 0,
        }
    }

    /// Queues `task` for `agent` (in `role`) in `round`; returns the request's id.
    pub fn push(&mut self, agent: &str, role: Role, round: u16, task: T, pending: P) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        self.waiting.push_back((
            Request {
                id,
                agent: agent.to_owned(),
                role,
                round,
                task,
            },
            pending,
        ));
        id
    }

    /// Hands out the next request, remembers it as outstanding and logs that its agent is
    /// thinking.
    pub fn next<E: From<CommonEvent>>(&mut self, events: &mut VecDeque<E>) -> Option<Request<T>> {
        let (req, pending) = self.waiting.pop_front()?;
        self.outstanding.push((req.id, pending));
        events.push_back(
            CommonEvent::Thinking {
                agent: req.agent.clone(),
                round: req.round,
            }
            .into(),
        );
        Some(req)
    }

    /// What was remembered for outstanding request `id`, left in place (a reply of the wrong
    /// shape changes nothing).
    pub fn pending(&self, id: u32) -> Result<&P, ProtocolError> {
        self.outstanding
            .iter()
            .find(|(rid, _)| *rid == id)
            .map(|(_, p)| p)
            .ok_or(ProtocolError::UnknownRequest(id))
    }

    /// Request `id` is answered: it is no longer outstanding.
    pub fn take(&mut self, id: u32) -> Result<P, ProtocolError> {
        let slot = self
            .outstanding
            .iter()
            .position(|(rid, _)| *rid == id)
            .ok_or(ProtocolError::UnknownRequest(id))?;
        Ok(self.outstanding.swap_remove(slot).1)
    }

    /// A request has been handed out and not answered yet.
    pub fn awaiting_reply(&self) -> bool {
        !self.outstanding.is_empty()
    }

    /// Nothing waiting and nothing outstanding: the step is complete.
    pub fn is_idle(&self) -> bool {
        self.waiting.is_empty() && self.outstanding.is_empty()
    }

    /// FK-1: the requests (waiting or handed out) whose remembered `P` matches are dropped: a
    /// fork removed their agent.
    pub fn drop_where(&mut self, matches: impl Fn(&P) -> bool) {
        self.waiting.retain(|(_, p)| !matches(p));
        self.outstanding.retain(|(_, p)| !matches(p));
    }

    /// The budget ran out or the debate ended: nothing more is asked or awaited.
    pub fn clear(&mut self) {
        self.waiting.clear();
        self.outstanding.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[derive(Debug)]
    struct Ask(Arc<str>);

    impl Query for Ask {
        fn query(&self) -> &Arc<str> {
            &self.0
        }

        fn query_mut(&mut self) -> &mut Arc<str> {
            &mut self.0
        }
    }

    #[test]
    fn requests_are_numbered_announced_and_answered_once() {
        let mut q = RequestQueue::default();
        let task = || Ask("q".into());
        assert_eq!(q.push("a", Role::Safety, 1, task(), 'a'), 0);
        assert_eq!(q.push("b", Role::Safety, 1, task(), 'b'), 1);
        let mut events: VecDeque<CommonEvent> = VecDeque::new();
        let first = q.next(&mut events).expect("a request waits");
        assert_eq!((first.id, first.agent.as_str()), (0, "a"));
        assert!(matches!(&events[0], CommonEvent::Thinking { agent, round: 1 } if agent == "a"));
        assert_eq!(q.pending(0), Ok(&'a'));
        assert_eq!(q.pending(1), Err(ProtocolError::UnknownRequest(1)));
        assert_eq!(q.take(0), Ok('a'));
        assert_eq!(q.take(0), Err(ProtocolError::UnknownRequest(0)));
        assert!(!q.is_idle());
        q.clear();
        assert!(q.is_idle());
        assert!(q.next(&mut events).is_none());
    }
}
