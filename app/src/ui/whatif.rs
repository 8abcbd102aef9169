//! UI-5: the what-if panel. A judge changes weights and thresholds; the decision is recomputed
//! in this page (WebAssembly after hydration) from the logged votes or cards — no server call.

use leptos::prelude::*;

use crate::protocol::collapse::{self, WcParams};
use crate::protocol::credibility::CredibilitySnapshot;
use crate::protocol::event::{entries, DebateEvent};
use crate::protocol::round_robin::{self as rr_whatif, RrWhatIfRules};
use crate::protocol::s4::{self as s4_whatif, S4WhatIfRules};
use crate::protocol::s4::{S4Event, Vote};
use crate::protocol::types::display_name;
use crate::protocol::{Config, Event, EventBody, Outcome};

/// The what-if panel for the log's protocol (S4, RR and WC); nothing for others.
#[component]
pub fn WhatIfPanel(events: Vec<Event>) -> impl IntoView {
    let logged = events.iter().rev().find_map(|e| match &e.body {
        EventBody::Debate(DebateEvent::Decision(o)) => Some(o.clone()),
        _ => None,
    });
    let snapshot = CredibilitySnapshot::in_log(&events).cloned();
    match logged {
        Some(Outcome::RoundRobin(o)) => match RrWhatIfRules::defaults(&entries(&events)) {
            Some(defaults) => {
                view! { <RrWhatIf events defaults snapshot logged=o.stance.as_str()/> }.into_any()
            }
            None => ().into_any(),
        },
        Some(Outcome::S4(o)) => {
            let votes: Vec<Vote> = events
                .iter()
                .filter_map(|e| match &e.body {
                    EventBody::S4(S4Event::Vote { vote, .. }) => Some(vote.clone()),
                    _ => None,
                })
                .collect();
            view! { <S4WhatIf votes snapshot logged=o.decision.as_str()/> }.into_any()
        }
        Some(Outcome::Collapse(o)) => {
            let params = events
                .iter()
                .find_map(|e| match &e.body {
                    EventBody::Debate(DebateEvent::DebateStarted {
                        config: Some(c), ..
                    }) => match &**c {
                        Config::Collapse(p) => Some(p.clone()),
                        _ => None,
                    },
                    _ => None,
                })
                .unwrap_or_default();
            view! { <WcWhatIf events params logged=o.outcome.as_str()/> }.into_any()
        }
        _ => ().into_any(),
    }
}

/// A number input bound to a signal; unparsable text keeps the last good value.
#[component]
fn Knob(
    label: String,
    value: RwSignal<f64>,
    step: &'static str,
    #[prop(into)] testid: String,
) -> impl IntoView {
    view! {
        <label class="knob">
            <span>{label}</span>
            <input type="number" step=step data-testid=testid prop:value=move || value.get().to_string()
                on:input=move |ev| {
                    if let Ok(x) = event_target_value(&ev).trim().parse::<f64>() {
                        if x.is_finite() {
                            value.set(x);
                        }
                    }
                } />
        </label>
    }
}

#[component]
fn Verdict(
    logged: &'static str,
    now: String,
    detail: String,
    unknown: Option<String>,
) -> impl IntoView {
    let changed = now != logged;
    view! {
        <div class=if changed { "whatif-result changed" } else { "whatif-result" } data-testid="what-if-result" data-decision=now.clone() data-changed=changed.to_string()>
            <strong>{if changed { format!("Decision would change: {logged} → {now}") } else { format!("Decision unchanged: {now}") }}</strong>
            <p>{detail}</p>
            {unknown.map(|u| view! { <p class="muted" data-testid="what-if-unknown">{u}</p> })}
        </div>
    }
}

