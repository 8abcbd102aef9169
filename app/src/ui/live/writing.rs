//! LM-3: replies being written, as the live page shows them: the pieces of each request's reply
//! in arrival order, until the reply's events are logged (`done`), when the logged reply takes
//! their place. Never part of the log: a reload shows only what was logged.

use serde::Deserialize;

/// One `event: delta` message.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Delta {
    pub request: u32,
    pub agent: String,
    #[serde(default)]
    pub text: String,
    /// The reply to this request is logged: its streamed text goes.
    #[serde(default)]
    pub done: bool,
}

/// A reply being written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Writing {
    pub request: u32,
    pub agent: String,
    pub text: String,
}

/// The most characters of one reply kept for display (its end, as it grows).
pub const SHOWN: usize = 600;

/// Folds a delta into what is being written.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub fn apply(writing: &mut Vec<Writing>, d: Delta) {
    if d.done {
        writing.retain(|w| w.request != d.request);
        return;
    }
    match writing.iter_mut().find(|w| w.request == d.request) {
        Some(w) => w.text.push_str(&d.text),
        None => writing.push(Writing {
            request: d.request,
            agent: d.agent,
            text: d.text,
        }),
    }
}

/// What agent `agent` is writing now, the end of each reply, one per paragraph.
pub fn of_agent(writing: &[Writing], agent: &str) -> String {
    let mut out = String::new();
    for w in writing.iter().filter(|w| w.agent == agent) {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        let n = w.text.chars().count();
        out.extend(w.text.chars().skip(n.saturating_sub(SHOWN)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(request: u32, agent: &str, text: &str, done: bool) -> Delta {
        Delta {
            request,
            agent: agent.into(),
            text: text.into(),
            done,
        }
    }

    /// LM-3: pieces grow per request, two requests of one agent side by side; `done` removes
    /// exactly its request's text.
    #[test]
    fn pieces_grow_until_their_reply_is_logged_lm_3() {
        let mut w = Vec::new();
        apply(&mut w, d(3, "utility", "{\"argues", false));
        apply(&mut w, d(4, "utility", "{\"text\"", false));
        apply(&mut w, d(3, "utility", "_for\"", false));
        apply(&mut w, d(5, "safety", "x", false));
        assert_eq!(of_agent(&w, "utility"), "{\"argues_for\"\n\n{\"text\"");
        apply(&mut w, d(3, "utility", "", true));
        assert_eq!(of_agent(&w, "utility"), "{\"text\"");
        assert_eq!(of_agent(&w, "safety"), "x");
        apply(&mut w, d(9, "safety", "", true));
        assert_eq!(w.len(), 2, "a done for nothing changes nothing");
        let long = "y".repeat(SHOWN + 50);
        apply(&mut w, d(6, "accuracy", &long, false));
        assert_eq!(
            of_agent(&w, "accuracy").len(),
            SHOWN,
            "the end of a long reply"
        );
    }
}
