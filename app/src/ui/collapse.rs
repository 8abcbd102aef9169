//! The weighted-collapse view (WC): position cards side by side with every term of their score,
//! the gates each passed or failed, reflexion loops, the panel's scores as a chart, the outcome.

use leptos::prelude::*;

use crate::protocol::collapse::{
    GateVerdict, PanelEvaluated, PanelScored, ScoreBreakdown, WcOutcome, WcParams,
};
use crate::protocol::reducer::{PositionState, WcState};
use crate::protocol::types::display_name;
use crate::protocol::DebateView;

/// The outcome and why (WC-6, WC-8).
#[component]
pub fn WcBanner(outcome: WcOutcome) -> impl IntoView {
    let label = outcome.outcome.as_str();
    let class = match label {
        "ACCEPTED" | "CONSENSUS_REACHED" => "v-act",
        "HYBRID_SYNTHESIZED" | "SAFE_FALLBACK" | "DECIDED_BY_JUDGE" => "v-warn",
        _ => "v-refuse",
    };
    let num = |x: Option<f64>| x.map_or_else(|| "—".to_owned(), |x| format!("{x:.2}"));
    view! {
        <section class=format!("decision-banner {class}") data-testid="decision" data-decision=label>
            <div class="verdict">
                <span class="verdict-label">"Outcome"</span>
                <span class="verdict-value wc-outcome">{label.replace('_', " ")}</span>
                <span class="verdict-consensus">{outcome.chosen.clone().unwrap_or_else(|| "no position chosen".into())}</span>
            </div>
            <div class="decision-body">
                <p class="reasoning">{outcome.reasoning}</p>
                <dl class="facts">
                    <div><dt>"Chosen"</dt><dd data-testid="chosen">{outcome.chosen.unwrap_or_else(|| "—".into())}</dd></div>
                    <div><dt>"Score S"</dt><dd>{num(outcome.score)}</dd></div>
                    <div><dt>"Panel C"</dt><dd>{num(outcome.consensus)}</dd></div>
                    <div><dt>"Reflexions"</dt><dd>{outcome.reflexions}</dd></div>
                    <div><dt>"Memory write"</dt><dd title=outcome.memory_notes.join("; ")>{if outcome.memory_write { "yes" } else { "no" }}</dd></div>
                </dl>
            </div>
        </section>
    }
}

/// The whole WC board, live or audited.
#[component]
pub fn WcBoard(state: Signal<DebateView>) -> impl IntoView {
    let wc = move || state.with(|v| v.wc.clone());
    view! {
        <section class="panel wc-board" data-testid="wc-board">
            {move || wc().params.map(|p| view! { <Formula params=p/> })}
            <h2>"Position cards"</h2>
            <div class="wc-cards" data-testid="wc-cards">
                {move || {
                    let w = wc();
                    w.positions.iter().cloned().map(|p| view! { <Position p/> }).collect_view()
                }}
                {move || wc().hybrid.map(|h| view! {
                    <article class="position hybrid" data-position="hybrid">
                        <header><strong>"Hybrid"</strong>" of "{h.from.join(" + ")}</header>
                        <Breakdown score=h.score/>
                        <p class="muted">{h.card.claims.join(" · ")}</p>
                    </article>
                })}
            </div>
            <Steps state=wc/>
            <Panel evaluations=Signal::derive(move || wc().panel) scores=Signal::derive(move || wc().panel_scores.first().cloned()) title="Consensus panel"/>
            {move || (!wc().hybrid_panel.is_empty()).then(|| view! {
                <Panel evaluations=Signal::derive(move || wc().hybrid_panel) scores=Signal::derive(move || wc().panel_scores.get(1).cloned()) title="Hybrid re-score"/>
            })}
        </section>
    }
}

#[component]
fn Formula(params: WcParams) -> impl IntoView {
    let w = params.weights;
    view! {
        <p class="formula" data-testid="formula">
            {format!(
                "S = {}·E − {}·R + {}·v − {}·(k/100) + {}·γ − {}·I · accept when S > {} · panel when the top two are within {} · up to {} reflexions",
                w.w_e, w.w_r, w.w_v, w.w_k, w.w_gamma, w.w_i, params.accept_threshold, params.gap_threshold, params.max_reflexions
            )}
        </p>
    }
}

#[component]
fn Position(p: PositionState) -> impl IntoView {
    let c = &p.latest;
    let gates = p.gates.clone().map(|g| {
        g.checks
            .into_iter()
            .map(|check| {
                let (class, mark) = match check.verdict {
                    GateVerdict::Pass => ("gate pass", "✓"),
                    GateVerdict::Reject => ("gate reject", "✗"),
                    GateVerdict::Human => ("gate human", "⚑"),
                };
                view! { <li class=class title=check.detail.clone()>{mark}" "{gate_name(check.gate)}<span class="muted">{format!(" — {}", check.detail)}</span></li> }
            })
            .collect_view()
    });
    let verdict = p.gates.as_ref().map_or("pending", |g| match g.verdict {
        GateVerdict::Pass => "pass",
        GateVerdict::Reject => "reject",
        GateVerdict::Human => "human",
    });
    let verified = p.verified.clone().map(|v| {
        let class = if v.approve { "verified yes" } else { "verified no" };
        view! { <p class=class>{if v.approve { "Verifier approves: " } else { "Verifier rejects: " }}{v.notes}</p> }
    });
    let history = (p.history.len() > 1).then(|| {
        format!(
            "S by revision: {}",
            p.history
                .iter()
                .map(|s| format!("{s:.2}"))
                .collect::<Vec<_>>()
                .join(" → ")
        )
    });
    view! {
        <article class=format!("position g-{verdict}") data-position=c.position.clone() data-gates=verdict>
            <header>
                <strong>{c.position.clone()}</strong>
                <span class="muted">{format!(" {:?} · revision {}", c.source, c.revision).to_lowercase()}</span>
            </header>
            <ul class="claims">{c.card.claims.iter().map(|x| view! { <li>{x.clone()}</li> }).collect_view()}</ul>
            <ol class="plan">{c.card.plan.iter().map(|s| view! { <li title=s.rationale.clone()>{s.action.clone()}</li> }).collect_view()}</ol>
            <Breakdown score=c.score.clone()/>
            {history.map(|h| view! { <p class="muted">{h}</p> })}
            {verified}
            <ul class="gates">{gates}</ul>
        </article>
    }
}

