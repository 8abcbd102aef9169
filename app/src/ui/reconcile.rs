//! The reconciliation view (RC): the topics as they form — which observations, from whom, and
//! why each joined — and each topic's belief as it arrives, with "Why do we believe this?"
//! opening the observations considered, their weights and the reasoning (RC-5).

use leptos::prelude::*;

use crate::protocol::reconcile::{Belief, RcOutcome, Topic};
use crate::protocol::DebateView;

/// The result: reconciled or not, and one line per topic.
#[component]
pub fn RcBanner(outcome: RcOutcome) -> impl IntoView {
    let verdict = outcome.verdict.as_str();
    let class = if outcome.needs_clarification == 0 {
        "v-act"
    } else {
        "v-warn"
    };
    view! {
        <section class=format!("decision-banner rc-banner {class}") data-testid="decision" data-decision=verdict>
            <div class="verdict">
                <span class="verdict-label">"Beliefs"</span>
                <span class="verdict-value">{verdict.replace('_', " ")}</span>
                <span class="verdict-consensus">{format!("{} of {} topics reconciled", outcome.resolved, outcome.topics)}</span>
            </div>
            <div class="decision-body">
                <p class="reasoning">{outcome.reasoning.clone()}</p>
                <ul class="rc-lines">
                    {outcome.beliefs.iter().map(|b| view! {
                        <li data-testid="belief-line" data-topic=b.topic.clone()>
                            <strong>{format!("{} · {}", b.topic, b.label)}</strong>
                            {match &b.belief {
                                Some(text) => format!(": {text} (confidence {:.2})", b.confidence),
                                None => ": needs a human's clarification".to_owned(),
                            }}
                        </li>
                    }).collect_view()}
                </ul>
            </div>
        </section>
    }
}

/// RC-1/RC-5: topics forming and beliefs arriving, live and in the audit view.
#[component]
pub fn RcPanel(#[prop(into)] state: Signal<DebateView>) -> impl IntoView {
    let grouped_by = move || {
        state.with(|v| match (&v.rc.model, v.rc.params) {
            (Some((model, dim)), Some(p)) if v.rc.lexical() => format!(
                "The embedder failed: topics were formed by the lexical fallback ({model}: shared words, not meaning; {dim} dimensions), similarity ≥ {:.2}.",
                p.similarity_threshold
            ),
            (Some((model, dim)), Some(p)) if p.linkage.is_centroid() => format!(
                "Grouped by the embeddings of {model} ({dim} dimensions): an observation joins a topic when its cosine similarity with the topic's centroid is at least {:.2}.{}",
                p.similarity_threshold,
                p.reports_note()
            ),
            (Some((model, dim)), Some(p)) => format!(
                "Grouped by the embeddings of {model} ({dim} dimensions), centred on their mean: topics join while their average pairwise similarity is at least {:.2}.{}",
                p.similarity_threshold,
                p.reports_note()
            ),
            _ => format!("Embedding {} observations…", v.rc.observations.len()),
        })
    };
    let topics = move || state.with(|v| v.rc.topics.clone());
    view! {
        <section class="panel rc-panel" data-testid="rc-panel">
            <h2>"Topics and beliefs"</h2>
            <p class="muted" data-testid="rc-grouping">{grouped_by}</p>
            <div class="rc-topics">
                <For each=topics key=|t| t.topic.clone() let:topic>
                    <TopicCard state topic/>
                </For>
            </div>
        </section>
    }
}

#[component]
fn TopicCard(state: Signal<DebateView>, topic: Topic) -> impl IntoView {
    let id = topic.topic.clone();
    let belief = move || state.with(|v| v.rc.belief(&id).cloned());
    let members = topic
        .members
        .iter()
        .map(|m| {
            let content = state.with_untracked(|v| {
                v.rc.observation(&m.id)
                    .map(|o| o.content.clone())
                    .unwrap_or_default()
            });
            view! {
                <li>
                    <code>{m.id.clone()}</code>" "<b>{m.agent.clone()}</b>": "{content}
                    <span class="muted">{format!(" — {}", m.why)}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <article class="rc-topic" data-testid="rc-topic" data-topic=topic.topic.clone() data-conflict=topic.potential_conflict.to_string()>
            <h3>
                {format!("{} · {}", topic.topic, topic.label)}
                {topic.potential_conflict.then(|| view! { <span class="badge warn">"potential conflict"</span> })}
            </h3>
            <ul class="rc-members">{members}</ul>
            {move || match belief() {
                Some(b) => view! { <BeliefCard belief=b/> }.into_any(),
                None => view! { <p class="muted thinking-note">"Reconciling…"</p> }.into_any(),
            }}
        </article>
    }
}

#[component]
fn BeliefCard(belief: Belief) -> impl IntoView {
    let (label, class) = if belief.needs_clarification {
        ("Needs clarification", "rc-belief unclear")
    } else if belief.conflicts {
        ("Resolved conflict", "rc-belief resolved")
    } else {
        ("Consistent", "rc-belief consistent")
    };
    let text = belief
        .consolidated_belief
        .clone()
        .or_else(|| belief.clarification_question.clone())
        .unwrap_or_default();
    view! {
        <div class=class data-testid="rc-belief" data-needs-clarification=belief.needs_clarification.to_string()>
            <p>
                <strong>{format!("{label}: ")}</strong>{text}
                <span class="muted">{format!(" (confidence {:.2})", belief.confidence)}</span>
            </p>
            <details data-testid="rc-why">
                <summary>"Why do we believe this?"</summary>
                <p class="reasoning">{belief.reasoning.clone()}</p>
                {belief.unresolved.clone().map(|r| view! { <p class="warn-text">{format!("The reply could not be used: {r}")}</p> })}
                <table class="rc-weights">
                    <thead><tr><th>"Observation"</th><th>"Agent"</th><th>"Credibility"</th><th>"Authority"</th><th>"Weight"</th><th>"Why"</th></tr></thead>
                    <tbody>
                        {belief.weights.iter().map(|w| view! {
                            <tr>
                                <td><code>{w.observation.clone()}</code></td>
                                <td>{w.agent.clone()}</td>
                                <td>{format!("{:.2}", w.credibility)}</td>
                                <td>{format!("{:.2}", w.authority)}</td>
                                <td>{format!("{:.3}", w.weight)}</td>
                                <td>{w.why.clone()}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
                <p class="muted">{format!("Observations considered: {} · answered by {}", belief.observation_ids.join(", "), belief.by)}</p>
            </details>
        </div>
    }
}
