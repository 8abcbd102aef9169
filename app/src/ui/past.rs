//! The home page's list of past debates: newest first, searched by question, a page at a time
//! ("Load more" asks for the debates older than the last one shown).

use leptos::prelude::*;
use leptos_router::components::A;

use super::data::{baseline_counts, list_debates};
use super::widgets::{DecisionBadge, StatusPill};
use crate::api::{DebateSummary, Protocol, HOME_PAGE_SIZE};

#[allow(clippy::too_many_lines)] // one list's markup with its filters
#[component]
pub fn PastDebates() -> impl IntoView {
    // What is typed, and what the list shows (applied on submit).
    let typed = RwSignal::new(String::new());
    let applied = RwSignal::new(String::new());
    let first = Resource::new(
        move || applied.get(),
        |q| list_debates(None, Some(q).filter(|q| !q.trim().is_empty())),
    );
    // QL-1: how often debating changed what a plain vote would have decided.
    let counts = Resource::new(|| (), |_| baseline_counts());
    // Pages loaded after the first, and whether the last one was full (more may exist).
    let more = RwSignal::new(Vec::<DebateSummary>::new());
    let more_full = RwSignal::new(None::<bool>);
    let load_error = RwSignal::new(None::<String>);
    let load_more = Action::new(move |(before, q): &(String, String)| {
        let (before, q) = (before.clone(), q.clone());
        async move { list_debates(Some(before), Some(q).filter(|q| !q.trim().is_empty())).await }
    });
    Effect::new(move |_| {
        if let Some(result) = load_more.value().get() {
            match result {
                Ok(page) => {
                    more_full.set(Some(page.len() as u32 >= HOME_PAGE_SIZE));
                    more.update(|m| m.extend(page));
                    load_error.set(None);
                }
                Err(e) => load_error.set(Some(e.to_string())),
            }
        }
    });
    let search = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        more.set(Vec::new());
        more_full.set(None);
        applied.set(typed.get_untracked().trim().to_owned());
    };

    view! {
        <section class="panel">
            <div class="list-head">
                <h2>"Past debates"</h2>
                <form class="search" role="search" on:submit=search>
                    <input type="search" name="q" aria-label="Search past debates" placeholder="Search questions…"
                        data-testid="debate-search"
                        prop:value=move || typed.get() on:input=move |ev| typed.set(event_target_value(&ev))/>
                    <button type="submit" class="secondary">"Search"</button>
                </form>
            </div>
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move {
                    counts.await.ok().filter(|c| c.decided > 0).map(|c| view! {
                        <p class="muted delta-count" data-testid="debate-delta-count">
                            {format!(
                                "The debate changed the outcome in {} of {} decided debate{} (against a plain vote of the agents' first positions).",
                                c.changed,
                                c.decided,
                                if c.decided == 1 { "" } else { "s" }
                            )}
                        </p>
                    })
                })}
            </Suspense>
            <Suspense fallback=|| view! { <p class="muted">"Loading debates…"</p> }>
                {move || Suspend::new(async move {
                    match first.await {
                        Ok(list) if list.is_empty() => {
                            let q = applied.get_untracked();
                            let text = if q.is_empty() {
                                "No debates yet. Ask the agents something above.".to_owned()
                            } else {
                                format!("No debate's question contains “{q}”.")
                            };
                            view! { <p class="muted" data-testid="debate-list-empty">{text}</p> }.into_any()
                        }
                        Ok(list) => {
                            let first_full = list.len() as u32 >= HOME_PAGE_SIZE;
                            let last_first = list.last().map(|d| d.id.clone()).unwrap_or_default();
                            let can_load = move || more_full.get().unwrap_or(first_full);
                            let next_cursor = move || {
                                more.with(|m| m.last().map(|d| d.id.clone()))
                                    .unwrap_or_else(|| last_first.clone())
                            };
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
                                        {list.into_iter().map(row).collect_view()}
                                        {move || more.get().into_iter().map(row).collect_view()}
                                    </tbody>
                                </table>
                                {move || can_load().then(|| {
                                    let next_cursor = next_cursor.clone();
                                    view! {
                                        <button class="secondary load-more" data-testid="load-more"
                                            disabled=move || load_more.pending().get()
                                            on:click=move |_| {
                                                load_more.dispatch((next_cursor(), applied.get_untracked()));
                                            }>
                                            {move || if load_more.pending().get() { "Loading…" } else { "Load more" }}
                                        </button>
                                    }
                                })}
                                {move || load_error.get().map(|e| view! {
                                    <p class="form-error" role="alert">{format!("Could not load more debates: {e}")}</p>
                                })}
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

fn row(d: DebateSummary) -> impl IntoView {
    view! {
        <tr>
            <td class="q">
                <A href=format!("/debates/{}", d.id)>{d.query}</A>
            </td>
            <td>{Protocol::short(&d.protocol).to_owned()}</td>
            <td><StatusPill status=d.status.as_str()/></td>
            <td>
                <DecisionBadge decision=d.decision/>
                {(d.changed_outcome == Some(true)).then(|| view! {
                    <span class="changed-tag" title="The debate changed what a plain vote of the first positions decided">"debate changed it"</span>
                })}
            </td>
            <td class="muted">{short_time(&d.created_at)}</td>
        </tr>
    }
}

/// "2026-11-22T10:04:05.123Z" → "2026-11-22 10:04 UTC".
fn short_time(ts: &str) -> String {
    match (ts.get(0..10), ts.get(11..16)) {
        (Some(d), Some(t)) => format!("{d} {t} UTC"),
        _ => ts.to_owned(),
    }
}