fn gate_name(g: crate::protocol::collapse::Gate) -> &'static str {
    use crate::protocol::collapse::Gate;
    match g {
        Gate::VerifierVeto => "verifier veto",
        Gate::Invariants => "invariants",
        Gate::CriticalRisk => "critical risk",
        Gate::Irreversibility => "irreversibility",
    }
}

/// WC-2: every term of S.
#[component]
pub fn Breakdown(score: ScoreBreakdown) -> impl IntoView {
    let names = [
        "E evidence",
        "R risk",
        "v reversibility",
        "k cost",
        "γ confidence",
        "I violations",
    ];
    let raw = [
        format!("{:.2}", score.e),
        format!("{:.2}", score.r),
        format!("{:.2}", score.v),
        format!("{:.2}", score.k),
        format!("{:.2}", score.gamma),
        score.i.to_string(),
    ];
    view! {
        <table class="breakdown">
            <tbody>
                {names.into_iter().zip(raw).zip(score.terms).map(|((n, r), t)| view! {
                    <tr><td>{n}</td><td class="num">{r}</td><td class=if t < 0.0 { "num neg" } else { "num" }>{format!("{:+.2}", t + 0.0)}</td></tr>
                }).collect_view()}
                <tr class="total"><td>"S"</td><td></td><td class="num" data-testid="score">{format!("{:.2}", score.total)}</td></tr>
            </tbody>
        </table>
    }
}

/// Convergence steps and reflexion loops, in order.
#[component]
fn Steps(state: impl Fn() -> WcState + Send + Sync + Copy + 'static) -> impl IntoView {
    view! {
        <div class="wc-steps">
            <h3>"Convergence"</h3>
            <ol data-testid="convergence">
                {move || state().convergences.into_iter().map(|c| view! {
                    <li data-step=format!("{:?}", c.step).to_lowercase()>{c.reason}</li>
                }).collect_view()}
            </ol>
            {move || {
                let w = state();
                (!w.reflexions.is_empty()).then(|| view! {
                    <h3>"Reflexion loops"</h3>
                    <ol data-testid="reflexions">
                        {w.reflexions.into_iter().map(|r| {
                            let critique = w.critiques.iter().find(|c| c.round == r.round).map(|c| format!("Skeptic on {}: {:.1}/10", c.position, c.score));
                            view! {
                                <li>
                                    <strong>{format!("Reflexion {}", r.attempt)}</strong>
                                    {critique.map(|c| view! { <span class="muted">{format!(" — {c}")}</span> })}
                                    <ul>{r.triggers.into_iter().map(|t| view! { <li class="trigger-item">{t}</li> }).collect_view()}</ul>
                                </li>
                            }
                        }).collect_view()}
                    </ol>
                })
            }}
        </div>
    }
}

/// WC-5: each seat's scores (weight, confidence) and C per position, as bars.
#[component]
fn Panel(
    evaluations: Signal<Vec<PanelEvaluated>>,
    scores: Signal<Option<PanelScored>>,
    title: &'static str,
) -> impl IntoView {
    move || {
        let evals = evaluations.get();
        (!evals.is_empty()).then(|| {
            let rows = evals
                .into_iter()
                .map(|e| {
                    let bars = e
                        .evaluation
                        .scores
                        .iter()
                        .map(|s| view! {
                            <span class="panel-bar" title=s.rationale.clone()>
                                <span class="bar-label">{s.position.clone()}</span>
                                <span class="bar-track"><span class="bar-fill" style=format!("width: {}%", (s.score * 100.0).round())></span></span>
                                <span class="bar-count">{format!("{:.2}", s.score)}</span>
                            </span>
                        })
                        .collect_view();
                    view! {
                        <li class="seat" data-seat=e.agent.clone()>
                            <span class="seat-name">{display_name(&e.agent).trim_end_matches(" Agent").to_owned()}</span>
                            <span class="muted">{format!("w {} · conf {:.2}", e.weight, e.evaluation.confidence)}</span>
                            <span class="seat-bars">{bars}</span>
                        </li>
                    }
                })
                .collect_view();
            let consensus = scores.get().map(|p| {
                view! {
                    <div class="consensus-scores" data-testid="consensus-scores">
                        {p.consensus.into_iter().map(|r| view! {
                            <span class="panel-bar strong">
                                <span class="bar-label">{format!("C({})", r.position)}</span>
                                <span class="bar-track"><span class="bar-fill" style=format!("width: {}%", (r.score * 100.0).round())></span></span>
                                <span class="bar-count">{format!("{:.3}", r.score)}</span>
                            </span>
                        }).collect_view()}
                        <p class="meter-verdict">{p.rule}</p>
                    </div>
                }
            });
            view! {
                <div class="wc-panel" data-testid="panel">
                    <h3>{title}</h3>
                    <ol class="seats">{rows}</ol>
                    {consensus}
                </div>
            }
        })
    }
}
