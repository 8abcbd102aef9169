//! The round-robin view (RR): the trigger verdict, a turn timeline, turns per agent and a
//! consensus meter per round. The agents' columns are the shared board of the live page.

use leptos::prelude::*;

use super::fold::KEEP_ROUNDS;

use crate::protocol::reducer::Card;
use crate::protocol::round_robin::{ConsensusCheck, RrOutcome, Stance};
use crate::protocol::types::display_name;
use crate::protocol::DebateView;

/// The final stance with its metadata (RR-4).
#[component]
pub fn RrBanner(outcome: RrOutcome) -> impl IntoView {
    let stance = outcome.stance.as_str();
    let ending = match outcome.ending {
        crate::protocol::round_robin::RrEnding::Consensus => "consensus",
        crate::protocol::round_robin::RrEnding::MaxRounds => "round limit",
        crate::protocol::round_robin::RrEnding::NoDebate => "no debate needed",
        crate::protocol::round_robin::RrEnding::BudgetExhausted => "budget exhausted",
    };
    let participation = outcome
        .agent_participation
        .iter()
        .map(|(a, n)| format!("{} {n}", display_name(a)))
        .collect::<Vec<_>>()
        .join(" · ");
    view! {
        <section class=format!("decision-banner v-{}", stance.to_lowercase()) data-testid="decision" data-decision=stance data-ending=ending>
            <div class="verdict">
                <span class="verdict-label">"Stance"</span>
                <span class="verdict-value">{stance}</span>
                <span class="verdict-consensus">{ending}</span>
            </div>
            <div class="decision-body">
                <p class="reasoning">{outcome.reasoning}</p>
                <dl class="facts">
                    <div><dt>"Agreement"</dt><dd>{format!("{}%", outcome.agreement_percentage)}</dd></div>
                    <div><dt>"Rounds"</dt><dd>{outcome.total_rounds}</dd></div>
                    <div><dt>"Turns"</dt><dd>{outcome.total_turns}</dd></div>
                    <div><dt>"Turns per agent"</dt><dd data-testid="agent-participation">{participation}</dd></div>
                </dl>
            </div>
            <StanceBars counts=[outcome.stance_counts.buy, outcome.stance_counts.sell, outcome.stance_counts.hold] threshold=None/>
        </section>
    }
}

/// BUY/SELL/HOLD bars, with the consensus threshold marked when given.
#[component]
fn StanceBars(counts: [u32; 3], threshold: Option<f64>) -> impl IntoView {
    let total = counts.iter().sum::<u32>().max(1);
    let bars = Stance::ALL
        .into_iter()
        .zip(counts)
        .map(|(s, n)| {
            let pct = n * 100 / total;
            view! {
                <div class="bar-row">
                    <span class="bar-label">{s.as_str()}</span>
                    <span class="bar-track">
                        <span class=format!("bar-fill d-{}", s.as_str().to_lowercase()) style=format!("width: {pct}%")></span>
                        {threshold.map(|t| view! { <span class="bar-threshold" style=format!("left: {}%", t * 100.0) title="consensus threshold"></span> })}
                    </span>
                    <span class="bar-count">{n}</span>
                </div>
            }
        })
        .collect_view();
    view! { <div class="vote-chart">{bars}</div> }
}

/// The most turns the turn timeline shows before it folds the earlier ones (20 rounds of three).
const KEEP_TURNS: usize = 60;

