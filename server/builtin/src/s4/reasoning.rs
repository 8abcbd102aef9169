//! How every S4 role writes its reasoning: the stance and numbers first, a parseable last line,
//! and features cited as the query says them.

use protocol::{Decision, Position};

use crate::pct;
use crate::reading::features::Hit;
use crate::reading::text::join_list;

/// The numbers and stance are chosen first; the reasoning ends with a parseable "My call: X.".
pub(crate) fn finish(
    mut s: Vec<String>,
    decision: Decision,
    confidence: i32,
    risk: i32,
) -> Position {
    s.push(format!("My call: {decision}."));
    Position {
        decision,
        confidence: pct(confidence),
        risk: pct(risk),
        reasoning: s.join(" "),
    }
}

/// `is about weapons or explosives ("pipe bomb") and seeks to make or build it ("build")`.
pub(crate) fn cites(hits: &[&Hit], n: usize) -> String {
    let items: Vec<String> = hits.iter().take(n).map(|h| h.cite()).collect();
    join_list(&items)
}
