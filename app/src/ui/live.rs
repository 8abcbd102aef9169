//! UI-2: the live view. Server-rendered from the log so far, then fed by SSE in the browser; every
//! update goes through the same reducer as the server's.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;

use super::data::get_debate;
use super::widgets::{CardView, DecisionBanner, StatusPill};
use crate::api::DebateDetail;
use crate::protocol::reducer::Status;
use crate::protocol::DebateView;

/// The SSE connection as the viewer experiences it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub enum Connection {
    Connecting,
    Live,
    Reconnecting,
    Closed,
    Failed,
}

#[component]
pub fn LivePage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let detail = Resource::new(id, get_debate);

    view! {
        <Suspense fallback=|| view! { <p class="muted">"Loading debate…"</p> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Ok(Some(d)) => view! { <LiveDebate detail=d/> }.into_any(),
                    Ok(None) => {
                        super::set_status_not_found();
                        view! {
                            <section class="panel empty">
                                <h1>"No such debate"</h1>
                                <p><A href="/">"Back to the debates"</A></p>
                            </section>
                        }
                            .into_any()
                    }
                    Err(e) => view! { <p class="form-error">{format!("Could not load the debate: {e}")}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn LiveDebate(detail: DebateDetail) -> impl IntoView {
    let state = RwSignal::new(DebateView::from_events(&detail.events));
    let finished = state.with_untracked(|v| v.status() != Status::Running);
    let conn = RwSignal::new(if finished {
        Connection::Closed
    } else {
        Connection::Connecting
    });
    let id = detail.id.clone();

    #[cfg(feature = "hydrate")]
    if !finished {
        let id = id.clone();
        Effect::new(move |started: Option<()>| {
            if started.is_none() {
                stream::connect(&id, state, conn);
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = &id;

    let status = move || state.with(|v| v.status().as_str());
    let progress = move || state.with(DebateView::progress_percent);
    let stage = move || {
        state.with(|v| {
            let round = v.rounds.iter().find(|r| r.round == v.current_round);
            match (v.status(), round) {
                (Status::Finished, _) => "Debate finished".to_owned(),
                (Status::Interrupted, _) => "Interrupted".to_owned(),
                (_, Some(r)) => format!(
                    "Round {} of {} · {} · {}/{} messages",
                    r.round,
                    v.rounds.len(),
                    r.name,
                    r.received,
                    r.expected
                ),
                (_, None) => "Starting…".to_owned(),
            }
        })
    };
    let rounds = move || state.with(|v| v.rounds.iter().map(|r| r.round).collect::<Vec<_>>());
    let query = detail.query.clone();

    view! {
        <Title text=format!("Consilium · {}", truncate(&detail.query, 60))/>
        <section class="panel debate-head">
            <div class="debate-meta">
                <span class="proto">{detail.protocol.to_uppercase()}</span>
                <span class="muted">{format!("seed {}", detail.seed)}</span>
                <StatusPillLive status/>
                <ConnectionBadge conn/>
            </div>
            <h1 class="debate-query">{query}</h1>
            <div class="progress" data-testid="progress">
                <div class="progress-track">
                    <div class="progress-fill" style=move || format!("width: {}%", progress())></div>
                </div>
                <span class="progress-text" data-testid="stage">{stage}</span>
            </div>
        </section>

        {move || state.with(|v| v.interrupted.clone()).map(|reason| view! {
            <section class="panel interrupted" role="alert">{format!("This debate was interrupted: {reason}")}</section>
        })}
        {move || state.with(|v| v.decision.clone()).map(|outcome| view! { <DecisionBanner outcome/> })}

        <section class="board" style=move || format!("--agents: {}", state.with(|v| v.agents.len().max(1)))>
            <div class="columns-head">
                {move || {
                    state
                        .with(|v| v.agents.clone())
                        .into_iter()
                        .map(|a| {
                            let agent = a.id.clone();
                            let thinking = Memo::new(move |_| state.with(|v| v.is_thinking(&agent)));
                            view! {
                                <div class="agent-head" class:thinking=thinking data-agent=a.id.clone()>
                                    <span class="agent-name">{a.display_name()}</span>
                                    <span class="agent-question">{a.role.question()}</span>
                                    <span class="thinking-indicator" aria-live="polite">
                                        {move || thinking.get().then_some("thinking")}
                                        <span class="dots"></span>
                                    </span>
                                </div>
                            }
                        })
                        .collect_view()
                }}
            </div>
            <For each=rounds key=|r| *r let:round>
                <RoundSection state round/>
            </For>
        </section>
    }
}

#[component]
fn RoundSection(state: RwSignal<DebateView>, round: u8) -> impl IntoView {
    let info = move || {
        state.with(|v| {
            v.rounds
                .iter()
                .find(|r| r.round == round)
                .map(|r| (r.name.clone(), r.received, r.expected, r.started))
                .unwrap_or_default()
        })
    };
    let phase = move || {
        let (_, received, expected, started) = info();
        if !started {
            "pending"
        } else if received >= expected {
            "done"
        } else {
            "active"
        }
    };
    let agents = move || state.with(|v| v.agents.iter().map(|a| a.id.clone()).collect::<Vec<_>>());
    view! {
        <div class=move || format!("round {}", phase()) data-round=round>
            <h2 class="round-head">
                <span class="round-no">{format!("Round {round}")}</span>
                <span class="round-name">{move || info().0}</span>
                <span class="round-count">{move || format!("{}/{}", info().1, info().2)}</span>
            </h2>
            <div class="round-columns">
                <For each=agents key=|a| a.clone() let:agent>
                    <div class="column" data-agent=agent.clone()>
                        <For
                            each={
                                let agent = agent.clone();
                                move || {
                                    state.with(|v| {
                                        v.rounds
                                            .iter()
                                            .find(|r| r.round == round)
                                            .map(|r| r.cards.iter().filter(|c| c.agent == agent).cloned().collect::<Vec<_>>())
                                            .unwrap_or_default()
                                    })
                                }
                            }
                            key=|c| (c.seq, c.tone)
                            let:card
                        >
                            <CardView card/>
                        </For>
                    </div>
                </For>
            </div>
        </div>
    }
}

#[component]
fn StatusPillLive(
    status: impl Fn() -> &'static str + Send + Sync + Copy + 'static,
) -> impl IntoView {
    move || view! { <StatusPill status=status()/> }
}

#[component]
fn ConnectionBadge(conn: RwSignal<Connection>) -> impl IntoView {
    move || {
        let (class, text) = match conn.get() {
            Connection::Connecting => ("conn connecting", "connecting…"),
            Connection::Live => ("conn live", "live"),
            Connection::Reconnecting => ("conn reconnecting", "reconnecting…"),
            Connection::Closed => ("conn closed", "complete log"),
            Connection::Failed => ("conn failed", "stream unavailable"),
        };
        view! { <span class=class data-testid="connection">{text}</span> }
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

#[cfg(feature = "hydrate")]
mod stream {
    //! The browser's EventSource, folded through the shared reducer. EventSource reconnects by
    //! itself and sends `Last-Event-ID`, so the server resumes exactly after the last event seen.

    use leptos::prelude::*;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    use web_sys::{EventSource, MessageEvent};

    use super::Connection;
    use crate::protocol::{DebateView, Event};

    pub fn connect(id: &str, state: RwSignal<DebateView>, conn: RwSignal<Connection>) {
        let after = state.with_untracked(|v| v.last_seq);
        let url = format!("/api/debates/{id}/events?after={after}");
        let Ok(source) = EventSource::new(&url) else {
            conn.set(Connection::Failed);
            return;
        };
        let handle = StoredValue::new_local(source.clone());

        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let Some(text) = e.data().as_string() else {
                return;
            };
            let Ok(event) = serde_json::from_str::<Event>(&text) else {
                leptos::logging::warn!("ignoring an unreadable event: {text}");
                return;
            };
            let terminal = event.body.is_terminal();
            state.update(|v| {
                v.apply(&event);
            });
            if terminal {
                handle.with_value(EventSource::close);
                conn.set(Connection::Closed);
            } else if conn.get_untracked() != Connection::Live {
                conn.set(Connection::Live);
            }
        });
        let on_open = Closure::<dyn FnMut()>::new(move || conn.set(Connection::Live));
        let on_error = Closure::<dyn FnMut()>::new(move || {
            let closed = handle.with_value(|s| s.ready_state() == EventSource::CLOSED);
            if conn.get_untracked() != Connection::Closed {
                conn.set(if closed {
                    Connection::Failed
                } else {
                    Connection::Reconnecting
                });
            }
        });
        source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        // The callbacks live as long as the page; the source is closed when the view goes away.
        on_message.forget();
        on_open.forget();
        on_error.forget();
        on_cleanup(move || handle.with_value(EventSource::close));
    }
}