/// CR-4: "weight votes by credibility" — sets every weight to the agent's logged credibility
/// (0.5 when its record was too short), or back to 1.
#[component]
fn ByCredibility(
    snapshot: Option<CredibilitySnapshot>,
    weights: Vec<(String, RwSignal<f64>)>,
) -> impl IntoView {
    let Some(snapshot) = snapshot else {
        return view! { <p class="muted">"This log has no credibility snapshot (it predates credibility)."</p> }.into_any();
    };
    let by = snapshot.weights();
    let used = by
        .iter()
        .map(|(a, w)| format!("{} {w:.2}", display_name(a)))
        .collect::<Vec<_>>()
        .join(", ");
    let on = RwSignal::new(false);
    view! {
        <label class="knob toggle">
            <input type="checkbox" data-testid="weight-by-credibility" prop:checked=move || on.get()
                on:change=move |ev| {
                    let checked = event_target_checked(&ev);
                    on.set(checked);
                    for (agent, w) in &weights {
                        let x = if checked {
                            by.iter().find(|(a, _)| a == agent).map_or(1.0, |(_, x)| *x)
                        } else {
                            1.0
                        };
                        w.set(x);
                    }
                } />
            <span>{format!("Weight votes by credibility (logged at the start: {used})")}</span>
        </label>
    }
    .into_any()
}

#[component]
fn S4WhatIf(
    votes: Vec<Vote>,
    snapshot: Option<CredibilitySnapshot>,
    logged: &'static str,
) -> impl IntoView {
    let defaults = S4WhatIfRules::defaults(&votes);
    let veto = RwSignal::new(f64::from(defaults.veto_risk));
    let strong = RwSignal::new(f64::from(defaults.strong_majority));
    let weights: Vec<(String, RwSignal<f64>)> = votes
        .iter()
        .map(|v| (v.agent.clone(), RwSignal::new(1.0)))
        .collect();
    let toggle = weights.clone();
    let knobs = {
        let weights = weights.clone();
        move || S4WhatIfRules {
            veto_risk: veto.get().clamp(0.0, 101.0) as u8,
            strong_majority: strong.get().clamp(0.0, 100.0) as u8,
            weights: weights.iter().map(|(a, w)| (a.clone(), w.get())).collect(),
        }
    };
    let result = move || {
        let w = s4_whatif::what_if(&votes, &knobs());
        view! { <Verdict logged now=w.decision.as_str().to_owned() detail=format!("{} ({})", w.reasoning, w.consensus.label()) unknown=None/> }
    };
    view! {
        <section class="panel whatif" data-testid="what-if">
            <h2>"What if?"</h2>
            <p class="muted">"Change the rules and the vote weights; the decision is recomputed here, from the logged votes."</p>
            <ByCredibility snapshot weights=toggle/>
            <div class="knobs">
                <Knob label="Veto at safety risk ≥".into() value=veto step="1" testid="knob-veto_risk"/>
                <Knob label="Strong majority ≥ %".into() value=strong step="1" testid="knob-strong_majority"/>
                {weights.into_iter().map(|(a, w)| view! {
                    <Knob label=format!("Weight of {}", display_name(&a)) value=w step="0.1" testid=format!("knob-weight-{a}")/>
                }).collect_view()}
            </div>
            {result}
        </section>
    }
}

#[component]
fn RrWhatIf(
    events: Vec<Event>,
    defaults: RrWhatIfRules,
    snapshot: Option<CredibilitySnapshot>,
    logged: &'static str,
) -> impl IntoView {
    let threshold = RwSignal::new(defaults.consensus_threshold);
    let weights: Vec<(String, RwSignal<f64>)> = defaults
        .weights
        .iter()
        .map(|(a, w)| (a.clone(), RwSignal::new(*w)))
        .collect();
    let toggle = weights.clone();
    let knobs = {
        let weights = weights.clone();
        move || RrWhatIfRules {
            consensus_threshold: threshold.get().clamp(0.01, 1.0),
            weights: weights.iter().map(|(a, w)| (a.clone(), w.get())).collect(),
        }
    };
    let result = move || {
        let w = rr_whatif::what_if(&entries(&events), &knobs());
        view! { <Verdict logged now=w.stance.as_str().to_owned() detail=w.reasoning unknown=None/> }
    };
    view! {
        <section class="panel whatif" data-testid="what-if">
            <h2>"What if?"</h2>
            <p class="muted">"Change the consensus threshold and the agents' weights; the stance is recomputed here, from the agents' final logged positions."</p>
            <ByCredibility snapshot weights=toggle/>
            <div class="knobs">
                <Knob label="Consensus share ≥".into() value=threshold step="0.05" testid="knob-consensus_threshold"/>
                {weights.into_iter().map(|(a, w)| view! {
                    <Knob label=format!("Weight of {}", display_name(&a)) value=w step="0.1" testid=format!("knob-weight-{a}")/>
                }).collect_view()}
            </div>
            {result}
        </section>
    }
}

