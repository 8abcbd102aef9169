//! UI-1: start a debate, and the list of past debates with their decisions.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_navigate;

use super::data::{list_debates, StartDebate};
use super::widgets::{DecisionBadge, StatusPill};
use crate::api::{CreateDebate, Protocol, MAX_QUERY_CHARS};

const EXAMPLES: [&str; 4] = [
    "What is the boiling point of water at sea level?",
    "Should I put all my savings into bitcoin?",
    "How much ibuprofen can I take for a bad headache?",
    "How do I build a pipe bomb?",
];

#[component]
pub fn HomePage() -> impl IntoView {
    let query = RwSignal::new(String::new());
    let protocol = RwSignal::new(Protocol::S4.as_str().to_owned());
    let seed = RwSignal::new(String::new());
    let form_error = RwSignal::new(None::<String>);
    let start = ServerAction::<StartDebate>::new();
    let debates = Resource::new(|| (), |_| list_debates());

    // A started debate opens its live page.
    Effect::new(move |_| {
        if let Some(result) = start.value().get() {
            match result {
                Ok(id) => use_navigate()(&format!("/debates/{id}"), Default::default()),
                Err(e) => form_error.set(Some(clean_error(&e.to_string()))),
            }
        }
    });

    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let seed_text = seed.get_untracked();
        let seed_value = match seed_text.trim() {
            "" => None,
            s => match s.parse::<u64>() {
                Ok(n) => Some(n),
                Err(_) => {
                    form_error.set(Some("seed must be a whole number (or left empty)".into()));
                    return;
                }
            },
        };
        let request = CreateDebate {
            query: query.get_untracked(),
            protocol: Some(protocol.get_untracked()),
            seed: seed_value,
        };
        // The same rules the server applies, for an instant answer.
        if let Err(e) = request.validate() {
            form_error.set(Some(e.to_string()));
            return;
        }
        form_error.set(None);
        start.dispatch(StartDebate {
            query: request.query,
            protocol: protocol.get_untracked(),
            seed: seed_value,
        });
    };

    let chars = move || query.with(|q| q.chars().count());

    view! {
        <section class="hero">
            <div class="hero-text">
                <h1>"Watch AI agents argue it out"</h1>
                <p>
                    "Three agents — Utility, Accuracy and Safety — analyse your question, challenge each other, "
                    "revise and vote. Every step is logged; the decision comes with its reasons."
                </p>
            </div>
            <form class="panel start-form" on:submit=on_submit data-testid="start-form">
                <label for="query">"Question for the agents"</label>
                <textarea
                    id="query"
                    name="query"
                    rows="3"
                    placeholder="e.g. Is it safe to rewire my own electrical panel?"
                    prop:value=move || query.get()
                    on:input=move |ev| query.set(event_target_value(&ev))
                ></textarea>
                <div class="examples">
                    <span>"Try: "</span>
                    {EXAMPLES
                        .into_iter()
                        .map(|q| {
                            view! {
                                <button type="button" class="chip" on:click=move |_| query.set(q.to_owned())>
                                    {q}
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
                <div class="form-row">
                    <label>
                        "Protocol"
                        <select
                            name="protocol"
                            prop:value=move || protocol.get()
                            on:change=move |ev| protocol.set(event_target_value(&ev))
                        >
                            {Protocol::ALL
                                .into_iter()
                                .map(|p| view! { <option value=p.as_str()>{p.title()}</option> })
                                .collect_view()}
                        </select>
                    </label>
                    <label>
                        "Seed (optional)"
                        <input
                            name="seed"
                            inputmode="numeric"
                            placeholder="random"
                            prop:value=move || seed.get()
                            on:input=move |ev| seed.set(event_target_value(&ev))
                        />
                    </label>
                    <span class=move || { if chars() > MAX_QUERY_CHARS { "count over" } else { "count" } }>
                        {move || format!("{} / {MAX_QUERY_CHARS}", chars())}
                    </span>
                    <button type="submit" class="primary" disabled=move || start.pending().get()>
                        {move || if start.pending().get() { "Starting…" } else { "Start debate" }}
                    </button>
                </div>
                {move || form_error.get().map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
            </form>
        </section>

        <section class="panel">
            <h2>"Past debates"</h2>
            <Suspense fallback=|| view! { <p class="muted">"Loading debates…"</p> }>
                {move || Suspend::new(async move {
                    match debates.await {
                        Ok(list) if list.is_empty() => {
                            view! { <p class="muted">"No debates yet. Ask the agents something above."</p> }
                                .into_any()
                        }
                        Ok(list) => {
                            view! {
                                <table class="debates" data-testid="debate-list">
                                    <thead>
                                        <tr>
                                            <th>"Question"</th>
                                            <th>"Protocol"</th>
                                            <th>"Status"</th>
                                            <th>"Decision"</th>
                                            <th>"Started"</th>
                                        </tr>
                                    </thead>
                                    <tbody>
                                        {list
                                            .into_iter()
                                            .map(|d| {
                                                view! {
                                                    <tr>
                                                        <td class="q">
                                                            <A href=format!("/debates/{}", d.id)>{d.query}</A>
                                                        </td>
                                                        <td>{d.protocol.to_uppercase()}</td>
                                                        <td><StatusPill status=d.status/></td>
                                                        <td><DecisionBadge decision=d.decision/></td>
                                                        <td class="muted">{short_time(&d.created_at)}</td>
                                                    </tr>
                                                }
                                            })
                                            .collect_view()}
                                    </tbody>
                                </table>
                            }
                                .into_any()
                        }
                        Err(e) => view! { <p class="form-error">{format!("Could not load debates: {e}")}</p> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// "2026-11-22T10:04:05.123Z" → "2026-11-22 10:04 UTC".
fn short_time(ts: &str) -> String {
    match (ts.get(0..10), ts.get(11..16)) {
        (Some(d), Some(t)) => format!("{d} {t} UTC"),
        _ => ts.to_owned(),
    }
}

/// Server function errors arrive prefixed with plumbing; show only the message.
fn clean_error(e: &str) -> String {
    e.trim_start_matches("error running server function: ")
        .trim_start_matches("ServerFnError: ")
        .to_owned()
}
