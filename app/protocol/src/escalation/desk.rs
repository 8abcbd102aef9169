//! ES-5: the judges' queue. Every judge holds at most [`CAPACITY`] challenges at once; a new one
//! goes to the least-loaded judge (the first in sign-up order on a tie). When every judge is
//! full — or there are none — the challenge overflows: straight to the level-4 fallback, or, for
//! a supporting dispute, deferred to the next gate. The desk lists what it holds by priority,
//! then by arrival.

use serde::{Deserialize, Serialize};

use super::assumptions::Priority;

pub use crate::shared::judging::Admission;

/// ES-5: the most challenges one judge holds at once.
pub const CAPACITY: usize = 3;

/// One challenge a judge holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Held {
    /// `<debate id>/<challenge id>`: challenges of every debate share the desk.
    pub key: String,
    pub judge: String,
    pub priority: Priority,
    /// When it arrived (the order within a priority).
    pub since: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Desk {
    pub judges: Vec<String>,
    pub held: Vec<Held>,
}

impl Desk {
    pub fn new(judges: Vec<String>) -> Desk {
        Desk {
            judges,
            held: Vec::new(),
        }
    }

    /// How many challenges `judge` holds.
    pub fn load(&self, judge: &str) -> usize {
        self.held.iter().filter(|h| h.judge == judge).count()
    }

    /// Finds a judge for a challenge, or says where it goes instead.
    pub fn admit(&mut self, key: &str, priority: Priority, since: u64) -> Admission {
        if let Some(h) = self.held.iter().find(|h| h.key == key) {
            return Admission::Assigned(h.judge.clone());
        }
        let free = self
            .judges
            .iter()
            .map(|j| (self.load(j), j))
            .filter(|(n, _)| *n < CAPACITY)
            .min_by_key(|(n, _)| *n)
            .map(|(_, j)| j.clone());
        match free {
            Some(judge) => {
                self.held.push(Held {
                    key: key.to_owned(),
                    judge: judge.clone(),
                    priority,
                    since,
                });
                Admission::Assigned(judge)
            }
            None if priority == Priority::Supporting => Admission::Deferred,
            None => Admission::Overflow,
        }
    }

    /// The challenge left the judge (ruled, timed out, or its debate ended).
    pub fn release(&mut self, key: &str) {
        self.held.retain(|h| h.key != key);
    }

    /// What the desk holds, most urgent first.
    pub fn queue(&self) -> Vec<&Held> {
        let mut all: Vec<&Held> = self.held.iter().collect();
        all.sort_by(|a, b| a.priority.cmp(&b.priority).then(a.since.cmp(&b.since)));
        all
    }
}
