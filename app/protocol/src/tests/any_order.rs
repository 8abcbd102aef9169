//! LM-1 test support: drive a machine with every request it hands out at once answered in every
//! order, and check that nothing it decides or logs depends on that order.

use crate::debate::Debate;
use crate::event::DebateEvent;
use crate::request::{AgentReply, AgentRequest, Task};
use crate::shared::Request;

/// A protocol's scripted agent, answering its own tasks, as the envelope asks it.
pub fn scripted<T: TryFrom<Task>, R: Into<AgentReply>>(
    answer: impl Fn(&Request<T>) -> R,
) -> impl Fn(&AgentRequest) -> AgentReply {
    move |req| {
        let Ok(task) = T::try_from(req.task.clone()) else {
            panic!("a task of another protocol: {req:?}");
        };
        answer(&req.clone().map(|_| task)).into()
    }
}

/// What a run logged (each event as JSON, sorted: the same set whatever the order) and decided.
#[derive(Debug)]
pub struct Run {
    pub events: Vec<String>,
    pub decision: String,
    /// The log in the order written.
    pub log: Vec<crate::EventBody>,
}

/// Runs `d` to its end: at each step every request the machine hands out is taken, then all
/// are answered by `reply`, step `k`'s in the order `order(k, n)` gives.
pub fn drive(
    mut d: Debate,
    reply: &dyn Fn(&AgentRequest) -> AgentReply,
    order: &dyn Fn(usize, usize) -> Vec<usize>,
) -> (Run, Vec<usize>) {
    let mut events = Vec::new();
    let mut decision = String::new();
    let mut sizes = Vec::new();
    let mut log = Vec::new();
    let mut drain = |d: &mut Debate, events: &mut Vec<String>| {
        while let Some(e) = d.poll_event() {
            let json = serde_json::to_string(&e).expect("an event serialises");
            if matches!(e, crate::EventBody::Debate(DebateEvent::Decision(_))) {
                decision.clone_from(&json);
            }
            events.push(json);
            log.push(e);
        }
    };
    loop {
        let mut step = Vec::new();
        while let Some(r) = d.poll_request() {
            step.push(r);
        }
        drain(&mut d, &mut events);
        if step.is_empty() {
            break;
        }
        let k = sizes.len();
        sizes.push(step.len());
        for i in order(k, step.len()) {
            let req = &step[i];
            d.handle_reply(req.id, reply(req))
                .expect("a scripted reply fits");
        }
    }
    drain(&mut d, &mut events);
    assert!(d.is_finished(), "the debate ends");
    events.sort();
    (
        Run {
            events,
            decision,
            log,
        },
        sizes,
    )
}

/// SV-2: the log, sealed in the order written, recomputes to its decision.
fn recomputes(log: &[crate::EventBody]) {
    let log = crate::chain::seal_all(log.to_vec());
    let again = crate::chain::recompute_decision(&log);
    assert!(again.is_ok(), "the log recomputes: {again:?}");
}

/// Every permutation of `0..n` (Heap's algorithm), at most `cap` of them.
pub fn permutations(n: usize, cap: usize) -> Vec<Vec<usize>> {
    fn heap(k: usize, a: &mut Vec<usize>, out: &mut Vec<Vec<usize>>, cap: usize) {
        if out.len() >= cap {
            return;
        }
        if k <= 1 {
            out.push(a.clone());
            return;
        }
        for i in 0..k {
            heap(k - 1, a, out, cap);
            let j = if k.is_multiple_of(2) { i } else { 0 };
            a.swap(j, k - 1);
        }
    }
    let mut out = Vec::new();
    heap(n, &mut (0..n).collect(), &mut out, cap);
    out
}

/// LM-1: for every step where several requests are out at once, every order of their replies
/// (up to `cap` per step) gives the same decision and the same set of events as answering them
/// in the order they were handed out, and every such log — in the order written — recomputes to
/// its decision as `verify` does. Returns how many steps asked at once and how many orders were
/// run.
pub fn same_in_every_order(
    make: &dyn Fn() -> Debate,
    reply: &dyn Fn(&AgentRequest) -> AgentReply,
    cap: usize,
) -> (usize, usize) {
    let identity = |_: usize, n: usize| (0..n).collect::<Vec<_>>();
    let (baseline, sizes) = drive(make(), reply, &identity);
    assert!(!baseline.decision.is_empty(), "the debate decided");
    recomputes(&baseline.log);
    let (mut parallel, mut runs) = (0, 0);
    for (k, &n) in sizes.iter().enumerate() {
        if n < 2 {
            continue;
        }
        parallel += 1;
        for p in permutations(n, cap) {
            let order = |step: usize, m: usize| {
                if step == k {
                    p.clone()
                } else {
                    (0..m).collect()
                }
            };
            let (again, _) = drive(make(), reply, &order);
            assert_eq!(
                again.decision, baseline.decision,
                "step {k} answered in order {p:?}"
            );
            assert_eq!(
                again.events, baseline.events,
                "step {k} answered in order {p:?}"
            );
            recomputes(&again.log);
            runs += 1;
        }
    }
    (parallel, runs)
}

#[test]
fn permutations_are_all_there_and_distinct() {
    let mut p = permutations(4, usize::MAX);
    assert_eq!(p.len(), 24);
    p.sort();
    p.dedup();
    assert_eq!(p.len(), 24);
    assert_eq!(permutations(6, 100).len(), 100);
}
