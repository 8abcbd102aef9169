//! The track record on a debate's audit page: what each agent held when the debate ended, its
//! outcome, and — for a signed-in judge — buttons that append one (right, wrong, or a ruling that
//! overrides the agent). Outcomes are appended, never edited: the latest one counts.

use leptos::prelude::*;

use super::agents::OutcomeCell;
use super::data::{debate_predictions, record_outcome, who_am_i};
use crate::protocol::types::display_name;

#[component]
pub fn DebatePredictions(id: String) -> impl IntoView {
    let version = RwSignal::new(0u32);
    let rows = Resource::new(
        move || (id.clone(), version.get()),
        |(id, _)| debate_predictions(id),
    );
    let me = Resource::new(|| (), |()| who_am_i());
    let record = Action::new(move |(p, verdict): &(String, String)| {
        let (p, verdict) = (p.clone(), verdict.clone());
        async move {
            let r = record_outcome(p, verdict).await;
            if r.is_ok() {
                version.update(|v| *v += 1);
            }
            r
        }
    });
    let failed = move || {
        record
            .value()
            .get()
            .and_then(|r| r.err())
            .map(|e| super::clean_error(&e.to_string()))
    };
    view! {
        <section class="panel" data-testid="debate-predictions">
            <h2>"Predictions and outcomes"</h2>
            <p class="muted">"What each agent held when the debate ended. Its outcome, once known, goes into the agent's track record and moves its "<a href="/agents">"credibility"</a>"."</p>
            <Suspense fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    let is_judge = matches!(me.await, Ok(Some((_, ref role))) if role == "judge");
                    match rows.await {
                        Ok(rows) if rows.is_empty() => view! { <p class="muted">"No predictions: the debate has not ended with a decision."</p> }.into_any(),
                        Ok(rows) => view! {
                            <table class="predictions">
                                <thead><tr><th>"Agent"</th><th>"Held"</th><th>"Confidence"</th><th>"Outcome"</th>{is_judge.then(|| view! { <th>"Record"</th> })}</tr></thead>
                                <tbody>
                                    {rows.into_iter().map(|p| {
                                        let pid = p.id.clone();
                                        view! {
                                            <tr data-agent=p.agent.clone()>
                                                <td><a href=format!("/agents/{}", p.identity)>{display_name(&p.agent)}</a></td>
                                                <td>{p.held.clone()}</td>
                                                <td>{format!("{:.0} %", p.confidence * 100.0)}</td>
                                                <td><OutcomeCell p=p.clone()/></td>
                                                {is_judge.then(|| {
                                                    let button = move |verdict: &'static str, label: &'static str| {
                                                        let pid = pid.clone();
                                                        view! {
                                                            <button class="small" data-testid=format!("outcome-{verdict}")
                                                                disabled=move || record.pending().get()
                                                                on:click=move |_| { record.dispatch((pid.clone(), verdict.to_owned())); }>
                                                                {label}
                                                            </button>
                                                        }
                                                    };
                                                    view! { <td class="outcome-buttons">{button("right", "Right")}{button("wrong", "Wrong")}{button("overridden", "Override")}</td> }
                                                })}
                                            </tr>
                                        }
                                    }).collect_view()}
                                </tbody>
                            </table>
                            {(!is_judge).then(|| view! { <p class="muted">"Judges record outcomes here after "<a href="/judge/sign-in">"signing in"</a>"."</p> })}
                        }.into_any(),
                        Err(e) => view! { <p class="form-error">{format!("Could not load the predictions: {e}")}</p> }.into_any(),
                    }
                })}
            </Suspense>
            {move || failed().map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
        </section>
    }
}