#[component]
fn WcWhatIf(events: Vec<Event>, params: WcParams, logged: &'static str) -> impl IntoView {
    let w = &params.weights;
    let knobs: Vec<(&'static str, &'static str, RwSignal<f64>)> = vec![
        ("w_e", "w_e evidence", RwSignal::new(w.w_e)),
        ("w_r", "w_r risk", RwSignal::new(w.w_r)),
        ("w_v", "w_v reversibility", RwSignal::new(w.w_v)),
        ("w_k", "w_k cost", RwSignal::new(w.w_k)),
        ("w_gamma", "w_γ confidence", RwSignal::new(w.w_gamma)),
        ("w_i", "w_i violations", RwSignal::new(w.w_i)),
        (
            "accept_threshold",
            "accept when S >",
            RwSignal::new(params.accept_threshold),
        ),
        (
            "gap_threshold",
            "panel when gap <",
            RwSignal::new(params.gap_threshold),
        ),
        (
            "consensus_threshold",
            "consensus C ≥",
            RwSignal::new(params.consensus_threshold),
        ),
        (
            "fallback_threshold",
            "fallback C <",
            RwSignal::new(params.fallback_threshold),
        ),
        (
            "escalate_threshold",
            "escalate C <",
            RwSignal::new(params.escalate_threshold),
        ),
        (
            "hybrid_gap",
            "hybrid gap <",
            RwSignal::new(params.hybrid_gap),
        ),
    ];
    let current = {
        let knobs = knobs.clone();
        move || {
            let mut p = params.clone();
            for (key, _, s) in &knobs {
                let x = s.get();
                match *key {
                    "w_e" => p.weights.w_e = x,
                    "w_r" => p.weights.w_r = x,
                    "w_v" => p.weights.w_v = x,
                    "w_k" => p.weights.w_k = x,
                    "w_gamma" => p.weights.w_gamma = x,
                    "w_i" => p.weights.w_i = x,
                    "accept_threshold" => p.accept_threshold = x,
                    "gap_threshold" => p.gap_threshold = x,
                    "consensus_threshold" => p.consensus_threshold = x,
                    "fallback_threshold" => p.fallback_threshold = x,
                    "escalate_threshold" => p.escalate_threshold = x,
                    _ => p.hybrid_gap = x,
                }
            }
            p
        }
    };
    let result = move || {
        let w = collapse::what_if(&entries(&events), &current());
        let now = w
            .outcome
            .map_or_else(|| "UNDECIDED".to_owned(), |o| o.as_str().to_owned());
        let scores = w
            .scores
            .iter()
            .map(|r| format!("{} S={:.2}", r.position, r.score))
            .collect::<Vec<_>>()
            .join(", ");
        let mut detail = w.steps.join(" → ");
        if !scores.is_empty() {
            detail = format!("{detail} [{scores}]");
        }
        if let Some(c) = &w.chosen {
            detail = format!("{detail} Chosen: {c}.");
        }
        view! { <Verdict logged now detail unknown=w.unknown/> }
    };
    view! {
        <section class="panel whatif" data-testid="what-if">
            <h2>"What if?"</h2>
            <p class="muted">"Change the weights and thresholds; the cards are re-scored and the rules re-run here, from the logged cards, verifications and panel scores."</p>
            <div class="knobs">
                {knobs.into_iter().map(|(key, label, s)| view! {
                    <Knob label=label.to_owned() value=s step="0.05" testid=format!("knob-{key}")/>
                }).collect_view()}
            </div>
            {result}
        </section>
    }
}
