//! UI-5/CR-2: the credibility pages. `/agents` lists every agent with a track record; `/agents/
//! {identity}` shows its score with its interval and trend, accuracy over time (SVG), per
//! regime and per context, the override rate, and its recent predictions with their outcomes.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::credibility::IntervalBar;
use super::data::{get_agent, list_agents};
use crate::protocol::credibility::{Breakdown, Period};
use crate::protocol::time;
use crate::track_record::{AgentDetail, AgentRow, PredictionRow};

#[component]
pub fn AgentsPage() -> impl IntoView {
    let rows = Resource::new(|| (), |()| list_agents());
    view! {
        <Title text="Consilium · agents"/>
        <section class="panel">
            <h1>"Agents and their credibility"</h1>
            <p class="muted">"Credibility is earned from a track record (CR-1): recency-weighted accuracy, accuracy in the current regime, overall accuracy, the trend and how often judges overrode the agent — with a 95 % Wilson interval. Fewer than 5 outcomes: insufficient data."</p>
            <Suspense fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match rows.await {
                        Ok(rows) if rows.is_empty() => view! {
                            <p class="muted" data-testid="no-agents">"No agent has a track record yet. Every finished debate records what each agent held; outcomes come from judges (on a debate's audit page) or "<code>"consilium track-record import"</code>". A sample history: "<code>"consilium track-record import --sample"</code>"."</p>
                        }.into_any(),
                        Ok(rows) => view! { <AgentTable rows/> }.into_any(),
                        Err(e) => view! { <p class="form-error">{format!("Could not load the agents: {e}")}</p> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

#[component]
fn AgentTable(rows: Vec<AgentRow>) -> impl IntoView {
    view! {
        <table class="agents" data-testid="agents">
            <thead><tr><th>"Agent"</th><th>"Credibility (95 % interval)"</th><th>"Outcomes"</th><th>"Predictions"</th></tr></thead>
            <tbody>
                {rows.into_iter().map(|r| view! {
                    <tr data-identity=r.identity.clone()>
                        <td>
                            <a href=format!("/agents/{}", r.identity)>{r.identity.clone()}</a>
                            {r.sample.then(|| view! { " " <span class="badge sample" title="Part of this record is the bundled sample history">"sample data"</span> })}
                        </td>
                        <td><IntervalBar credibility=r.credibility.clone()/></td>
                        <td>{r.credibility.points}</td>
                        <td>{r.predictions}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

#[component]
pub fn AgentPage() -> impl IntoView {
    let params = use_params_map();
    let identity = move || params.read().get("identity").unwrap_or_default();
    let detail = Resource::new(identity, get_agent);
    view! {
        <Suspense fallback=|| view! { <p class="muted">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Ok(Some(d)) => view! { <AgentView detail=d/> }.into_any(),
                    Ok(None) => {
                        super::set_status_not_found();
                        view! {
                            <section class="panel empty">
                                <h1>"No track record for this agent"</h1>
                                <p><a href="/agents">"All agents"</a></p>
                            </section>
                        }.into_any()
                    }
                    Err(e) => view! { <p class="form-error">{format!("Could not load the agent: {e}")}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn AgentView(detail: AgentDetail) -> impl IntoView {
    let b = detail.breakdown.clone();
    let trend = match &b.trend {
        Some(t) if t.applied => format!(
            "{} {:+.2} a year (R² {:.2}): {:+.2} added",
            if t.slope_per_year >= 0.0 {
                "↗ improving"
            } else {
                "↘ declining"
            },
            t.slope_per_year,
            t.r2,
            t.adjustment
        ),
        Some(t) => format!("no clear trend (R² {:.2} ≤ 0.3)", t.r2),
        None => "too few periods to fit a trend".to_owned(),
    };
    view! {
        <Title text=format!("Consilium · {}", detail.identity)/>
        <section class="panel">
            <p><a href="/agents">"← All agents"</a></p>
            <h1 data-testid="agent-identity">{detail.identity.clone()}</h1>
            {detail.sample.then(|| view! { <p class="sample-note" data-testid="sample-note">"Part of this record is the bundled sample history (consilium track-record import --sample), not real outcomes."</p> })}
            <div class="agent-score">
                <IntervalBar credibility=detail.credibility.clone()/>
                <p data-testid="trend">{format!("Trend: {trend}")}</p>
                <p>{format!("{} predictions, {} with outcomes · override rate {:.0} %{}", detail.predictions, detail.credibility.points, b.override_rate * 100.0,
                    if b.override_penalty > 0.0 { format!(" (above 20 %: −{:.2})", b.override_penalty) } else { String::new() })}</p>
            </div>
            <Parts b=b.clone()/>
        </section>
        <section class="panel">
            <h2>"Accuracy over time"</h2>
            <AccuracyChart periods=b.periods.clone()/>
        </section>
        <section class="panel">
            <h2>"By regime and context"</h2>
            <table class="by-tag">
                <thead><tr><th>"Tag"</th><th>"Value"</th><th>"Accuracy"</th><th>"Outcomes"</th></tr></thead>
                <tbody>
                    {b.by_tag.iter().map(|t| view! {
                        <tr><td>{t.tag.clone()}</td><td>{t.value.clone()}</td>
                        <td>{format!("{:.0} %", 100.0 * f64::from(t.correct) / f64::from(t.points.max(1)))}</td><td>{t.points}</td></tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
        <section class="panel">
            <h2>"Recent predictions"</h2>
            <Predictions rows=detail.recent/>
        </section>
    }
}

/// CR-1's parts, so a reader can redo the sum.
#[component]
fn Parts(b: Breakdown) -> impl IntoView {
    let pct = |x: Option<f64>| x.map_or_else(|| "—".to_owned(), |x| format!("{x:.3}"));
    view! {
        <table class="cr-parts" data-testid="cr-parts">
            <tbody>
                <tr><td>"Recency-weighted accuracy (half-life 2 years)"</td><td>{pct(b.recency)}</td><td>{format!("weight {:.3}", b.weights[0])}</td></tr>
                <tr><td>{format!("Current-regime accuracy ({} points; counts from 50)", b.regime_points)}</td><td>{pct(b.regime)}</td><td>{format!("weight {:.3}", b.weights[1])}</td></tr>
                <tr><td>"Overall accuracy"</td><td>{pct(b.overall)}</td><td>{format!("weight {:.3}", b.weights[2])}</td></tr>
                <tr><td>{format!("Context-match accuracy ({} points; blended 70/30 from 12)", b.context_points)}</td><td>{pct(b.context)}</td><td>{if b.context_used { "blended" } else { "not used" }}</td></tr>
            </tbody>
        </table>
    }
}

/// Accuracy per 91-day period as a line over time; each point's size follows its outcomes.
#[component]
fn AccuracyChart(periods: Vec<Period>) -> impl IntoView {
    if periods.is_empty() {
        return view! { <p class="muted" data-testid="accuracy-chart-empty">"No outcomes yet."</p> }
            .into_any();
    }
    let (w, h, pad) = (640.0_f64, 220.0_f64, 36.0_f64);
    let first = periods.first().map_or(0.0, |p| p.start);
    let last = periods.last().map_or(0.0, |p| p.start);
    let span = (last - first).max(1.0);
    let x = move |p: &Period| pad + (p.start - first) / span * (w - 2.0 * pad);
    let y = move |a: f64| h - pad - a * (h - 2.0 * pad);
    let line = periods
        .iter()
        .map(|p| format!("{:.1},{:.1}", x(p), y(p.accuracy())))
        .collect::<Vec<_>>()
        .join(" ");
    let most = periods.iter().map(|p| p.points).max().unwrap_or(1).max(1);
    view! {
        <svg class="accuracy-chart" data-testid="accuracy-chart" viewBox=format!("0 0 {w} {h}") role="img"
            aria-label="Accuracy per quarter">
            {[0.0, 0.5, 1.0].into_iter().map(|a| view! {
                <line class="grid" x1=pad y1=y(a) x2=w - pad y2=y(a)></line>
                <text class="axis" x=4 y=y(a) + 4.0>{format!("{:.0}%", a * 100.0)}</text>
            }).collect_view()}
            <polyline class="acc-line" points=line></polyline>
            {periods.iter().map(|p| {
                let r = 3.0 + 5.0 * f64::from(p.points) / f64::from(most);
                view! {
                    <circle class="acc-point" cx=x(p) cy=y(p.accuracy()) r=r>
                        <title>{format!("{}: {} of {} right", time::date(p.start), p.correct, p.points)}</title>
                    </circle>
                }
            }).collect_view()}
            <text class="axis" x=pad y=h - 8.0>{time::date(first)}</text>
            <text class="axis" x=w - pad - 70.0 y=h - 8.0>{time::date(last)}</text>
        </svg>
    }
    .into_any()
}

/// Predictions with their latest outcome and a link to their debate.
#[component]
pub fn Predictions(rows: Vec<PredictionRow>) -> impl IntoView {
    view! {
        <table class="predictions" data-testid="predictions">
            <thead><tr><th>"Made"</th><th>"Held"</th><th>"Confidence"</th><th>"Outcome"</th><th>"Debate"</th></tr></thead>
            <tbody>
                {rows.into_iter().map(|p| view! {
                    <tr data-prediction=p.id.clone()>
                        <td>{p.made_at.get(..10).unwrap_or(&p.made_at).to_owned()}</td>
                        <td>{p.held.clone()}</td>
                        <td>{format!("{:.0} %", p.confidence * 100.0)}</td>
                        <td><OutcomeCell p=p.clone()/></td>
                        <td>{match (p.source.as_str(), &p.debate_id) {
                            ("debate", Some(d)) => view! { <a href=format!("/debates/{d}/audit")>{d.clone()}</a> }.into_any(),
                            ("sample", _) => view! { <span class="badge sample">"sample"</span> }.into_any(),
                            (_, d) => view! { <span class="muted">{d.clone().unwrap_or_else(|| "imported".into())}</span> }.into_any(),
                        }}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

#[component]
pub fn OutcomeCell(p: PredictionRow) -> impl IntoView {
    match p.outcome {
        None => view! { <span class="muted" data-testid="outcome">"pending"</span> }.into_any(),
        Some(o) => {
            let label = match (o.correct, o.overridden) {
                (_, true) => "overridden",
                (true, _) => "right",
                (false, _) => "wrong",
            };
            view! {
                <span class=format!("outcome {label}") data-testid="outcome" title=format!("recorded by {} at {}{}", o.recorded_by, o.recorded_at, o.note.map(|n| format!(": {n}")).unwrap_or_default())>{label}</span>
            }
            .into_any()
        }
    }
}