/// RR-5, RR-2, RR-3 at a glance, above the agents' columns.
#[component]
pub fn RrPanel(state: Signal<DebateView>) -> impl IntoView {
    let trigger = move || state.with(|v| v.rr.trigger.clone());
    // A long debate shows its last rounds and turns unless asked for all.
    let all_rounds = RwSignal::new(false);
    let all_turns = RwSignal::new(false);
    let checks = move || {
        state.with(|v| {
            let shown = super::fold::tail(v.rr.checks.len(), KEEP_ROUNDS, all_rounds.get());
            v.rr.checks[shown].to_vec()
        })
    };
    let check_count = move || state.with(|v| v.rr.checks.len());
    let min_turns =
        move || state.with(|v| v.rr.params.as_ref().map_or(2, |p| p.min_turns_per_agent));
    // Every turn in order, counted; only the shown ones are copied out of the state.
    let timeline = Memo::new(move |_| {
        state.with(|v| {
            let mut turns: Vec<&Card> = v
                .rounds
                .iter()
                .flat_map(|r| r.cards.iter())
                .filter(|c| c.label.is_some() && c.title.starts_with("Turn"))
                .collect();
            turns.sort_by_key(|c| c.seq);
            let shown = super::fold::tail(turns.len(), KEEP_TURNS, all_turns.get());
            let total = turns.len();
            (
                total,
                turns[shown].iter().map(|&c| c.clone()).collect::<Vec<_>>(),
            )
        })
    });
    let turn_count = move || timeline.with(|t| t.0);
    view! {
        <section class="panel rr-panel">
            {move || trigger().map(|t| view! {
                <p class=if t.triggered { "trigger yes" } else { "trigger no" } data-testid="trigger" data-triggered=t.triggered.to_string()>
                    <strong>{if t.triggered { "Trigger check: debate" } else { "Trigger check: no debate" }}</strong>
                    " — "{t.explanation}
                </p>
            })}
            <div class="rr-grid">
                <div>
                    <h3>"Consensus meter per round"</h3>
                    {move || view! { <super::fold::FoldNote total=check_count() keep=KEEP_ROUNDS all=all_rounds what="rounds"/> }}
                    <ol class="meters" data-testid="consensus-meter">
                        {move || checks().into_iter().map(|c| view! { <Meter check=c/> }).collect_view()}
                    </ol>
                    {move || checks().is_empty().then(|| view! { <p class="muted">"Checked after each round."</p> })}
                </div>
                <div>
                    <h3>"Turns per agent"</h3>
                    <ul class="participation" data-testid="participation">
                        {move || {
                            let min = min_turns();
                            state
                                .with(|v| v.rr.participation.clone())
                                .into_iter()
                                .map(|(agent, n)| {
                                    let met = n >= min;
                                    view! {
                                        <li data-agent=agent.clone() data-turns=n>
                                            <span class="agent-name">{display_name(&agent)}</span>
                                            <span class="turn-pips">
                                                {(0..n.max(min)).map(|i| view! { <span class=if i < n { "pip on" } else { "pip" }></span> }).collect_view()}
                                            </span>
                                            <span class=if met { "muted" } else { "short" }>{format!("{n} (min {min})")}</span>
                                        </li>
                                    }
                                })
                                .collect_view()
                        }}
                    </ul>
                </div>
            </div>
            <h3>"Turn timeline"</h3>
            {move || view! { <super::fold::FoldNote total=turn_count() keep=KEEP_TURNS all=all_turns what="turns"/> }}
            <ol class="turn-timeline" data-testid="turn-timeline">
                {move || timeline.get().1.into_iter().map(|c| {
                    let label = c.label.clone().unwrap_or_default();
                    let class = format!("turn d-{}", label.to_lowercase());
                    view! {
                        <li class=class data-seq=c.seq title=c.body.clone()>
                            <span class="turn-round">{format!("R{}", c.round)}</span>
                            <span>{display_name(&c.agent).trim_end_matches(" Agent").to_owned()}</span>
                            <strong>{label}</strong>
                        </li>
                    }
                }).collect_view()}
            </ol>
        </section>
    }
}

#[component]
fn Meter(check: ConsensusCheck) -> impl IntoView {
    let c = check.stance_counts;
    let class = if check.reached {
        "meter reached"
    } else {
        "meter"
    };
    view! {
        <li class=class data-round=check.round data-reached=check.reached.to_string()>
            <div class="meter-head">
                <span class="round-no">{format!("Round {}", check.round)}</span>
                <span>{format!("{} {}%", check.leading, check.agreement_percentage)}</span>
                <span class="muted">{format!("needs {}%", check.threshold * 100.0)}</span>
            </div>
            <StanceBars counts=[c.buy, c.sell, c.hold] threshold=Some(check.threshold)/>
            <p class="meter-verdict">{check.verdict}</p>
        </li>
    }
}
