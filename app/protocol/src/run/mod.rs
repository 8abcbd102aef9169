//! A protocol machine with everything every protocol shares around it: the record of who answers
//! (AG-1/AG-2), the cost of each call and the token budget, the S4-8 scans of the query and of
//! every reply, and the arrival time of cards that carry none (WC-1). The runner passes in what it
//! knows — the backend and budget at the start, each answer with its usage and the clock's time —
//! and only this machine writes events: the runner numbers, timestamps and stores them.

use std::collections::VecDeque;

use super::baseline::BaselineFold;
use super::collapse::CardSource;
use super::credibility::{self, ContextTags, CredibilitySnapshot};
use super::debate::Debate;
use super::defence;
use super::escalation::{Admission, JudgeAction, Priority, RulingError};
use super::event::{AgentCall, BackendInfo, EventBody};
use super::request::{AgentReply, AgentRequest};
use super::shared::Supervision;
use crate::collapse::{WcEvent, WcReply};
use crate::event::DebateEvent;
use crate::shared::CommonEvent;

mod budget;
mod ended;
mod fork;
mod lineage;
mod resume;
pub use crate::shared::{ForkAgent, ForkChanges};
pub use budget::{BudgetAction, MAX_GRANT};
pub use ended::{gate_review, human_decision, GateReview};
pub use fork::{effective_changes, fork_prefix};
pub use lineage::{check_lineage, wilson};
pub use resume::{rebuild, rebuild_sealed, Rebuilt};

/// AG-2: what one agent call cost. Remote kinds report it; the builtin agents cost nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Usage {
    pub attempts: u32,
    pub latency_ms: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// The endpoint reported no usage; tokens were estimated from the text (4 characters each).
    pub estimated: bool,
    /// LM-2: time waited as the endpoint asked (`Retry-After`).
    pub retry_after_ms: u64,
    /// LM-3: the reply came as a stream.
    pub streamed: bool,
}

impl Usage {
    /// Saturating: a hostile endpoint reporting `u64::MAX` tokens cannot wrap past the budget.
    pub fn tokens(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }
}

/// What the runner knows when a debate starts.
#[derive(Clone, Debug, Default)]
pub struct Start {
    /// The remote agents (recorded in `debate_started`); `None` for the builtin agents.
    pub backend: Option<BackendInfo>,
    /// Tokens the agents may use before the debate stops and decides from what exists.
    pub budget: Option<u64>,
    /// CR-1: the context the request carried (recorded in `debate_started`).
    pub context: Option<ContextTags>,
    /// CR-4: the agents' credibility read from the record, logged after `debate_started`.
    pub credibility: Option<CredibilitySnapshot>,
    /// QL-3: each agent's own backend and model when the request chose them per agent (then
    /// every agent is listed); empty when all use `backend`.
    pub per_agent: Vec<(String, BackendInfo)>,
}

/// CR-1: the identity of agent `agent` answered by `backend` (`None`: the builtin agents).
pub fn identity_of(backend: Option<&BackendInfo>, agent: &str) -> String {
    match backend {
        None => credibility::identity("builtin", None, agent),
        Some(b) => {
            credibility::identity(&b.kind, b.model.as_deref().or(b.service.as_deref()), agent)
        }
    }
}

/// CR-1 with QL-3: each agent's identity, from its own backend when the request chose one per
/// agent, else the debate's.
pub fn agent_identity(
    backend: Option<&BackendInfo>,
    per_agent: &[(String, BackendInfo)],
    agent: &str,
) -> String {
    let own = per_agent.iter().find(|(id, _)| id == agent).map(|(_, b)| b);
    identity_of(own.or(backend), agent)
}

/// One answer to one request, as the runner got it.
#[derive(Clone, Debug)]
pub struct Answered {
    /// The reply, or why there is none (an error, a timeout, an unparseable text).
    pub reply: Result<AgentReply, String>,
    /// The call's cost, when the agent kind reports one.
    pub usage: Option<Usage>,
    /// The clock's time (RFC 3339) when the answer arrived.
    pub now: super::event::Stamp,
}

