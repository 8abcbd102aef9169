//! UI-3: the audit view of a debate — verification verdict computed in the judge's browser (WASM),
//! each agent's position before and after the challenges, the challenge matrix, the vote chart and
//! a timeline of every event. `AuditBody` needs no router and no server: the offline viewer
//! renders the same component from a file.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::data::get_debate;
use super::widgets::{DecisionChip, OutcomeBanner, StatusPill};
use crate::api::DebateDetail;
use crate::audit::signature::SignatureCheck;
use crate::audit::{Audit, Check, Export, Journey};
use crate::protocol::event::DebateEvent;
use crate::protocol::types::display_name;
use crate::protocol::Position;

#[component]
pub fn AuditPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let detail = Resource::new(id, get_debate);
    view! {
        <Suspense fallback=|| view! { <p class="muted">"Loading the log…"</p> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Ok(Some(d)) => view! { <AuditDebate detail=d/> }.into_any(),
                    Ok(None) => view! { <super::DebateNotFound/> }.into_any(),
                    Err(e) => view! { <p class="form-error">{format!("Could not load the debate: {e}")}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn AuditDebate(detail: DebateDetail) -> impl IntoView {
    let id = detail.id.clone();
    // The heading shows the query as the hashed log records it, not the (unchained) debates row.
    let query = detail
        .events
        .iter()
        .find_map(|e| match &e.body {
            crate::protocol::EventBody::Debate(DebateEvent::DebateStarted { query, .. }) => {
                Some(query.clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| detail.query.clone());
    let from = super::forks::lineage(&detail.events);
    let agents = super::forks::agent_ids(&detail.events);
    // FK-2: only a fork's lineage is checked against its parent's log.
    let events = StoredValue::new(if from.is_empty() {
        Vec::new()
    } else {
        detail.events.clone()
    });
    let after = RwSignal::new(super::forks::last_forkable(&detail.events).to_string());
    provide_context(super::forks::ForkPoint(after));
    view! {
        <Title text=super::page_title("audit", &query)/>
        <section class="panel debate-head">
            <div class="debate-meta">
                <span class="proto">{crate::api::Protocol::short(&detail.protocol).to_owned()}</span>
                <span class="muted">{format!("seed {}", detail.seed)}</span>
                <StatusPill status=detail.status.as_str()/>
                <span class="muted">{format!("debate {}", detail.id)}</span>
            </div>
            <h1 class="debate-query">{query.clone()}</h1>
            <nav class="audit-links">
                <a href=format!("/debates/{id}")>"← Live view"</a>
                <a href=format!("/api/debates/{id}/export.json") download="">"Download the log (JSON)"</a>
                <a href=format!("/api/debates/{id}/export.md") download="">"Report (Markdown)"</a>
                <a href="/viewer.html" download="consilium-viewer.html">"Offline viewer"</a>
            </nav>
        </section>
        <AuditBody export=Export { id: Some(detail.id.clone()), events: detail.events, signature: detail.signature }/>
        <super::forks::ForksPanel id=detail.id from agents after events/>
        <super::outcomes::DebatePredictions id/>
    }
}

/// Everything a judge checks, from the events alone.
#[component]
pub fn AuditBody(export: Export) -> impl IntoView {
    let events = export.events.clone();
    // One fold of the log serves every panel below (SV-1), as on the live page.
    let audit = Audit::from_events(&events);
    let outcome = audit.view.decision.clone();
    let interrupted = audit.view.interrupted.clone();
    let result = RwSignal::new(None::<(Check, f64)>);
    let tampered_at =
        Signal::derive(move || result.with(|r| r.as_ref().and_then(|(c, _)| c.tampered_at())));
    let folded = Signal::stored(audit.view.clone());
    view! {
        <Verification export result/>
        {interrupted.map(|reason| view! {
            <section class="panel interrupted" role="alert">{format!("This debate was interrupted: {reason}")}</section>
        })}
        <super::costs::BudgetBanner state=folded/>
        {match outcome {
            Some(outcome) => view! { <OutcomeBanner outcome/> }.into_any(),
            None => view! { <section class="panel muted">"No decision in this log yet."</section> }.into_any(),
        }}
        <super::credibility::SnapshotPanel state=folded/>
        <super::costs::DefenceFlags state=folded/>
        <super::costs::UsageTable state=folded/>
        <super::whatif::WhatIfPanel events=events.clone()/>
        {super::panels::protocol_panel(&audit.view.protocol, folded, None)}
        {super::panels::panel_of(&audit.view.protocol).is_none().then(|| view! {
                <section class="panel">
                    <h2>"Before and after the challenges"</h2>
                    <p class="muted">"Each agent's independent position (round 1), what it did after being challenged (round 3) and its locked vote (round 4)."</p>
                    <div class="journeys">
                        {audit.view.s4.journeys.iter().cloned().map(|j| view! { <JourneyCard journey=j/> }).collect_view()}
                    </div>
                </section>
                <section class="panel">
                    <h2>"Challenge matrix"</h2>
                    <p class="muted">"Round 2: who challenged whom, arguing for which decision, and on what."</p>
                    <ChallengeMatrix audit=audit.clone()/>
                </section>
            })}
        <section class="panel">
            <h2>{format!("Timeline · {} events", super::costs::thousands(audit.timeline.len() as u64))}</h2>
            <Timeline audit tampered_at/>
        </section>
    }
}

/// SV-2 in the browser: the chain and the decision are checked by this page's WebAssembly, not
/// taken from the server. Server-rendered HTML only says it is about to happen.
#[component]
fn Verification(export: Export, result: RwSignal<Option<(Check, f64)>>) -> impl IntoView {
    // Who signed the log's end, checked with the chain.
    let signed = RwSignal::new(None::<SignatureCheck>);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let now = || {
            web_sys::window()
                .and_then(|w| w.performance())
                .map(|p| p.now())
                .unwrap_or_default()
        };
        let started = now();
        let (check, signature) = crate::audit::check_signed(&export, None);
        signed.set(Some(signature));
        result.set(Some((check, now() - started)));
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = (export, signed);

    move || {
        match result.get() {
        None => view! {
            <section class="panel verification pending" data-testid="verification" data-verdict="pending">
                <span class="verdict-icon">"⋯"</span>
                <div><strong>"Verifying in your browser…"</strong></div>
            </section>
        }
        .into_any(),
        Some((check, ms)) => {
            let (class, verdict, icon) = match &check {
                Check::Verified { .. } => ("verified", "verified", "✓"),
                Check::Unfinished { .. } => ("unfinished", "unfinished", "…"),
                Check::Failed { .. } => ("failed", "failed", "✗"),
            };
            // The headline is shown above; the list says what was checked.
            let mut details = check.details();
            details.pop();
            view! {
                <section class=format!("panel verification {class}") data-testid="verification" data-verdict=verdict>
                    <span class="verdict-icon">{icon}</span>
                    <div>
                        <strong data-testid="verdict">{check.headline()}</strong>
                        <ul class="checks">
                            {details.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                            {move || signed.get().map(|s| view! { <li data-testid="signature">{s.line()}</li> })}
                        </ul>
                        <p class="muted small">{format!(
                            "Checked by this page's WebAssembly in {ms:.1} ms: SHA-256 of every event's canonical JSON, each link to the previous hash, and the decision recomputed from the logged votes with the protocol's own code."
                        )}</p>
                    </div>
                </section>
            }
            .into_any()
        }
    }
    }
}

#[component]
fn JourneyCard(journey: Journey) -> impl IntoView {
    let summary = journey.change_summary();
    let changed = journey.revision.as_ref().is_some_and(|r| r.changed);
    let Journey {
        agent,
        initial,
        revision,
        vote,
        failures,
    } = journey;
    view! {
        <article class="journey" class:changed=changed data-agent=agent.id.clone() data-changed=changed.to_string()>
            <header>
                <span class="agent-name">{agent.display_name()}</span>
                <span class="agent-question">{agent.role.question()}</span>
            </header>
            <Step label="Round 1 · independent" position=initial/>
            <div class="change" data-testid="change">{summary}</div>
            <Step label="Round 3 · after the challenges" position=revision.map(|r| r.after)/>
            {vote.map(|v| view! {
                <div class="step vote">
                    <span class="step-label">"Round 4 · vote"</span>
                    <span><DecisionChip decision=v.decision/>{format!(" conf {} · risk {}", v.confidence, v.risk)}</span>
                </div>
            })}
            {failures.into_iter().map(|f| view! { <p class="failure-note">{f}</p> }).collect_view()}
        </article>
    }
}

#[component]
fn Step(label: &'static str, position: Option<Position>) -> impl IntoView {
    view! {
        <div class="step">
            <span class="step-label">{label}</span>
            {match position {
                Some(p) => view! {
                    <span><DecisionChip decision=p.decision/>{format!(" conf {} · risk {}", p.confidence, p.risk)}</span>
                    <p class="why">{p.reasoning}</p>
                }
                .into_any(),
                None => view! { <span class="muted">"not logged"</span> }.into_any(),
            }}
        </div>
    }
}

#[component]
fn ChallengeMatrix(audit: Audit) -> impl IntoView {
    let ids: Vec<String> = audit.view.agents.iter().map(|a| a.id.clone()).collect();
    let head = ids
        .iter()
        .map(|to| view! { <th scope="col">{format!("→ {}", display_name(to))}</th> })
        .collect_view();
    let rows = ids
        .iter()
        .map(|from| {
            let cells = ids
                .iter()
                .map(|to| match audit.view.s4.challenge(from, to) {
                    _ if from == to => view! { <td class="self">"—"</td> }.into_any(),
                    Some(c) => view! {
                        <td class="cell" data-from=from.clone() data-to=to.clone() title=c.text.clone()>
                            <DecisionChip decision=c.argues_for/>
                            <span class="challenge-text">{super::truncate(&c.text, 160)}</span>
                        </td>
                    }
                    .into_any(),
                    None => view! { <td class="missing">"no challenge logged"</td> }.into_any(),
                })
                .collect_view();
            view! { <tr><th scope="row">{display_name(from)}</th>{cells}</tr> }
        })
        .collect_view();
    view! {
        <table class="matrix" data-testid="challenge-matrix">
            <thead><tr><th>"Challenger"</th>{head}</tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// Rows per page of a long log's timeline: a log of up to this many events is
/// one table; a longer one is paged rather than thousands of rows at once (200, not
/// 500: the rows are most of what the page renders and hydrates besides the log itself).
const PAGE: usize = 200;

#[component]
fn Timeline(audit: Audit, tampered_at: Signal<Option<u64>>) -> impl IntoView {
    let total = audit.timeline.len();
    let entries = StoredValue::new(audit.timeline);
    // FK-1: "fork from here" on a page that can fork (not the offline viewer).
    let fork_at = use_context::<super::forks::ForkPoint>();
    let page = RwSignal::new(0usize);
    // A broken chain opens the page of the event where it broke.
    Effect::new(move |_| {
        let Some(seq) = tampered_at.get() else { return };
        if let Some(i) = entries.with_value(|es| es.iter().position(|e| e.seq == seq)) {
            page.set(i / PAGE);
        }
    });
    let rows = move || {
        let shown = super::fold::page(total, PAGE, page.get());
        entries.with_value(|es| es[shown].iter().cloned().map(|e| {
            let time = e.ts.get(11..23).unwrap_or(&e.ts).to_owned();
            let short = e.hash.get(..10).unwrap_or(&e.hash).to_owned();
            let seq = e.seq;
            view! {
                <tr class=format!("k-{}", e.kind) class:tampered=move || tampered_at.get() == Some(seq) data-seq=e.seq>
                    <td class="seq">{e.seq}</td>
                    <td class="time">{time}</td>
                    <td><span class="kind">{e.kind.replace('_', " ")}</span></td>
                    <td class="what">{e.summary}</td>
                    <td class="hash" title=e.hash.clone()><code>{short}</code></td>
                    {fork_at.map(|point| view! {
                        <td class="fork-here"><a href="#fork-form" data-testid="fork-here" title="Fork this debate after this event"
                            on:click=move |_| point.0.set(seq.to_string())>"fork from here"</a></td>
                    })}
                </tr>
            }
        }).collect_view())
    };
    view! {
        {(total > PAGE).then(|| view! { <Pager total page/> })}
        <table class="timeline" data-testid="timeline">
            <thead><tr><th>"#"</th><th>"Time (UTC)"</th><th>"Event"</th><th>"What happened"</th><th>"Hash"</th>
                {fork_at.map(|_| view! { <th><span class="sr-only">"Fork"</span></th> })}</tr></thead>
            <tbody>{rows}</tbody>
        </table>
        {(total > PAGE).then(|| view! { <Pager total page/> })}
    }
}

/// "Events 201–400 of 5,044" with the first, previous, next and last pages.
#[component]
fn Pager(total: usize, page: RwSignal<usize>) -> impl IntoView {
    let last = super::fold::pages(total, PAGE) - 1;
    let shown = move || {
        let r = super::fold::page(total, PAGE, page.get());
        let n = |i: usize| super::costs::thousands(i as u64);
        format!("Events {}–{} of {}", n(r.start + 1), n(r.end), n(total))
    };
    let go = move |to: usize| move |_| page.set(to.min(last));
    view! {
        <nav class="pager" data-testid="timeline-pager" aria-label="Timeline pages">
            <button type="button" disabled=move || { page.get() == 0 } on:click=go(0)>"« First"</button>
            <button type="button" disabled=move || { page.get() == 0 } on:click=move |_| page.update(|p| *p = p.saturating_sub(1))>"‹ Earlier"</button>
            <span class="pager-range" data-testid="timeline-range">{shown}</span>
            <button type="button" disabled=move || { page.get() >= last } on:click=move |_| page.update(|p| *p = (*p + 1).min(last))>"Later ›"</button>
            <button type="button" disabled=move || { page.get() >= last } on:click=go(last)>"Last »"</button>
        </nav>
    }
}
