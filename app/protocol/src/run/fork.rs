//! FK-1: a new debate forked from any event of another: its log opens with `forked_from` (the
//! parent, the event, that event's hash and what the fork changes), then a copy of the parent's
//! events up to that one, in the child's own chain; the machine is rebuilt from the copy (as a
//! resumed debate's is, RS-1) and the debate goes on with the changes. Its lineage and the batch
//! figures are in [`super::lineage`].

use crate::escalation::EsEvent;
use crate::event::{DebateEvent, Event, EventBody};
use crate::shared::changes::{
    ForkAgent, ForkChanges, MAX_AGENT_CHANGES, MAX_NOTE_CHARS, MAX_PACE_MS,
};
use crate::shared::CommonEvent;

/// FK-1: the first events of a fork of `parent` (debate `debate`) after its event `after_seq`:
/// `forked_from`, then the parent's events 1..=`after_seq` as they are. Refused by name when the
/// event is not in the log, comes before the debate starts, or after its decision.
pub fn fork_prefix(
    debate: &str,
    parent: &[Event],
    after_seq: u64,
    changes: &ForkChanges,
) -> Result<Vec<EventBody>, String> {
    if let Some(p) = changes.pace_ms.filter(|p| *p > MAX_PACE_MS) {
        return Err(format!(
            "changes.pace_ms: at most {MAX_PACE_MS} ms, got {p}"
        ));
    }
    if let Some(note) = &changes.note {
        if note.trim().is_empty() {
            return Err("changes.note: empty; leave it out to give the agents nothing more".into());
        }
        let n = note.chars().count();
        if n > MAX_NOTE_CHARS {
            return Err(format!(
                "changes.note: at most {MAX_NOTE_CHARS} characters, got {n}"
            ));
        }
    }
    let n = parent.len() as u64;
    if after_seq == 0 || after_seq > n {
        return Err(format!(
            "after_seq: debate {debate} has events 1 to {n}; {after_seq} is not one of them"
        ));
    }
    let copied = &parent[..after_seq as usize];
    let started = parent
        .iter()
        .position(|e| matches!(e.body, EventBody::Debate(DebateEvent::DebateStarted { .. })))
        .ok_or_else(|| format!("debate {debate}'s log has no debate_started"))?;
    check_agents(&changes.agents, &parent[started].body)?;
    check_removals(changes, &parent[started].body)?;
    // The agents' credibility, logged with the start, comes from the server's record, not from
    // anything in the log: a fork keeps the parent's, so it goes on after it.
    let opened = match parent.get(started + 1).map(|e| &e.body) {
        Some(EventBody::Common(CommonEvent::Credibility(_))) => started + 2,
        _ => started + 1,
    };
    if (after_seq as usize) < opened {
        return Err(format!(
            "after_seq: events {} to {opened} open the debate (its start and the agents' \
             credibility); fork from event {opened} or a later one",
            started + 1
        ));
    }
    if let Some(end) = copied.iter().find(|e| e.body.is_terminal()) {
        return Err(format!(
            "after_seq: event {} ends the debate ({}); fork from an event before it",
            end.seq,
            end.body.kind()
        ));
    }
    let head = &copied[copied.len() - 1];
    // ES-1: an agent's findings are one reply, logged as several events: not cut in two.
    if let (
        EventBody::Escalation(EsEvent::Message {
            round: 1,
            message: m,
        }),
        Some(next),
    ) = (&head.body, parent.get(after_seq as usize))
    {
        if matches!(&next.body, EventBody::Escalation(EsEvent::Message { round: 1, message: n }) if n.from == m.from)
        {
            return Err(format!(
                "after_seq: event {after_seq} is one of {}'s findings, which go on at event {}: \
                 fork after the last of them",
                m.from,
                after_seq + 1
            ));
        }
    }
    let mut bodies = Vec::with_capacity(copied.len() + 1);
    bodies.push(EventBody::Common(CommonEvent::ForkedFrom {
        debate: debate.to_owned(),
        after_seq,
        head_hash: head.hash.to_string(),
        changes: changes.clone(),
    }));
    bodies.extend(copied.iter().map(|e| e.body.clone()));
    Ok(bodies)
}

