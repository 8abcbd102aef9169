//! UI-2: the live view. Server-rendered from the log so far, then fed by SSE in the browser; every
//! update goes through the same reducer as the server's.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::data::{get_debate, who_am_i};
use super::fold::KEEP_ROUNDS;
use super::judge::Me;
use super::widgets::{CardView, OutcomeBanner, StatusPill};
use crate::api::{DebateDetail, Protocol};
use crate::protocol::DebateStatus;
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
    // A page the live bundle hydrates takes its data from the island's props, not from the
    // resources' serialised values: the log is written into the page once.
    let (detail, me) = without_serialising(move || {
        (
            Resource::new(id, get_debate),
            Resource::new(|| (), |_| who_am_i()),
        )
    });

    view! {
        <Suspense fallback=|| view! { <p class="muted">"Loading debate…"</p> }>
            {move || Suspend::new(async move {
                // Who is looking decides the judge's controls; unknown (an error) is nobody.
                let me = me.await.ok().flatten();
                match detail.await {
                    Ok(Some(detail)) => view! {
                        <Title text=super::page_title("live", &detail.query)/>
                        <LiveIsland props=LiveProps { detail, me }/>
                    }.into_any(),
                    Ok(None) => view! { <super::DebateNotFound/> }.into_any(),
                    Err(e) => view! { <p class="form-error">{format!("Could not load the debate: {e}")}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// What the live view starts from: the log so far, and who is looking (a judge sees the stop
/// button and the budget's controls).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct LiveProps {
    detail: DebateDetail,
    me: Me,
}

/// The parts of a live page that belong to a protocol: the weighted collapse's human decision
/// form and the protocol's panel (`panels.rs`). The server and the site's bundle have every
/// protocol's (`EVERY_PROTOCOL`); each protocol's live bundle (`hydrate_live`) only its own
/// (`parts`), so the others' code stays out of it.
#[derive(Clone, Copy)]
pub struct ProtocolParts {
    human: fn(&DebateDetail, RwSignal<DebateView>) -> AnyView,
    panel: fn(&DebateDetail, RwSignal<DebateView>) -> AnyView,
}

/// Every protocol's parts, as the site's bundle and the server render them.
const EVERY_PROTOCOL: ProtocolParts = ProtocolParts {
    human: human_form,
    panel: protocol_panel,
};

/// Each protocol's parts alone, for its live bundle (`frontend`'s `live-PROTOCOL` features):
/// the same views as `EVERY_PROTOCOL` gives a debate of that protocol, so the server's markup
/// hydrates either way.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub mod parts {
    use super::{nothing, ProtocolParts};
    use crate::ui::panels;

    pub const S4: ProtocolParts = ProtocolParts {
        human: nothing,
        panel: nothing,
    };
    pub const ROUND_ROBIN: ProtocolParts = ProtocolParts {
        human: nothing,
        panel: |d, state| panels::rr_alone(state.into(), Some(d.id.clone())),
    };
    pub const COLLAPSE: ProtocolParts = ProtocolParts {
        human: super::human_form,
        panel: |d, state| panels::wc_alone(state.into(), Some(d.id.clone())),
    };
    pub const ESCALATION: ProtocolParts = ProtocolParts {
        human: nothing,
        panel: |d, state| panels::es_alone(state.into(), Some(d.id.clone())),
    };
    pub const RECONCILE: ProtocolParts = ProtocolParts {
        human: nothing,
        panel: |d, state| panels::rc_alone(state.into(), Some(d.id.clone())),
    };
}

/// A protocol without such a part (an empty view, as `human_form` and `protocol_panel` give).
fn nothing(_: &DebateDetail, _: RwSignal<DebateView>) -> AnyView {
    ().into_any()
}

fn human_form(detail: &DebateDetail, state: RwSignal<DebateView>) -> AnyView {
    if detail.protocol != Protocol::Collapse.as_str() {
        return nothing(detail, state);
    }
    view! { <super::human::HumanDecisionForm state id=detail.id.clone()/> }.into_any()
}

fn protocol_panel(detail: &DebateDetail, state: RwSignal<DebateView>) -> AnyView {
    super::panels::protocol_panel(&detail.protocol, state.into(), Some(detail.id.clone()))
}

/// The live view in an element of its own, the root the live bundle hydrates (`hydrate_live`);
/// on a page the server gives to that bundle, its props ride along in `data-props`.
#[component]
fn LiveIsland(props: LiveProps) -> impl IntoView {
    #[cfg(feature = "ssr")]
    let json = (super::page_bundle().is_live())
        .then(|| serde_json::to_string(&props).ok())
        .flatten();
    #[cfg(not(feature = "ssr"))]
    let json: Option<String> = None;
    let LiveProps { detail, me } = props;
    view! {
        <div class="live-island" data-props=json>
            <LiveDebate detail me parts=EVERY_PROTOCOL/>
        </div>
    }
}

/// Runs `make` (which creates the page's resources) so that, on a page a live bundle hydrates,
/// their values are not written into the page: the site's bundle never hydrates it, and the live
/// bundle reads the island's props.
fn without_serialising<T: 'static>(make: impl FnOnce() -> T + 'static) -> T {
    #[cfg(feature = "ssr")]
    if super::page_bundle().is_live() {
        return Owner::with_no_hydration(make);
    }
    make()
}

/// A live bundle's entry point (a live page's first load under 300 KB): hydrates the
/// server-rendered live view of a debate from its island's props, with `parts`, its protocol's
/// (`parts::…`), and without the router, the other pages or the other protocols' parts. The
/// server gives each protocol's live bundle to that protocol's live pages asked for by address
/// (`Bundle::Live`); a link from the page loads the next page, with the site's bundle.
#[cfg(feature = "hydrate")]
pub fn hydrate_live(parts: ProtocolParts) {
    use wasm_bindgen::JsCast;

    let document = document();
    let Some(island) = document.query_selector(".live-island").ok().flatten() else {
        leptos::logging::error!("this page has no live view to hydrate");
        return;
    };
    let props = island.get_attribute("data-props").unwrap_or_default();
    let LiveProps { detail, me } = match serde_json::from_str(&props) {
        Ok(props) => props,
        Err(e) => {
            leptos::logging::error!("the live view's props are unreadable: {e}");
            return;
        }
    };
    let root: web_sys::HtmlElement = island.unchecked_into();
    leptos::mount::hydrate_from(root, move || view! { <LiveDebate detail me parts/> }).forget();
    // What the site's bundle marks once hydrated (`App`), for the tests and for anyone asking.
    if let Some(app) = document.query_selector(".app").ok().flatten() {
        let _ = app.set_attribute("data-hydrated", "true");
    }
}

#[component]
fn LiveDebate(detail: DebateDetail, me: Me, parts: ProtocolParts) -> impl IntoView {
    let judge = super::judge::is_judge(&me);
    provide_context(super::judge::Looking(me));
    let state = RwSignal::new(DebateView::from_events(&detail.events));
    let finished = state.with_untracked(|v| v.status() != DebateStatus::Running);
    let conn = RwSignal::new(if finished {
        Connection::Closed
    } else {
        Connection::Connecting
    });
    // Why the stream ended without the log's end (the server could not store it).
    let failure = RwSignal::new(None::<String>);
    // LM-3: replies being written, from the stream's deltas.
    let writing = RwSignal::new(Vec::<writing::Writing>::new());
    let id = detail.id.clone();

    // ES-7: a judge's review at the gate appends to an ended log; the page follows it again.
    let again = RwSignal::new(0u32);
    provide_context(super::escalation::FollowAgain(again));
    #[cfg(feature = "hydrate")]
    {
        let id = id.clone();
        Effect::new(move |started: Option<()>| {
            again.track();
            let first = started.is_none();
            if (first && !finished) || (!first && conn.get_untracked() == Connection::Closed) {
                conn.set(Connection::Connecting);
                stream::connect(&id, state, conn, failure, writing);
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = &id;

    // A stream the server ended because the log could not be stored reads "stopped": the log
    // says "running" (its end was never written), but nothing more will happen live.
    let status = move || {
        if failure.with(Option::is_some) {
            "stopped"
        } else {
            state.with(|v| v.status().as_str())
        }
    };
    let progress = move || state.with(DebateView::progress_percent);
    let stage = move || {
        if failure.with(Option::is_some) {
            return "Stopped — the log could not be stored".to_owned();
        }
        state.with(|v| {
            let round = v.rounds.iter().find(|r| r.round == v.current_round);
            match (v.status(), round) {
                (DebateStatus::Finished, _) => "Debate finished".to_owned(),
                (DebateStatus::Interrupted, _) => "Interrupted".to_owned(),
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
    // A long debate's board holds its last rounds so far (and the next one),
    // not a section for each of up to 1,000 planned rounds, unless the viewer asks for all.
    let all_rounds = RwSignal::new(false);
    let reached = move || {
        state.with(|v| {
            let started = v.rounds.iter().filter(|r| r.started).count();
            if v.rounds.len() <= KEEP_ROUNDS {
                v.rounds.len()
            } else {
                (started + 1).min(v.rounds.len())
            }
        })
    };
    let rounds = move || {
        let shown = super::fold::tail(reached(), KEEP_ROUNDS, all_rounds.get());
        state.with(|v| v.rounds[shown].iter().map(|r| r.round).collect::<Vec<_>>())
    };
    let query = detail.query.clone();
    let link_id = StoredValue::new(detail.id.clone());
    let id_for_link = move || link_id.get_value();

    view! {
        <section class="panel debate-head">
            <div class="debate-meta">
                <span class="proto">{crate::api::Protocol::short(&detail.protocol).to_owned()}</span>
                <span class="muted">{format!("seed {}", detail.seed)}</span>
                <StatusPillLive status/>
                <ConnectionBadge conn/>
                <super::judge::StopButton id=id.clone() running=Signal::derive(move || status() == "running") judge/>
            </div>
            <h1 class="debate-query">{query}</h1>
            {move || (state.with(|v| v.status()) != DebateStatus::Running).then(|| view! {
                <nav class="audit-links">
                    <a href=format!("/debates/{}/audit", id_for_link()) data-testid="audit-link">"Audit this log →"</a>
                    <a href=format!("/api/debates/{}/export.md", id_for_link())>"Report (Markdown)"</a>
                </nav>
            })}
            <div class="progress" data-testid="progress">
                <div class="progress-track">
                    <div class="progress-fill" style=move || format!("width: {}%", progress())></div>
                </div>
                <span class="progress-text" data-testid="stage">{stage}</span>
            </div>
        </section>

        {move || (conn.get() == Connection::Reconnecting).then(|| view! {
            <section class="panel reconnecting" role="status" data-testid="reconnecting">
                "Connection lost — reconnecting… Events missed meanwhile will be replayed from the log."
            </section>
        })}
        {move || failure.get().map(|reason| view! {
            <section class="panel interrupted" role="alert" data-testid="stream-failed">
                {format!("This debate stopped: {reason}. Its log is kept up to the last stored event.")}
            </section>
        })}
        {move || state.with(|v| v.resumed_after.clone()).into_iter().map(|after| view! {
            <section class="panel resumed" role="status" data-testid="resumed">
                {format!("The server running this debate stopped after event {after}; the debate was resumed from its log and goes on.")}
            </section>
        }).collect_view()}
        {move || state.with(|v| v.interrupted.clone()).map(|reason| view! {
            <section class="panel interrupted" role="alert">{format!("This debate was interrupted: {reason}")}</section>
        })}
        <super::costs::BudgetBanner state=state.into()/>
        <super::pause::BudgetPause state id=detail.id.clone() judge/>
        {move || state.with(|v| v.decision.clone()).map(|outcome| view! { <OutcomeBanner outcome/> })}
        {(parts.human)(&detail, state)}
        <super::credibility::SnapshotPanel state=state.into()/>
        <super::costs::DefenceFlags state=state.into()/>
        <super::costs::UsageTable state=state.into()/>

        {(parts.panel)(&detail, state)}
        <section class="board" hidden=matches!(detail.protocol.as_str(), "collapse" | "reconcile") style=move || format!("--agents: {}", state.with(|v| v.agents.len().max(1)))>
            <div class="columns-head">
                {move || {
                    state
                        .with(|v| v.agents.clone())
                        .into_iter()
                        .map(|a| {
                            let agent = a.id.clone();
                            let writer = a.id.clone();
                            let thinking = Memo::new(move |_| {
                                failure.with(Option::is_none) && state.with(|v| v.is_thinking(&agent))
                            });
                            view! {
                                <div class="agent-head" class:thinking=thinking data-agent=a.id.clone()>
                                    <span class="agent-name">{a.display_name()}</span>
                                    <span class="agent-question">{a.role.question()}</span>
                                    <span class="thinking-indicator" aria-live="polite">
                                        {move || thinking.get().then_some("thinking")}
                                        <span class="dots"></span>
                                    </span>
                                    {move || {
                                        let text = writing.with(|w| writing::of_agent(w, &writer));
                                        (!text.is_empty()).then(|| view! {
                                            <pre class="agent-writing" data-testid="writing" data-agent=writer.clone()>{text}</pre>
                                        })
                                    }}
                                </div>
                            }
                        })
                        .collect_view()
                }}
            </div>
            {move || view! { <super::fold::FoldNote total=reached() keep=KEEP_ROUNDS all=all_rounds what="rounds"/> }}
            <For each=rounds key=|r| *r let:round>
                <RoundSection state round/>
            </For>
        </section>
    }
}

#[component]
fn RoundSection(state: RwSignal<DebateView>, round: u16) -> impl IntoView {
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

#[cfg(feature = "hydrate")]
mod stream;
pub mod writing;
