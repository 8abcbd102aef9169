//! Small presentational pieces shared by the pages.

use leptos::prelude::*;

use crate::protocol::reducer::{Card, Tone};
use crate::protocol::s4::S4Outcome;
use crate::protocol::Outcome;
use crate::protocol::{Decision, Verdict};

#[component]
pub fn DecisionBadge(decision: Option<String>) -> impl IntoView {
    match decision {
        // ACT/WARN/REFUSE, BUY/SELL/HOLD or a WC outcome; the class colours it.
        Some(label) => {
            let class = format!("badge d-{}", label.to_lowercase());
            view! { <span class=class>{label}</span> }.into_any()
        }
        None => view! { <span class="muted">"—"</span> }.into_any(),
    }
}

#[component]
pub fn DecisionChip(decision: Decision) -> impl IntoView {
    view! { <span class=format!("badge d-{}", decision.as_str().to_lowercase())>{decision.as_str()}</span> }
}

#[component]
pub fn StatusPill(#[prop(into)] status: String) -> impl IntoView {
    let class = format!("pill s-{status}");
    view! { <span class=class>{status}</span> }
}

/// One message in an agent's column; challenges red, agreements green.
#[component]
pub fn CardView(card: Card) -> impl IntoView {
    let tone = match card.tone {
        Tone::Neutral => "neutral",
        Tone::Challenge => "challenge",
        Tone::Agreement => "agreement",
        Tone::Failure => "failure",
    };
    let numbers = match (card.confidence, card.risk) {
        (Some(c), Some(r)) => Some(
            view! {
                <span class="numbers">
                    <span title="confidence">{format!("conf {c}")}</span>
                    <span title="risk">{format!("risk {r}")}</span>
                </span>
            }
            .into_any(),
        ),
        (Some(c), None) => Some(
            view! {
                <span class="numbers"><span title="confidence">{format!("conf {c}")}</span></span>
            }
            .into_any(),
        ),
        _ => None,
    };
    view! {
        <article class=format!("card {tone}") data-tone=tone data-seq=card.seq>
            <header>
                <span class="card-title">{card.title}</span>
                {card.decision.map(|d| view! { <DecisionChip decision=d/> })}
                {card.label.map(|l| {
                    let class = format!("badge d-{}", l.to_lowercase());
                    view! { <span class=class>{l}</span> }
                })}
            </header>
            {(!card.body.is_empty()).then(|| view! { <p>{card.body}</p> })}
            {numbers}
        </article>
    }
}

/// The final decision of any protocol.
#[component]
pub fn OutcomeBanner(outcome: Outcome) -> impl IntoView {
    let baseline = outcome.vote_baseline().cloned();
    let banner = match outcome {
        Outcome::S4(outcome) => view! { <DecisionBanner outcome/> }.into_any(),
        Outcome::RoundRobin(outcome) => {
            view! { <super::round_robin::RrBanner outcome/> }.into_any()
        }
        Outcome::Collapse(outcome) => view! { <super::collapse::WcBanner outcome/> }.into_any(),
        Outcome::Escalation(outcome) => {
            view! { <super::escalation::EsBanner outcome=*outcome/> }.into_any()
        }
        Outcome::Reconcile(outcome) => view! { <super::reconcile::RcBanner outcome/> }.into_any(),
    };
    view! {
        {banner}
        {baseline.map(|baseline| view! { <BaselineNote baseline/> })}
    }
}

/// QL-1: what a plain vote of the first positions would have decided, beside the decision.
#[component]
pub fn BaselineNote(baseline: crate::protocol::baseline::VoteBaseline) -> impl IntoView {
    let moved = |toward: bool| {
        let names: Vec<String> = baseline
            .moved
            .iter()
            .filter(|m| m.toward == toward)
            .map(|m| {
                format!(
                    "{} ({} → {})",
                    crate::protocol::types::display_name(&m.agent),
                    m.from,
                    m.to
                )
            })
            .collect();
        (!names.is_empty()).then(|| names.join(", "))
    };
    let (toward, away) = (moved(true), moved(false));
    let class = if baseline.changed_outcome {
        "panel baseline changed"
    } else {
        "panel baseline kept"
    };
    view! {
        <section class=class data-testid="vote-baseline" data-changed=baseline.changed_outcome.to_string()>
            <span class="baseline-tag">{if baseline.changed_outcome { "Debate changed the outcome" } else { "Debate kept the vote's outcome" }}</span>
            <p>{baseline.sentence()}</p>
            {toward.map(|t| view! { <p class="muted">{format!("Moved toward the verdict: {t}.")}</p> })}
            {away.map(|a| view! { <p class="muted">{format!("Moved away from it: {a}.")}</p> })}
        </section>
    }
}

/// The final S4 decision with its vote breakdown (UI-2).
#[component]
pub fn DecisionBanner(outcome: S4Outcome) -> impl IntoView {
    let verdict = outcome.decision.as_str();
    let total = outcome.decision_counts.total().max(1);
    let bars = Verdict::ALL
        .into_iter()
        .map(|v| {
            let n = outcome.decision_counts.get(v);
            let pct = n * 100 / total;
            view! {
                <div class="bar-row">
                    <span class="bar-label">{v.as_str()}</span>
                    <span class="bar-track">
                        <span class=format!("bar-fill d-{}", v.as_str().to_lowercase()) style=format!("width: {pct}%")></span>
                    </span>
                    <span class="bar-count">{n}</span>
                </div>
            }
        })
        .collect_view();
    let changed = if outcome.changed_minds.is_empty() {
        "nobody".to_owned()
    } else {
        outcome
            .changed_minds
            .iter()
            .map(|a| crate::protocol::types::display_name(a))
            .collect::<Vec<_>>()
            .join(", ")
    };
    view! {
        <section class=format!("decision-banner v-{}", verdict.to_lowercase()) data-testid="decision" data-decision=verdict>
            <div class="verdict">
                <span class="verdict-label">"Decision"</span>
                <span class="verdict-value">{verdict}</span>
                <span class="verdict-consensus">{outcome.consensus.label()}</span>
            </div>
            <div class="decision-body">
                <p class="reasoning">{outcome.reasoning}</p>
                <dl class="facts">
                    <div><dt>"Agreement"</dt><dd>{format!("{}%", outcome.agreement_percentage)}</dd></div>
                    <div><dt>"Max risk"</dt><dd>{outcome.max_risk}</dd></div>
                    <div><dt>"Veto"</dt><dd>{outcome.veto_agent.map(|a| crate::protocol::types::display_name(&a)).unwrap_or_else(|| "none".into())}</dd></div>
                    <div><dt>"Changed minds"</dt><dd>{changed}</dd></div>
                </dl>
            </div>
            <div class="vote-chart" aria-label="vote breakdown">{bars}</div>
        </section>
    }
}