/// FK-1: every changed agent must be one of the debate's, named once, with something to change.
fn check_agents(changes: &[ForkAgent], started: &EventBody) -> Result<(), String> {
    let EventBody::Debate(DebateEvent::DebateStarted {
        protocol, agents, ..
    }) = started
    else {
        return Ok(());
    };
    if changes.len() > MAX_AGENT_CHANGES {
        return Err(format!(
            "changes.agents: at most {MAX_AGENT_CHANGES}, got {}",
            changes.len()
        ));
    }
    for (i, c) in changes.iter().enumerate() {
        if !agents.iter().any(|a| a.id == c.role) {
            let ids: Vec<&str> = agents.iter().map(|a| a.id.as_str()).collect();
            return Err(format!(
                "changes.agents[{i}].role: the {protocol} debate has no agent '{}' (its agents: \
                 {})",
                c.role,
                ids.join(", ")
            ));
        }
        if changes[..i].iter().any(|o| o.role == c.role) {
            return Err(format!(
                "changes.agents[{i}].role: '{}' is changed twice",
                c.role
            ));
        }
        if c.backend.is_none() && c.model.is_none() {
            return Err(format!(
                "changes.agents[{i}]: give '{}' a backend or a model to change",
                c.role
            ));
        }
    }
    Ok(())
}

/// FK-1: every agent removed must be one of the debate's, named once, and not also changed.
fn check_removals(changes: &ForkChanges, started: &EventBody) -> Result<(), String> {
    let EventBody::Debate(DebateEvent::DebateStarted { agents, .. }) = started else {
        return Ok(());
    };
    for (i, r) in changes.remove.iter().enumerate() {
        if !agents.iter().any(|a| a.id == *r) {
            let ids: Vec<&str> = agents.iter().map(|a| a.id.as_str()).collect();
            return Err(format!(
                "changes.remove[{i}]: the debate has no agent '{r}' (its agents: {})",
                ids.join(", ")
            ));
        }
        if changes.remove[..i].contains(r) {
            return Err(format!("changes.remove[{i}]: '{r}' is removed twice"));
        }
        if changes.agents.iter().any(|a| a.role == *r) {
            return Err(format!(
                "changes.remove[{i}]: '{r}' is removed and given another model; choose one"
            ));
        }
    }
    Ok(())
}

/// FK-1: what the forks a log opens with change, together: the nearest fork's seed (else the
/// nearest ancestor's that set one) and every agent's latest backend and model.
pub fn effective_changes(log: &[Event]) -> ForkChanges {
    let mut out = ForkChanges::default();
    let forks: Vec<&ForkChanges> = log
        .iter()
        .map_while(|e| match &e.body {
            EventBody::Common(CommonEvent::ForkedFrom { changes, .. }) => Some(changes),
            _ => None,
        })
        .collect();
    // The first `forked_from` is the nearest fork's; ancestors' follow.
    for c in forks.iter().rev() {
        out.seed = c.seed.or(out.seed);
        out.token_budget = c.token_budget.or(out.token_budget);
        for a in &c.agents {
            let mut a = a.clone();
            if let Some(i) = out.agents.iter().position(|o| o.role == a.role) {
                let old = out.agents.remove(i);
                // Another model alone keeps the backend it is asked of.
                if a.backend.is_none() {
                    a.backend = old.backend;
                }
            }
            out.agents.push(a);
        }
    }
    out
}

/// What a fork changes, taken by the run where it forks (FK-1).
impl super::DebateRun {
    /// FK-1: a note every agent is given with the query from now on; what the S4-8 scan finds
    /// in it is logged, as for the query.
    pub fn add_note(&mut self, note: &str) {
        self.debate.add_note(note);
        for req in &mut self.reask {
            req.task.add_note(note);
        }
        for f in crate::defence::scan(note) {
            self.queue
                .push_back(EventBody::Common(CommonEvent::InjectionDetected {
                    source: "note".into(),
                    round: 0,
                    pattern: f.pattern,
                    excerpt: f.excerpt,
                }));
        }
    }

    /// FK-1: a fork removes agent `agent` from the debate from now on (where the protocol can go
    /// on without it); what it was asked and had not answered is not asked again.
    pub fn remove_agent(&mut self, agent: &str) -> Result<(), String> {
        self.debate
            .remove_agent(agent)
            .map_err(|e| format!("changes.remove: {e}"))?;
        self.reask.retain(|req| !req.concerns(agent));
        Ok(())
    }

    /// FK-1: agent `agent` is answered by backend `kind` from now on (its `agent_call` events
    /// say so).
    pub fn set_kind(&mut self, agent: &str, kind: &str) {
        self.kinds.retain(|(a, _)| a != agent);
        self.kinds.push((agent.to_owned(), kind.to_owned()));
    }

    /// The token budget, when the debate has one.
    pub fn budget(&self) -> Option<u64> {
        self.budget
    }

    /// FK-1: a fork's own token budget.
    pub fn set_budget(&mut self, budget: u64) {
        self.budget = Some(budget);
    }
}

#[cfg(test)]
mod tests {
    use super::{check_agents, check_removals, effective_changes, ForkAgent, ForkChanges};
    use crate::event::{DebateEvent, Event, EventBody};
    use crate::shared::CommonEvent;
    use crate::types::AgentSpec;

