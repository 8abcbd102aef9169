//! FK-1/FK-3 on the audit page: where a fork came from, the debate's forks side by side with how
//! many reached its decision, and a form to fork it from any event of its timeline.

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use super::clean_error;
use super::widgets::StatusPill;
use crate::protocol::{Event, EventBody};

/// The parent a fork came from, the event it goes on after, and its seed change.
pub fn lineage(events: &[Event]) -> Option<(String, u64, Option<u64>)> {
    match events.first().map(|e| &e.body) {
        Some(EventBody::ForkedFrom {
            debate,
            after_seq,
            changes,
            ..
        }) => Some((debate.clone(), *after_seq, changes.seed)),
        _ => None,
    }
}

/// The last event a fork may go on after: the one before the decision (or the last).
pub fn last_forkable(events: &[Event]) -> u64 {
    events
        .iter()
        .rev()
        .find(|e| !e.body.is_terminal())
        .map_or(1, |e| e.seq)
}

#[component]
pub fn ForksPanel(
    id: String,
    /// Where this debate was forked from, when it is a fork ([`lineage`]).
    from: Option<(String, u64, Option<u64>)>,
    /// [`last_forkable`].
    last: u64,
) -> impl IntoView {
    let compare_id = StoredValue::new(id.clone());
    let forks = Resource::new(move || (), {
        let id = id.clone();
        move |()| super::data::debate_forks(id.clone())
    });
    let after = RwSignal::new(last.to_string());
    let seed = RwSignal::new(String::new());
    let note = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let send = Action::new(
        |(id, after, seed, note): &(String, u64, Option<u64>, Option<String>)| {
            super::data::fork_debate(id.clone(), *after, *seed, note.clone())
        },
    );
    Effect::new(move |_| {
        if let Some(result) = send.value().get() {
            match result {
                Ok(child) => use_navigate()(&format!("/debates/{child}"), Default::default()),
                Err(e) => error.set(Some(clean_error(&e.to_string()))),
            }
        }
    });
    let parent = StoredValue::new(id);
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Ok(n) = after.get_untracked().trim().parse::<u64>() else {
            error.set(Some("event: a number from the timeline".into()));
            return;
        };
        let s = match seed.get_untracked().trim() {
            "" => None,
            t => match t.parse::<u64>() {
                Ok(s) => Some(s),
                Err(_) => {
                    error.set(Some("seed: a whole number, or empty to keep it".into()));
                    return;
                }
            },
        };
        let typed = note.get_untracked();
        let note = (!typed.trim().is_empty()).then_some(typed);
        error.set(None);
        send.dispatch((parent.get_value(), n, s, note));
    };
    view! {
        <section class="panel forks" data-testid="forks">
            <h2>"Forks"</h2>
            {from.map(|(debate, after_seq, seed)| view! {
                <p data-testid="lineage">
                    "This debate is a fork of "
                    <a href=format!("/debates/{debate}/audit")>{debate.clone()}</a>
                    {format!(" after its event {after_seq}{}: the events up to there are its parent's, copied.",
                        seed.map(|s| format!(", its agents answering with seed {s}")).unwrap_or_default())}
                </p>
            })}
            <Suspense fallback=|| view! { <p class="muted">"Loading the forks…"</p> }>
                {move || Suspend::new(async move {
                    match forks.await {
                        Ok(f) if f.forks.is_empty() => view! {
                            <p class="muted" data-testid="forks-summary">"No forks yet: would it have gone the same way from another event, with another seed?"</p>
                        }.into_any(),
                        Ok(f) => view! {
                            <ForksTable forks=f/>
                            <super::compare::CompareView id=compare_id.get_value()/>
                        }.into_any(),
                        Err(e) => view! { <p class="form-error">{format!("Could not load the forks: {}", clean_error(&e.to_string()))}</p> }.into_any(),
                    }
                })}
            </Suspense>
            <form class="fork-form" data-testid="fork-form" on:submit=on_submit>
                <label>"Fork from event "
                    <input type="number" min="1" name="after_seq" data-testid="fork-after"
                        prop:value=after on:input=move |ev| after.set(event_target_value(&ev))/>
                </label>
                <label>" with seed "
                    <input type="text" inputmode="numeric" name="seed" placeholder="the same" data-testid="fork-seed"
                        prop:value=seed on:input=move |ev| seed.set(event_target_value(&ev))/>
                </label>
                <label class="fork-note">" and a note for every agent "
                    <input type="text" name="note" placeholder="New evidence: …" data-testid="fork-note"
                        prop:value=note on:input=move |ev| note.set(event_target_value(&ev))/>
                </label>
                <button type="submit" data-testid="fork-submit">"Fork from here"</button>
                <span class="muted">" The events up to there are copied, not asked again; the fork goes on live."</span>
            </form>
            {move || error.get().map(|e| view! { <p class="form-error" role="alert" data-testid="fork-error">{e}</p> })}
        </section>
    }
}

/// FK-3: the forks side by side: where each went on from, its seed, where it went another way
/// than its parent, and its decision against the parent's.
#[component]
fn ForksTable(forks: crate::api::Forks) -> impl IntoView {
    let f = forks;
    view! {
        <p data-testid="forks-summary"><strong>{f.summary.clone()}</strong></p>
        <table class="forks-table" data-testid="forks-table">
            <thead><tr><th>"Fork"</th><th>"After event"</th><th>"Seed"</th><th>"Went another way at"</th><th>"Status"</th><th>"Decision"</th></tr></thead>
            <tbody>
                {f.forks.iter().map(|k| {
                    let same = k.decision.is_some() && k.decision == f.decision;
                    view! {
                        <tr class:same=same data-fork=k.id.clone()>
                            <td><a href=format!("/debates/{}/audit", k.id)>{k.id.clone()}</a></td>
                            <td>{k.after_seq}</td>
                            <td>{k.seed}</td>
                            <td data-testid="diverged">{k.diverged_at.map_or_else(|| "—".to_owned(), |n| format!("event {n}"))}</td>
                            <td><StatusPill status=k.status.as_str()/></td>
                            <td>{k.decision.clone().unwrap_or_else(|| "—".into())}{if same { " (same)" } else { "" }}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}