#[derive(Debug)]
pub struct DebateRun {
    debate: Debate,
    /// QL-3: each agent's backend when chosen per agent, for its `agent_call` events.
    kinds: Vec<(String, String)>,
    backend: Option<BackendInfo>,
    budget: Option<u64>,
    used: u64,
    /// Events written here (calls, scans) go out before the machine's own, in the order made.
    queue: VecDeque<EventBody>,
    /// QL-1: the first positions and what became of them, for the decision's vote baseline.
    fold: BaselineFold,
    /// ES-11: when the budget is spent, wait for a judge instead of stopping (judges exist).
    pausable: bool,
    /// ES-11: the budget is spent and the debate waits for a judge.
    paused: bool,
    /// LM-1: requests handed out and not yet answered.
    in_flight: u32,
    /// LM-2: answered calls that reported a cost, for the estimate of what one in flight costs.
    costed: u64,
    /// RS-1: requests asked before the debate resumed whose replies were never logged: handed
    /// out again first.
    reask: VecDeque<AgentRequest>,
    /// RS-1: the ids of the requests asked again, for their `agent_call`.
    reasked: Vec<u32>,
    /// RS-1/ES-10: the debate's clock when a resumed run goes on (wall milliseconds since the
    /// start, the time it was down included); 0 for a run that starts.
    clock_ms: u64,
}

impl DebateRun {
    /// Takes a freshly built machine. Its opening events come out first, `debate_started`
    /// declaring the backend; then what the S4-8 scan of the query found.
    pub fn start(mut debate: Debate, start: Start) -> Self {
        if let Some(snapshot) = &start.credibility {
            debate.set_credibility(snapshot);
        }
        let mut queue = VecDeque::new();
        // (source, round, findings): the query, then every card the user submitted (WC-1).
        let mut findings = Vec::new();
        while let Some(mut body) = debate.poll_event() {
            match &mut body {
                EventBody::Debate(DebateEvent::DebateStarted {
                    backend,
                    query,
                    agents,
                    context,
                    config,
                    ..
                }) => {
                    *backend = start.backend.clone().map(Box::new);
                    *context = start.context.clone().map(Box::new);
                    for a in agents.iter_mut() {
                        a.identity = Some(agent_identity(
                            start.backend.as_ref(),
                            &start.per_agent,
                            &a.id,
                        ));
                        let own = start.per_agent.iter().find(|(id, _)| *id == a.id);
                        if let Some((_, b)) = own {
                            a.backend = Some(b.kind.clone());
                            a.model.clone_from(&b.model);
                        }
                    }
                    findings.push(("query".to_owned(), 0, defence::scan(query)));
                    // RC: every observation goes into a reconciler's prompt.
                    if let Some(crate::Config::Reconcile(c)) = config.as_deref() {
                        for o in &c.observations {
                            let source = format!("observation {}", o.id);
                            findings.push((source, 0, defence::scan(&o.content)));
                        }
                    }
                    if let Some(snapshot) = &start.credibility {
                        queue.push_back(body);
                        queue.push_back(EventBody::Common(CommonEvent::Credibility(
                            snapshot.clone(),
                        )));
                        continue;
                    }
                }
                EventBody::Collapse(WcEvent::CardSubmitted(c)) if c.source == CardSource::User => {
                    let source = format!("user card {}", c.position);
                    findings.push((source, c.round, defence::scan_card(&c.card)));
                }
                _ => {}
            }
            queue.push_back(body);
        }
        for (source, round, found) in findings {
            for f in found {
                queue.push_back(EventBody::Common(CommonEvent::InjectionDetected {
                    source: source.clone(),
                    round,
                    pattern: f.pattern,
                    excerpt: f.excerpt,
                }));
            }
        }
        let kinds = start
            .per_agent
            .iter()
            .map(|(id, b)| (id.clone(), b.kind.clone()))
            .collect();
        DebateRun {
            debate,
            kinds,
            backend: start.backend,
            budget: start.budget,
            used: 0,
            queue,
            fold: BaselineFold::default(),
            pausable: false,
            paused: false,
            in_flight: 0,
            costed: 0,
            reask: VecDeque::new(),
            reasked: Vec::new(),
            clock_ms: 0,
        }
    }

