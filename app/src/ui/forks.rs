//! FK-1/FK-3 on the audit page: where a fork came from, the debate's forks side by side with how
//! many reached its decision, and a form to fork it from any event of its timeline.

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use super::clean_error;
use super::lineage::{Ancestor, Lineage};
use super::widgets::StatusPill;
use crate::api::MAX_BATCH;
use crate::protocol::event::DebateEvent;
use crate::protocol::run::{ForkAgent, ForkChanges};
use crate::protocol::shared::CommonEvent;
use crate::protocol::{Event, EventBody};

/// FK-2: where a fork came from, nearest parent first (a fork of a fork names both).
pub fn lineage(events: &[Event]) -> Vec<Ancestor> {
    events
        .iter()
        .map_while(|e| match &e.body {
            EventBody::Common(CommonEvent::ForkedFrom {
                debate,
                after_seq,
                changes,
                ..
            }) => Some((debate.clone(), *after_seq, changes.clone())),
            _ => None,
        })
        .collect()
}

/// The agents a debate's log names, for the fork form's choice of agent.
pub fn agent_ids(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::Debate(DebateEvent::DebateStarted { agents, .. }) => {
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
    // Bumped by a batch of forks that has ended: the list and the comparison load again.
    let reload = RwSignal::new(0u32);
    Effect::new(move |_| {
        reload.track();
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
            <ForkForm id=form_id.get_value() agents after reload/>
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

/// FK-1/FK-4: the fork form's seeds: none (keep the seed), one (`7`), a list (`1, 2, 3`) or a
/// range (`1-5`), at most [`MAX_BATCH`], each once; or what is wrong with them.
pub fn seeds_of(text: &str) -> Result<Vec<u64>, String> {
    const FORM: &str = "a whole number, a list (1, 2, 3) or a range (1-5)";
    let mut seeds: Vec<u64> = Vec::new();
    // "1 - 5" and "1–5" (an en dash, as typed by autocorrection) are ranges too.
    let text = text.replace(['–', '—'], "-");
    let text = text.split('-').map(str::trim).collect::<Vec<_>>().join("-");
    for part in text.split([',', ' ', ';']).filter(|p| !p.trim().is_empty()) {
        let part = part.trim();
        let number = |t: &str| {
            t.trim()
                .parse::<u64>()
                .map_err(|_| format!("seed: \"{part}\" is not {FORM}"))
        };
        let (from, to) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(part)?, number(part)?),
        };
        if to < from {
            return Err(format!("seed: the range {part} runs backwards"));
        }
        if to - from >= MAX_BATCH as u64 || seeds.len() + (to - from) as usize >= MAX_BATCH {
            return Err(format!("seed: at most {MAX_BATCH} forks at once"));
        }
        for s in from..=to {
            if seeds.contains(&s) {
                return Err(format!("seed: {s} is given twice"));
            }
            seeds.push(s);
        }
    }
    Ok(seeds)
}

/// FK-1: what the fork form asks for, read from its fields, or what is wrong with them.
fn form_changes(
    seed: Option<u64>,
    note: String,
    (agent, model): (String, &str),
    without: String,
) -> Result<ForkChanges, String> {
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
fn ForkForm(
    id: String,
    agents: Vec<String>,
    after: RwSignal<String>,
    /// Bumped when a batch has ended, so the panel shows its forks.
    reload: RwSignal<u32>,
) -> impl IntoView {
    let seed = RwSignal::new(String::new());
    let note = RwSignal::new(String::new());
    let agent = RwSignal::new(String::new());
    let model = RwSignal::new(String::new());
    let without = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    // FK-4: several seeds run as one batch, which answers how often the decision held.
    let batch = Action::new(
        |(id, after, seeds, changes): &(String, u64, Vec<u64>, ForkChanges)| {
            super::data::fork_batch(id.clone(), *after, seeds.clone(), changes.clone())
        },
    );
    let held = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if let Some(result) = batch.value().get() {
            match result {
                Ok(summary) => {
                    error.set(None);
                    held.set(Some(summary));
                }
                Err(e) => error.set(Some(clean_error(&e.to_string()))),
            }
            // The batch's forks are listed, also those made before a refusal part-way.
            reload.update(|n| *n += 1);
        }
    });
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
        let seeds = match seeds_of(&seed.get_untracked()) {
            Ok(seeds) => seeds,
            Err(e) => {
                error.set(Some(e));
                return;
            }
        };
        let one = (seeds.len() == 1).then(|| seeds[0]);
        let changes = form_changes(
            one,
            note.get_untracked(),
            (agent.get_untracked(), &model.get_untracked()),
            without.get_untracked(),
        );
        match changes {
            Ok(changes) if seeds.len() > 1 => {
                error.set(None);
                held.set(None);
                batch.dispatch((parent.get_value(), n, seeds, changes));
            }
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
            <label title="One seed forks once; a list (1, 2, 3) or a range (1-5) runs a fork per seed and says how often the decision held">" with seed "
                <input type="text" name="seed" placeholder="the same, or 1-5" data-testid="fork-seed"
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
            <button type="submit" data-testid="fork-submit" disabled=move || batch.pending().get()>"Fork from here"</button>
            <span class="muted">" The events up to there are copied, not asked again; the fork goes on live."</span>
        </form>
        {move || error.get().map(|e| view! { <p class="form-error" role="alert" data-testid="fork-error">{e}</p> })}
        {move || batch.pending().get().then(|| view! { <p class="muted" role="status">"Running the forks, one per seed…"</p> })}
        {move || held.get().map(|h| view! { <p role="status" data-testid="fork-batch"><strong>{h}</strong></p> })}
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

#[cfg(test)]
mod tests {
    use super::*;

    /// FK-4: the form's seeds, as the batch API takes them.
    #[test]
    fn seeds_are_one_a_list_or_a_range_fk_4() {
        let ok: [(&str, Vec<u64>); 8] = [
            ("", vec![]),
            ("  ", vec![]),
            ("7", vec![7]),
            ("1-5", vec![1, 2, 3, 4, 5]),
            ("1, 2,3 9", vec![1, 2, 3, 9]),
            ("4-6; 10", vec![4, 5, 6, 10]),
            ("1 - 3", vec![1, 2, 3]),
            ("2–4", vec![2, 3, 4]),
        ];
        for (text, seeds) in ok {
            assert_eq!(seeds_of(text), Ok(seeds), "{text:?}");
        }
        let bad = [
            ("seven", "is not a whole number"),
            ("5-1", "runs backwards"),
            ("1-21", "at most 20"),
            ("1-15, 16-21", "at most 20"),
            ("1, 2, 1", "1 is given twice"),
            ("1--3", "is not a whole number"),
            ("-3", "is not a whole number"),
        ];
        for (text, says) in bad {
            let e = seeds_of(text).expect_err(text);
            assert!(e.contains(says), "{text:?}: {e}");
        }
        assert_eq!(seeds_of("1-20").map(|s| s.len()), Ok(MAX_BATCH));
    }
}
