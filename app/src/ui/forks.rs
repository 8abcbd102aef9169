//! FK-1/FK-3 on the audit page: where a fork came from, the debate's forks side by side with how
//! many reached its decision, and a form to fork it from any event of its timeline.

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use super::clean_error;
use super::lineage::{Ancestor, Lineage};
use super::widgets::StatusPill;
use crate::protocol::run::{ForkAgent, ForkChanges};
use crate::protocol::{Event, EventBody};

/// FK-2: where a fork came from, nearest parent first (a fork of a fork names both).
pub fn lineage(events: &[Event]) -> Vec<Ancestor> {
    events
        .iter()
        .map_while(|e| match &e.body {
            EventBody::ForkedFrom {
                debate,
                after_seq,
                changes,
                ..
            } => Some((debate.clone(), *after_seq, changes.clone())),
            _ => None,
        })
        .collect()
}

/// The agents a debate's log names, for the fork form's choice of agent.
pub fn agent_ids(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::DebateStarted { agents, .. } => {
                Some(agents.iter().map(|a| a.id.clone()).collect())
            }
            _ => None,
        })
        .unwrap_or_default()
}

/// The last event a fork may go on after: the one before the decision (or the last).
pub fn last_forkable(events: &[Event]) -> u64 {
    events
        .iter()
        .rev()
        .find(|e| !e.body.is_terminal())
        .map_or(1, |e| e.seq)
}

/// FK-3: the event the fork form goes on after, which the timeline's "fork from here" sets
/// (given as context on the audit page only: the offline viewer cannot fork).
#[derive(Clone, Copy)]
pub struct ForkPoint(pub RwSignal<String>);

#[component]
pub fn ForksPanel(
    id: String,
    /// Where this debate was forked from, nearest first ([`lineage`]).
    from: Vec<Ancestor>,
    /// The debate's agents ([`agent_ids`]).
    agents: Vec<String>,
    /// The event the form offers.
    after: RwSignal<String>,
    /// The debate's log (a fork's lineage is checked against its parent's).
    events: StoredValue<Vec<Event>>,
) -> impl IntoView {
    let form_id = StoredValue::new(id.clone());
    // The forks and their comparison, loaded together by the browser once the page runs (an
    // effect: the server renders "Loading" and the page it hydrates holds no rows that depend
    // on them).
    let forks =
        RwSignal::new(None::<Result<(crate::api::Forks, Option<crate::api::Comparison>), String>>);
    Effect::new(move |_| {
        let id = id.clone();
        leptos::task::spawn_local(async move {
            forks.set(Some(load_forks(id).await));
        });
    });
    view! {
        <section class="panel forks" data-testid="forks">
            <h2>"Forks"</h2>
            {(!from.is_empty()).then(|| view! { <Lineage from=from.clone() events/> })}
            {move || match forks.get() {
                None => view! { <p class="muted">"Loading the forks…"</p> }.into_any(),
                Some(Ok((f, _))) if f.forks.is_empty() => view! {
                    <p class="muted" data-testid="forks-summary">"No forks yet: would it have gone the same way from another event, with another seed?"</p>
                }.into_any(),
                Some(Ok((f, compared))) => view! {
                    <ForksTable forks=f/>
                    {compared.filter(|c| c.columns.len() > 1).map(|c| view! { <super::compare::CompareTable c/> })}
                }.into_any(),
                Some(Err(e)) => view! { <p class="form-error">{format!("Could not load the forks: {e}")}</p> }.into_any(),
            }}
            <ForkForm id=form_id.get_value() agents after/>
        </section>
    }
}

/// FK-3: debate `id`'s forks, and their comparison when it has any.
async fn load_forks(
    id: String,
) -> Result<(crate::api::Forks, Option<crate::api::Comparison>), String> {
    let listed = super::data::debate_forks(id.clone())
        .await
        .map_err(|e| clean_error(&e.to_string()))?;
    if listed.forks.is_empty() {
        return Ok((listed, None));
    }
    let compared = super::data::debate_compare(id)
        .await
        .map_err(|e| clean_error(&e.to_string()))?;
    Ok((listed, Some(compared)))
}