    /// The next request to put to an agent, or `None` when there is none to ask now: the
    /// debate is over, paused for a judge (ES-11, when [`DebateRun::set_pausable`]), or waiting
    /// for the calls in flight ([`DebateRun::in_flight`]). Once the agents have used the budget,
    /// the machine stops asking and decides from what exists.
    ///
    /// LM-2: the budget counts what is in flight. A request is handed out only while the tokens
    /// used plus an estimate for each call in flight (the mean cost of the calls answered so
    /// far) stay under the budget; once they do not, nothing more is asked until the calls in
    /// flight are answered, and the budget is judged on what they really cost. A debate thus
    /// overshoots its budget by at most the calls that were already running.
    pub fn poll_request(&mut self) -> Option<AgentRequest> {
        if let Some(budget) = self.budget {
            let reserved = self.call_estimate() * u64::from(self.in_flight);
            if self.in_flight > 0 && self.used.saturating_add(reserved) >= budget {
                return None;
            }
        }
        if let Some(budget) = self.budget.filter(|b| self.used >= *b) {
            if self.paused {
                return None;
            }
            // ES-11: with judges to ask, wait for one rather than stop.
            if self.pausable && !self.debate.is_finished() {
                self.paused = true;
                // After what the last answer wrote.
                while let Some(body) = self.debate.poll_event() {
                    self.queue.push_back(body);
                }
                self.queue
                    .push_back(EventBody::Common(CommonEvent::BudgetPaused {
                        used: self.used,
                        budget,
                    }));
                return None;
            }
            self.debate.exhaust(self.used, budget);
        }
        let req = self
            .reask
            .pop_front()
            .or_else(|| self.debate.poll_request());
        if req.is_some() {
            self.in_flight += 1;
        }
        req
    }

    /// LM-1: requests handed out and not answered yet.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// The next event to log, in order. The decision leaves with its vote baseline (QL-1).
    pub fn poll_event(&mut self) -> Option<EventBody> {
        let mut body = self
            .queue
            .pop_front()
            .or_else(|| self.debate.poll_event())?;
        match &mut body {
            EventBody::Debate(DebateEvent::Decision(outcome)) => {
                let baseline = self.fold.baseline(outcome);
                outcome.set_vote_baseline(baseline);
            }
            other => self.fold.see(other),
        }
        Some(body)
    }

    /// Feeds back the answer to `req`: its cost, what the S4-8 scan finds in it, then the
    /// reply itself — or, when there is none or the protocol refuses it, the machine's cautious
    /// substitute (S4-8).
    pub fn handle(&mut self, req: &AgentRequest, answered: Answered) {
        let Answered { reply, usage, now } = answered;
        self.in_flight = self.in_flight.saturating_sub(1);
        if let Some(u) = usage {
            self.used = self.used.saturating_add(u.tokens());
            self.costed += 1;
            self.queue
                .push_back(EventBody::Common(CommonEvent::AgentCall(AgentCall {
                    agent: req.agent.clone(),
                    round: req.round,
                    backend: self.kind_of(&req.agent),
                    attempts: u.attempts,
                    latency_ms: u.latency_ms,
                    prompt_tokens: u.prompt_tokens,
                    completion_tokens: u.completion_tokens,
                    ok: reply.is_ok(),
                    estimated: u.estimated,
                    retry_after_ms: u.retry_after_ms,
                    streamed: u.streamed,
                    cancelled: false,
                    reasked: self.reasked.contains(&req.id),
                })));
        }
        let failure = match reply {
            Ok(mut reply) => {
                for f in defence::scan_reply(&reply) {
                    self.queue
                        .push_back(EventBody::Common(CommonEvent::InjectionDetected {
                            source: req.agent.clone(),
                            round: req.round,
                            pattern: f.pattern,
                            excerpt: f.excerpt,
                        }));
                }
                if let AgentReply::Collapse(WcReply::Card(card)) = &mut reply {
                    if card.timestamp.is_empty() {
                        card.timestamp = now.into();
                    }
                }
                self.debate
                    .handle_reply(req.id, reply)
                    .err()
                    .map(|e| e.to_string())
            }
            Err(e) => Some(e),
        };
        if let Some(error) = failure {
            // Cannot fail for a request the machine itself issued; a stray id changes nothing.
            let _ = self.debate.handle_failure(req.id, &error);
        }
    }

