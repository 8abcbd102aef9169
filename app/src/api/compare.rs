//! FK-3: a debate and its forks side by side — one column each, a row per agent per round with
//! the position the agent held there, the first row where a fork went another way, and each
//! column's decision and vote baseline. Computed from the logs alone, the same way for the API
//! and the audit page.

use serde::{Deserialize, Serialize};

use crate::protocol::run::ForkChanges;
use crate::protocol::shared::CommonEvent;
use crate::protocol::{DebateView, Event, EventBody};

/// The most forks one comparison shows beside their parent.
pub const MAX_COMPARED: usize = 8;

/// `GET /api/debates/{id}/compare`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Comparison {
    /// The parent first, then its forks (newest first, at most 8).
    pub columns: Vec<CompareColumn>,
    /// One per agent per round, in the order the debates held them.
    pub rows: Vec<CompareRow>,
    /// "3 of 4 forks reached the same decision (ACT)."
    pub summary: String,
}

/// One debate of a comparison.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CompareColumn {
    pub id: String,
    /// "this debate", or what the fork changed: "after event 12 · seed 3 · safety: openai/m".
    pub title: String,
    /// The parent's event a fork goes on after (none for the parent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_seq: Option<u64>,
    /// Its decision's label, once it decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// QL-1: what a plain vote of its first positions decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// A fork's decision is the parent's.
    pub same: bool,
    /// FK-3: the parent's first event after the fork point that the fork did not write the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diverged_at: Option<u64>,
    /// The first row (an index into `rows`) where the fork's position is not the parent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_row: Option<usize>,
}

/// One agent in one round, across the compared debates.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CompareRow {
    pub round: u16,
    /// The round's name ("Independent analysis", …).
    pub name: String,
    pub agent: String,
    /// One per column: the agent's position there, if it held one in that round.
    pub cells: Vec<Option<CompareCell>>,
}

/// What an agent held in a round of one debate.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CompareCell {
    /// `ACT`, `BUY`, a stance, a score…
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<u8>,
    /// A fork's cell that is not the parent's, in its label or its confidence (always false in
    /// the parent's column).
    pub differs: bool,
}

/// What a column shows of one debate's log.
struct Folded {
    view: DebateView,
    cells: Vec<((u16, String), (String, CompareCell))>,
}

fn fold(events: &[Event]) -> Folded {
    let view = DebateView::from_events(events);
    let mut cells: Vec<((u16, String), (String, CompareCell))> = Vec::new();
    for round in &view.rounds {
        for card in &round.cards {
            let label = card
                .decision
                .map(|d| d.as_str().to_owned())
                .or_else(|| card.label.clone());
            let Some(label) = label else { continue };
            let key = (round.round, card.agent.clone());
            let cell = CompareCell {
                label,
                confidence: card.confidence,
                differs: false,
            };
            // An agent's last position in a round is the one it held there.
            match cells.iter_mut().find(|(k, _)| *k == key) {
                Some((_, (_, c))) => *c = cell,
                None => cells.push((key, (round.name.clone(), cell))),
            }
        }
    }
    Folded { view, cells }
}

/// What a fork changed, in a few words.
fn title(after_seq: u64, changes: &ForkChanges) -> String {
    let mut parts = vec![format!("after event {after_seq}")];
    parts.extend(changes.describe());
    parts.join(" · ")
}

/// FK-3: `parent` (debate `parent_id`'s log) beside each fork's log, `forks` being `(id, log)`.
pub fn compare(parent_id: &str, parent: &[Event], forks: &[(String, Vec<Event>)]) -> Comparison {
    let mut folded = vec![fold(parent)];
    folded.extend(forks.iter().map(|(_, log)| fold(log)));
    // Rows: the parent's (round, agent) order, then any a fork alone has.
    let mut keys: Vec<((u16, String), String)> = Vec::new();
    for f in &folded {
        for (key, (name, _)) in &f.cells {
            if !keys.iter().any(|(k, _)| k == key) {
                keys.push((key.clone(), name.clone()));
            }
        }
    }
    keys.sort_by_key(|((round, _), _)| *round);
    let decision_of = |f: &Folded| f.view.decision.as_ref().map(|o| o.label().to_owned());
    let parent_decision = decision_of(&folded[0]);
    let mut rows: Vec<CompareRow> = keys
        .iter()
        .map(|((round, agent), name)| CompareRow {
            round: *round,
            name: name.clone(),
            agent: agent.clone(),
            cells: Vec::with_capacity(folded.len()),
        })
        .collect();
    for (i, f) in folded.iter().enumerate() {
        for row in &mut rows {
            let key = (row.round, row.agent.clone());
            let mut cell = f
                .cells
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, (_, c))| c.clone());
            if i > 0 {
                if let Some(c) = &mut cell {
                    let theirs = row.cells.first().cloned().flatten();
                    c.differs =
                        theirs.is_none_or(|p| p.label != c.label || p.confidence != c.confidence);
                }
            }
            row.cells.push(cell);
        }
    }
    let mut columns = Vec::with_capacity(folded.len());
    columns.push(CompareColumn {
        id: parent_id.to_owned(),
        title: "this debate".into(),
        decision: parent_decision.clone(),
        baseline: baseline_of(&folded[0]),
        same: true,
        ..CompareColumn::default()
    });
    for (i, ((id, log), f)) in forks.iter().zip(&folded[1..]).enumerate() {
        let (after_seq, title) = match log.first().map(|e| &e.body) {
            Some(EventBody::Common(CommonEvent::ForkedFrom {
                after_seq, changes, ..
            })) => (Some(*after_seq), title(*after_seq, changes)),
            _ => (None, "not a fork of this debate".to_owned()),
        };
        let decision = decision_of(f);
        columns.push(CompareColumn {
            id: id.clone(),
            title,
            after_seq,
            same: decision.is_some() && decision == parent_decision,
            decision,
            baseline: baseline_of(f),
            diverged_at: after_seq.and_then(|n| super::divergence(parent, log, n)),
            first_row: rows
                .iter()
                .position(|r| r.cells[i + 1].as_ref().is_some_and(|c| c.differs)),
        });
    }
    let forked = &columns[1..];
    let decided = forked.iter().filter(|c| c.decision.is_some()).count();
    let held = forked.iter().filter(|c| c.same).count();
    let summary = match &parent_decision {
        _ if forked.is_empty() => "No forks yet.".to_owned(),
        None => "This debate has not decided yet.".to_owned(),
        Some(d) => format!("{held} of {decided} forks reached the same decision ({d})."),
    };
    Comparison {
        columns,
        rows,
        summary,
    }
}

fn baseline_of(f: &Folded) -> Option<String> {
    f.view
        .decision
        .as_ref()
        .and_then(|o| o.vote_baseline())
        .map(|b| b.decision.clone())
}