/// FK-1: what the fork form asks for, read from its fields, or what is wrong with them.
fn form_changes(
    seed: &str,
    note: String,
    (agent, model): (String, &str),
    without: String,
) -> Result<ForkChanges, String> {
    let seed = match seed.trim() {
        "" => None,
        t => Some(
            t.parse::<u64>()
                .map_err(|_| "seed: a whole number, or empty to keep it".to_owned())?,
        ),
    };
    let note = (!note.trim().is_empty()).then_some(note);
    let model = model.trim();
    let agents = match (agent.is_empty(), model.is_empty()) {
        (_, true) => Vec::new(),
        (true, false) => return Err("agent: choose whose model changes".into()),
        (false, false) => vec![ForkAgent {
            role: agent,
            backend: Some("openai".into()),
            model: Some(model.to_owned()),
        }],
    };
    Ok(ForkChanges {
        agents,
        remove: (!without.is_empty())
            .then_some(without)
            .into_iter()
            .collect(),
        seed,
        note,
        ..ForkChanges::default()
    })
}

/// FK-1: "fork from here": the event, another seed, another model for one agent, a note.
#[component]
fn ForkForm(id: String, agents: Vec<String>, after: RwSignal<String>) -> impl IntoView {
    let seed = RwSignal::new(String::new());
    let note = RwSignal::new(String::new());
    let agent = RwSignal::new(String::new());
    let model = RwSignal::new(String::new());
    let without = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let send = Action::new(|(id, after, changes): &(String, u64, ForkChanges)| {
        super::data::fork_debate(id.clone(), *after, changes.clone())
    });
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
        let changes = form_changes(
            &seed.get_untracked(),
            note.get_untracked(),
            (agent.get_untracked(), &model.get_untracked()),
            without.get_untracked(),
        );
        match changes {
            Ok(changes) => {
                error.set(None);
                send.dispatch((parent.get_value(), n, changes));
            }
            Err(e) => error.set(Some(e)),
        }
    };
    view! {
        <form class="fork-form" id="fork-form" data-testid="fork-form" on:submit=on_submit>
            <label>"Fork from event "
                <input type="number" min="1" name="after_seq" data-testid="fork-after"
                    prop:value=after on:input=move |ev| after.set(event_target_value(&ev))/>
            </label>
            <label>" with seed "
                <input type="text" inputmode="numeric" name="seed" placeholder="the same" data-testid="fork-seed"
                    prop:value=seed on:input=move |ev| seed.set(event_target_value(&ev))/>
            </label>
            <label>" another model for "
                <select name="agent" data-testid="fork-agent" on:change=move |ev| agent.set(event_target_value(&ev))>
                    <option value="" selected=true>"no agent"</option>
                    {agents.iter().map(|a| view! { <option value=a.clone()>{a.clone()}</option> }).collect_view()}
                </select>
            </label>
            <label>" model "
                <input type="text" name="model" placeholder="the same" data-testid="fork-model"
                    prop:value=model on:input=move |ev| model.set(event_target_value(&ev))/>
            </label>
            <label>" without "
                <select name="remove" data-testid="fork-remove" on:change=move |ev| without.set(event_target_value(&ev))>
                    <option value="" selected=true>"no one"</option>
                    {agents.iter().map(|a| view! { <option value=a.clone()>{a.clone()}</option> }).collect_view()}
                </select>
            </label>
            <label class="fork-note">" and a note for every agent "
                <input type="text" name="note" placeholder="New evidence: …" data-testid="fork-note"
                    prop:value=note on:input=move |ev| note.set(event_target_value(&ev))/>
            </label>
            <button type="submit" data-testid="fork-submit">"Fork from here"</button>
            <span class="muted">" The events up to there are copied, not asked again; the fork goes on live."</span>
        </form>
        {move || error.get().map(|e| view! { <p class="form-error" role="alert" data-testid="fork-error">{e}</p> })}
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
                            <td>{format!("{}{}", k.decision.as_deref().unwrap_or("—"), if same { " (same)" } else { "" })}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}
