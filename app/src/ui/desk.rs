//! UI-4: `/judge`, the judges' desk. Every case a judge may act on across the latest escalation
//! pipelines — held (level 3), provisional while running, awaiting review at the gate — in
//! priority order with each judge's load, the time left, both positions side by side with the
//! agents' credibility, the impact of the other position, precedents, and the ruling form.
//! Signed-in judges only: anyone else is told how to sign in.

use leptos::prelude::*;
use leptos_router::components::A;

use super::escalation::{impact_list, rule_action, Rule, RuleForm};
use crate::protocol::escalation::{Case, CaseKind, CaseSide, DeskView};
use crate::protocol::types::display_name;

fn credibility(side: &CaseSide) -> String {
    match &side.credibility {
        Some(c) => match (c.score, c.low, c.high) {
            (Some(s), Some(lo), Some(hi)) => {
                format!("credibility {s:.2} ({lo:.2}–{hi:.2}, {} points)", c.points)
            }
            _ => format!("credibility: too little record ({} points)", c.points),
        },
        None => "credibility: no record logged".to_owned(),
    }
}

fn kind_label(c: &Case) -> String {
    let left = c
        .time_left
        .as_ref()
        .map(|l| format!(" · {l}"))
        .unwrap_or_default();
    match c.kind {
        CaseKind::Held => format!(
            "Held by {}{left}",
            c.challenge.judge.as_deref().unwrap_or("a judge")
        ),
        CaseKind::Provisional => format!("Provisional while the pipeline runs{left}"),
        CaseKind::Gate => format!("Awaiting review at the gate{left}"),
    }
}

fn case_view(c: Case, send: super::escalation::RuleAction) -> impl IntoView {
    let ch = c.challenge.challenge.clone();
    let kind = match c.kind {
        CaseKind::Held => "held",
        CaseKind::Provisional => "provisional",
        CaseKind::Gate => "gate",
    };
    let sides = c
        .sides
        .iter()
        .map(|s| {
            view! {
                <div class="desk-side" class:applied=s.applied data-testid="desk-side" data-role=s.role.clone()>
                    <p class="muted small">{s.role.clone()}</p>
                    <p><strong>{display_name(&s.agent)}</strong></p>
                    <p class="desk-value">{s.shown.clone()}{s.applied.then_some(" (applied)")}</p>
                    <p class="muted small">{credibility(s)}</p>
                </div>
            }
        })
        .collect_view();
    let impact = c.impact.clone().map(|r| {
        let heading = format!(
            "Taking the other position ({}):",
            c.sides
                .iter()
                .find(|s| !s.applied)
                .map_or_else(String::new, |s| s.shown.clone())
        );
        view! { <div class="impact-preview" data-testid="desk-impact">{impact_list(&r, heading)}</div> }
    });
    let precedents = if c.precedents.is_empty() {
        view! { <p class="muted small">"No precedent: no judge has resolved this assumption in another pipeline."</p> }.into_any()
    } else {
        let items = c
            .precedents
            .iter()
            .map(|p| {
                view! {
                    <li>
                        <A href=format!("/debates/{}", p.debate)>{format!("{} in {}", p.challenge, p.debate)}</A>
                        {format!(": {} — {}", p.shown, p.method)}
                    </li>
                }
            })
            .collect_view();
        view! { <ul class="desk-precedents" data-testid="precedents">{items}</ul> }.into_any()
    };
    let rule = Rule {
        id: c.debate.clone(),
        send,
        base: c.assumptions.clone().map(|a| (c.company, a)),
    };
    view! {
        <li class=format!("panel desk-case {kind}") data-testid="desk-case" data-kind=kind
            data-debate=c.debate.clone() data-challenge=ch.id.clone()>
            <p class="desk-kind" data-testid="desk-kind">{kind_label(&c)}</p>
            <h3>
                {format!("{} · {} · {}", ch.id, ch.assumption.replace('_', " "), ch.priority.as_str())}
            </h3>
            <p><A href=format!("/debates/{}", c.debate)>{c.query.clone()}</A></p>
            <div class="desk-sides">{sides}</div>
            {impact}
            <h4>"Precedents"</h4>
            {precedents}
            <RuleForm rule challenge=c.challenge.clone()/>
        </li>
    }
}