    /// The backend kind agent `agent` is answered by (QL-3: its own when chosen per agent).
    fn kind_of(&self, agent: &str) -> String {
        match self.kinds.iter().find(|(a, _)| a == agent) {
            Some((_, kind)) => kind.clone(),
            None => self
                .backend
                .as_ref()
                .map_or_else(|| "builtin".to_owned(), |b| b.kind.clone()),
        }
    }

    /// LM-4: agent `agent`'s request of round `round` was in flight when the debate was
    /// stopped, and its call was cancelled after `latency_ms`: logged as a call that did not
    /// answer (its cost is unknown, so none is counted). The machine is not told: the debate
    /// ends here.
    pub fn cancelled(&mut self, agent: &str, round: u16, latency_ms: u64) {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.queue
            .push_back(EventBody::Common(CommonEvent::AgentCall(AgentCall {
                agent: agent.to_owned(),
                round,
                backend: self.kind_of(agent),
                attempts: 1,
                latency_ms,
                prompt_tokens: 0,
                completion_tokens: 0,
                ok: false,
                estimated: false,
                retry_after_ms: 0,
                streamed: false,
                cancelled: true,
                reasked: false,
            })));
    }

    /// ES-10: the runner's clock, wall milliseconds since the debate began.
    pub fn advance(&mut self, wall_ms: u64) {
        if let Some(s) = self.debate.supervision_mut() {
            s.advance(wall_ms);
        }
    }

    /// RS-1/ES-10: where the runner's clock starts (wall milliseconds since the debate began):
    /// 0 for a run that starts; for a resumed one, the clock as its log left it plus the time it
    /// was down, so the ladder's timeouts count the downtime.
    pub fn clock_ms(&self) -> u64 {
        self.clock_ms
    }

    /// RS-1: the debate was down `ms` wall milliseconds before it resumed.
    pub fn add_downtime(&mut self, ms: u64) {
        self.clock_ms = self.clock_ms.saturating_add(ms);
    }

    /// ES-10: pipeline seconds per wall second, for a protocol on timers.
    pub fn time_scale(&self) -> Option<u32> {
        match &self.debate {
            Debate::Escalation(m) => Some(m.time_scale()),
            _ => None,
        }
    }

    /// ES-10: when (wall milliseconds since the start) a timer next fires, if one runs.
    pub fn wake_at(&self) -> Option<u64> {
        self.debate.supervision()?.wake_at()
    }

    /// ES-5: challenges waiting for a judge's place, with their priority.
    pub fn queued(&self) -> Vec<(String, Priority)> {
        self.debate
            .supervision()
            .map(Supervision::queued)
            .unwrap_or_default()
    }

    /// ES-5: the desk's answer for a queued challenge.
    pub fn admit(&mut self, challenge: &str, admission: Admission) {
        if let Some(s) = self.debate.supervision_mut() {
            s.admit(challenge, admission);
        }
    }

    /// ES-5: the challenges judges hold now.
    pub fn held(&self) -> Vec<String> {
        self.debate
            .supervision()
            .map(Supervision::held)
            .unwrap_or_default()
    }

    /// ES-5/ES-7: a judge's ruling or gate review on a challenge of this debate.
    pub fn judge(
        &mut self,
        challenge: &str,
        judge: &str,
        action: JudgeAction,
    ) -> Result<(), RulingError> {
        match self.debate.supervision_mut() {
            Some(s) => s.judge(challenge, judge, action),
            None => Err(RulingError::Conflict(
                "this protocol takes no judge's rulings".into(),
            )),
        }
    }

    /// Tokens the agents have used so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    pub fn is_finished(&self) -> bool {
        self.queue.is_empty() && self.debate.is_finished()
    }

    pub fn debate(&self) -> &Debate {
        &self.debate
    }
}

/// SV-5: the last event of a debate whose run stopped before it ended (the server stopped, or
/// could not store the log). The machine is gone by then; the reason comes from the runner.
pub fn interruption(reason: String) -> EventBody {
    EventBody::Common(CommonEvent::Interrupted { reason, by: None })
}

/// SV-7: the last event of a debate a judge stopped; the judge's name is on record.
pub fn stopped_by(judge: &str) -> EventBody {
    EventBody::Common(CommonEvent::Interrupted {
        reason: format!("stopped by judge {judge}"),
        by: Some(judge.to_owned()),
    })
}