    fn agent(role: &str, backend: Option<&str>, model: Option<&str>) -> ForkAgent {
        ForkAgent {
            role: role.into(),
            backend: backend.map(Into::into),
            model: model.map(Into::into),
        }
    }

    /// An S4 debate's start, with its default agents.
    fn s4_started() -> EventBody {
        EventBody::Debate(DebateEvent::DebateStarted {
            protocol: "s4".into(),
            query: "q".into(),
            seed: 1,
            agents: AgentSpec::default_s4(),
            rounds: Vec::new(),
            config: None,
            backend: None,
            context: None,
        })
    }

    /// `got` is `Ok`, or an error starting with what `want` names.
    fn expect(got: &Result<(), String>, want: Result<(), &str>, case: &impl std::fmt::Debug) {
        match want {
            Ok(()) => assert_eq!(got, &Ok(()), "{case:?}"),
            Err(w) => assert!(
                got.as_ref().is_err_and(|e| e.starts_with(w)),
                "{case:?}: {got:?}"
            ),
        }
    }

    /// FK-1: the agents a fork changes must be the debate's, each once, each with a change.
    #[test]
    fn agent_changes_are_checked_by_name_fk_1() {
        let started = s4_started();
        let table: [(Vec<ForkAgent>, Result<(), &str>); 5] = [
            (vec![agent("safety", Some("openai"), Some("m"))], Ok(())),
            (
                vec![
                    agent("utility", None, Some("m")),
                    agent("safety", Some("http"), None),
                ],
                Ok(()),
            ),
            (
                vec![agent("judge", Some("openai"), None)],
                Err("changes.agents[0].role: the s4 debate has no agent 'judge'"),
            ),
            (
                vec![agent("safety", None, None)],
                Err("changes.agents[0]: give 'safety' a backend or a model"),
            ),
            (
                vec![
                    agent("safety", Some("http"), None),
                    agent("safety", None, Some("m")),
                ],
                Err("changes.agents[1].role: 'safety' is changed twice"),
            ),
        ];
        for (changes, want) in table {
            let got = check_agents(&changes, &started);
            expect(&got, want, &changes);
        }
    }

    /// FK-1: the agents a fork removes must be the debate's, each once, and not also changed.
    #[test]
    fn removals_are_checked_by_name_fk_1() {
        let started = s4_started();
        let changes = |remove: &[&str], changed: &[&str]| ForkChanges {
            remove: remove.iter().map(|r| (*r).to_owned()).collect(),
            agents: changed
                .iter()
                .map(|r| agent(r, Some("http"), None))
                .collect(),
            ..ForkChanges::default()
        };
        let table: [(ForkChanges, Result<(), &str>); 4] = [
            (changes(&["safety"], &["utility"]), Ok(())),
            (
                changes(&["judge"], &[]),
                Err("changes.remove[0]: the debate has no agent 'judge'"),
            ),
            (
                changes(&["safety", "safety"], &[]),
                Err("changes.remove[1]: 'safety' is removed twice"),
            ),
            (
                changes(&["safety"], &["safety"]),
                Err("changes.remove[0]: 'safety' is removed and given another model"),
            ),
        ];
        for (c, want) in table {
            let got = check_removals(&c, &started);
            expect(&got, want, &c);
        }
    }

    /// FK-1: a fork of a fork: the nearest fork's seed and agents win; what it leaves alone
    /// comes from its ancestors.
    #[test]
    fn a_fork_of_a_fork_keeps_its_ancestors_changes_fk_1() {
        let fork = |changes: ForkChanges| {
            let mut e: Event = serde_json::from_value(serde_json::json!({
                "seq": 1, "ts": "2026-01-01T00:00:00Z", "prev_hash": "0", "hash": "0",
                "type": "forked_from", "debate": "p", "after_seq": 3, "head_hash": "h"
            }))
            .expect("event");
            if let EventBody::Common(CommonEvent::ForkedFrom { changes: c, .. }) = &mut e.body {
                *c = changes;
            }
            e
        };
        let nearest = ForkChanges {
            agents: vec![agent("safety", None, Some("b"))],
            ..ForkChanges::default()
        };
        let ancestor = ForkChanges {
            seed: Some(9),
            token_budget: Some(100),
            agents: vec![
                agent("safety", Some("openai"), Some("a")),
                agent("utility", Some("http"), None),
            ],
            ..ForkChanges::default()
        };
        let got = effective_changes(&[fork(nearest), fork(ancestor)]);
        assert_eq!(got.seed, Some(9));
        assert_eq!(got.token_budget, Some(100));
        assert_eq!(
            got.agents,
            vec![
                agent("utility", Some("http"), None),
                agent("safety", Some("openai"), Some("b"))
            ]
        );
    }
}