#[component]
pub fn DeskPage() -> impl IntoView {
    let desk = Resource::new(|| (), |_| super::data::judge_desk());
    let send = rule_action();
    // A ruling changes the desk: read it again once it is stored.
    Effect::new(move |_| {
        if matches!(send.value().get(), Some(Ok(()))) {
            desk.refetch();
        }
    });
    let body = move |d: DeskView| {
        let loads = d
            .judges
            .iter()
            .map(|j| format!("{} {} / {}", j.name, j.load, d.capacity))
            .collect::<Vec<_>>()
            .join(" · ");
        let count = d.cases.len() + d.escalated.len() + d.paused.len();
        let paused = d.paused.clone();
        let paused = (!paused.is_empty()).then(move || {
            let items = paused
                .into_iter()
                .map(|p| {
                    view! {
                        <li class="panel desk-case budget" data-testid="desk-paused" data-debate=p.debate.clone()>
                            <p class="desk-kind">{format!(
                                "Awaiting budget approval: {} of {} tokens used",
                                super::costs::thousands(p.used),
                                super::costs::thousands(p.budget)
                            )}</p>
                            <p><A href=format!("/debates/{}", p.debate)>{p.query}</A></p>
                            <p><A href=format!("/debates/{}", p.debate)>"Grant tokens or close it on its page →"</A></p>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <h2>"Awaiting budget approval"</h2>
                <ol class="desk-cases">{items}</ol>
            }
        });
        let waiting = d.escalated.clone();
        let escalated = (!waiting.is_empty()).then(move || {
            let items = waiting
                .into_iter()
                .map(|e| {
                    view! {
                        <li class="panel desk-case human" data-testid="desk-escalated" data-debate=e.debate.clone()>
                            <p class="desk-kind">"Escalated to a human: the rules could not settle it"</p>
                            <p><A href=format!("/debates/{}", e.debate)>{e.query}</A></p>
                            <p class="muted small">{e.reason}</p>
                            <p><A href=format!("/debates/{}", e.debate)>"Choose a position on its page →"</A></p>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <h2>"Debates escalated to a human"</h2>
                <ol class="desk-cases">{items}</ol>
            }
        });
        view! {
            <p class="muted" data-testid="desk-loads">
                {if loads.is_empty() { "No judges yet.".to_owned() } else { format!("Load: {loads}") }}
            </p>
            {if count == 0 {
                view! { <p class="muted" data-testid="desk-empty">"Nothing waits for a judge: no challenge is held, provisional or awaiting review, no debate is escalated to a human or awaits a budget approval."</p> }.into_any()
            } else {
                view! {
                    <ol class="desk-cases">{d.cases.into_iter().map(|c| case_view(c, send)).collect_view()}</ol>
                    {paused}
                    {escalated}
                }.into_any()
            }}
        }
        .into_any()
    };
    view! {
        <leptos_meta::Title text="Consilium · judges' desk"/>
        <section class="panel">
            <h1>"Judges' desk"</h1>
            <p class="muted">
                "Every challenge a judge may act on, most urgent first: held by a judge, provisional while its pipeline runs, and provisional decisions awaiting review at the gate."
            </p>
        </section>
        <Suspense fallback=|| view! { <p class="muted">"Loading the desk…"</p> }>
            {move || Suspend::new(async move {
                match desk.await {
                    Ok(d) => body(d),
                    Err(e) => view! {
                        <section class="panel">
                            <p class="form-error" role="alert" data-testid="desk-refused">{super::clean_error(&e.to_string())}</p>
                            <p><A href="/judge/sign-in">"Sign in as a judge"</A></p>
                        </section>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
}
