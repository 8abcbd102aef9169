//! The escalation view (ES): the ladder each challenge climbs — its level, what it waits for,
//! its timer and who holds it — the analyses, and the decision with what is provisional.

use leptos::prelude::*;

use crate::protocol::escalation::assumption;
use crate::protocol::escalation::show_seconds;
use crate::protocol::escalation::GRAPH;
use crate::protocol::escalation::{impact, Assumptions, Company, EsOutcome, ImpactReport};
use crate::protocol::reducer::ChallengeView;
use crate::protocol::types::display_name;
use crate::protocol::DebateView;

/// ES-7: the live page's way to follow a log again after a judge's review at the gate
/// appended to it (bumped once the review is stored).
#[derive(Clone, Copy)]
pub struct FollowAgain(pub RwSignal<u32>);

const LEVELS: [&str; 5] = ["Agents", "Facilitator", "Judge", "Provisional", "Gate"];

fn shown(key: &str, v: f64) -> String {
    assumption(key).map_or_else(|| format!("{v}"), |a| a.show(v))
}

/// The pipeline's result: the rating, the numbers behind it, and the provisional count.
#[component]
pub fn EsBanner(outcome: EsOutcome) -> impl IntoView {
    let rating = outcome.results.rating.as_str();
    let r = outcome.results.clone();
    let provisional = outcome.provisional.len();
    view! {
        <section class=format!("decision-banner v-{}", rating.to_lowercase()) data-testid="decision" data-decision=rating data-provisional=provisional>
            <div class="verdict">
                <span class="verdict-label">"Rating"</span>
                <span class="verdict-value">{rating}</span>
                <span class="verdict-consensus">{format!("confidence {:.2}", r.confidence)}</span>
            </div>
            <div class="decision-body">
                <p class="reasoning">{outcome.reasoning.clone()}</p>
                <dl class="facts">
                    <div><dt>"DCF target"</dt><dd data-testid="target-price">{format!("${:.2}", r.target_price)}</dd></div>
                    <div><dt>"Sensitivity"</dt><dd>{format!("${:.2}–${:.2}", r.downside, r.upside)}</dd></div>
                    <div><dt>"Risk score"</dt><dd>{format!("{:.2}", r.risk_score)}</dd></div>
                    <div><dt>"Challenges"</dt><dd>{outcome.resolutions.len()}</dd></div>
                </dl>
                {(provisional > 0).then(|| view! {
                    <p class="provisional-note" data-testid="provisional-count">
                        {format!("{provisional} provisional decision{} require{} review at the gate.", if provisional == 1 { "" } else { "s" }, if provisional == 1 { "s" } else { "" })}
                    </p>
                })}
            </div>
        </section>
    }
}

/// One challenge's climb: the five rungs, the current one lit.
#[component]
fn Rungs(level: u8, provisional: bool, open: bool) -> impl IntoView {
    let rungs = LEVELS
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let n = i as u8 + 1;
            let class = if n == level {
                if open || provisional {
                    "rung now"
                } else {
                    "rung done now"
                }
            } else if n < level {
                "rung done"
            } else {
                "rung"
            };
            view! { <li class=class title=format!("Level {n}: {name}")>{format!("L{n} {name}")}</li> }
        })
        .collect_view();
    view! { <ol class="rungs">{rungs}</ol> }
}

/// One challenge on its ladder. Its timer counts down by itself (`now`, pipeline time); the rest
/// is re-made only when the challenge changes, so a judge's half-typed ruling is kept.
fn row(
    c: ChallengeView,
    timed: bool,
    now: impl Fn() -> u64 + Copy + Send + Sync + 'static,
    rule: Option<Rule>,
) -> impl IntoView {
    let ch = c.challenge.clone();
    let provisional = c.is_provisional();
    let open = c.is_open();
    let status = if open {
        "open"
    } else if provisional {
        "provisional"
    } else {
        "resolved"
    };
    let outcome = c.resolution.as_ref().map(|r| {
        let who = match r.held_by.strip_prefix("judge:") {
            _ if r.held_by.is_empty() => String::new(),
            Some(judge) => format!(" (judge {judge})"),
            None => format!(" ({})", display_name(&r.held_by)),
        };
        format!("{}{who} — {}", shown(&r.assumption, r.position), r.method)
    });
    let last_climb = c
        .climbs
        .last()
        .map(|(at, l, why)| format!("+{} → L{l}: {why}", show_seconds(*at)));
    view! {
        <li class=format!("ladder-row {status}") data-testid="challenge" data-challenge=ch.id.clone() data-level=c.level data-status=status>
            <div class="ladder-head">
                <strong>{ch.id.clone()}</strong>
                <span class="muted">{format!(" {} · {}", ch.assumption.replace('_', " "), ch.priority.as_str())}</span>
            </div>
            <p>
                {format!("{} challenges {}: {} against {}", display_name(&ch.challenger), display_name(&ch.challenged), shown(&ch.assumption, ch.challenger_value), shown(&ch.assumption, ch.challenged_value))}
            </p>
            <Rungs level=c.level provisional open/>
            <p class="ladder-stage" data-testid="stage">
                {c.stage.clone()}
                {timed.then(|| {
                    let c = c.clone();
                    view! {
                        <span class="timer" data-testid="timer">
                            {move || crate::protocol::reducer::EsState::time_left(&c, now()).map(|l| format!(" · {l}")).unwrap_or_default()}
                        </span>
                    }
                })}
            </p>
            {last_climb.map(|t| view! { <p class="muted small">{t}</p> })}
            {outcome.map(|o| view! { <p class="resolution" data-testid="resolution">{o}</p> })}
            {rule.map(|r| view! { <RuleForm rule=r challenge=c.clone()/> })}
        </li>
    }
}

/// Unix milliseconds in the browser; `None` while rendering on the server.
fn wall_ms() -> Option<f64> {
    #[cfg(feature = "hydrate")]
    {
        Some(web_sys::js_sys::Date::now())
    }
    #[cfg(not(feature = "hydrate"))]
    {
        None
    }
}

/// What a judge's form on the live page needs: the debate and the action that sends the ruling.
#[derive(Clone)]
pub(crate) struct Rule {
    pub id: String,
    pub send: RuleAction,
    /// ES-8: the company and the assumptions of the latest analysis, for the impact preview.
    pub base: Option<(Company, Assumptions)>,
}

/// Sends a judge's action: (debate, challenge, action, value, rationale or context).
pub(crate) type RuleAction =
    Action<(String, String, String, Option<f64>, String), Result<(), ServerFnError>>;

/// The action behind every ruling form of a page.
pub(crate) fn rule_action() -> RuleAction {
    Action::new(
        |(id, challenge, action, value, text): &(String, String, String, Option<f64>, String)| {
            super::data::rule_challenge(
                id.clone(),
                challenge.clone(),
                action.clone(),
                *value,
                text.clone(),
            )
        },
    )
}

/// A typed value in the form's unit ("28" or "28 %" for a fraction shown in %) → the
/// assumption's own unit (0.28).
fn typed(text: &str, percent: bool) -> Option<f64> {
    let v = text
        .trim()
        .trim_end_matches('%')
        .trim()
        .parse::<f64>()
        .ok()?;
    Some(if percent { v / 100.0 } else { v })
}

/// ES-8: what an override moves, and the re-runs it needs — before the judge confirms
/// (`heading` "If …") and, logged, after.
pub(crate) fn impact_list(report: &ImpactReport, heading: String) -> impl IntoView {
    let items = report
        .impacts
        .iter()
        .map(|i| {
            let moved = match i.metric.as_str() {
                "target_price" => format!("{:.1} %", i.delta * 100.0),
                "rating" if i.delta >= 1.0 => "changes".to_owned(),
                _ => format!("{:.2}", i.delta),
            };
            let verdict = if i.requires_rerun {
                "re-run"
            } else {
                "update only"
            };
            view! {
                <li class:rerun=i.requires_rerun>
                    {format!("{}: {} → {} (moves {moved}) — {verdict}", i.analysis, i.old, i.new)}
                </li>
            }
        })
        .collect_view();
    let plan = &report.plan;
    let plan = if plan.required.is_empty() {
        "No re-run required: the new values are recorded.".to_owned()
    } else {
        let order = plan
            .batches
            .iter()
            .map(|b| b.join(" + "))
            .collect::<Vec<_>>()
            .join(", then ");
        format!("Re-run plan ({}): {order}.", plan.strategy)
    };
    view! {
        <p class="muted small">{heading}</p>
        <ul>{items}</ul>
        <p class="small" data-testid="rerun-plan">{plan}</p>
    }
}

fn impact_preview(report: ImpactReport) -> impl IntoView {
    let heading = format!(
        "If {} becomes {}:",
        report.assumption.replace('_', " "),
        shown(&report.assumption, report.new_value)
    );
    view! { <div class="impact-preview" data-testid="impact-preview">{impact_list(&report, heading)}</div> }
}

/// ES-5/ES-7 on the live page: a signed-in judge rules on a held challenge (a value and a
/// rationale) or reviews a provisional one (confirm, override, send back to the agents).
#[component]
pub(crate) fn RuleForm(rule: Rule, challenge: ChallengeView) -> impl IntoView {
    let spec = assumption(&challenge.challenge.assumption);
    let percent = spec.is_some_and(|a| a.unit == "fraction");
    let value = RwSignal::new(String::new());
    let text = RwSignal::new(String::new());
    let id = challenge.challenge.id.clone();
    let provisional = challenge.is_provisional();
    let send = rule.send;
    let debate = rule.id.clone();
    let submit = {
        let (debate, id) = (debate.clone(), id.clone());
        move |action: &str| {
            send.dispatch((
                debate.clone(),
                id.clone(),
                action.to_owned(),
                typed(&value.get_untracked(), percent),
                text.get_untracked(),
            ));
        }
    };
    let key = challenge.challenge.assumption.clone();
    let base = rule.base.clone();
    let preview = move || {
        let (company, before) = base.clone()?;
        let v = typed(&value.get(), percent)?;
        impact(&GRAPH, &company, &before, &key, v).ok()
    };
    let (confirm, override_, redebate) = (submit.clone(), submit.clone(), submit);
    let error = move || {
        send.value()
            .get()
            .and_then(|r| r.err())
            .map(|e| super::clean_error(&e.to_string()))
    };
    view! {
        <div class="rule-form" data-testid="rule-form">
            <label>
                {if percent { "Value (%)" } else { "Value" }}
                <input data-testid="rule-value" inputmode="decimal" prop:value=move || value.get()
                    on:input=move |ev| value.set(event_target_value(&ev))/>
            </label>
            <label class="grow">
                "Rationale / context"
                <input data-testid="rule-text" prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))/>
            </label>
            <button class="primary" data-testid="rule-override" disabled=move || send.pending().get()
                on:click=move |_| override_("override")>{if provisional { "Override" } else { "Rule" }}</button>
            {provisional.then(|| view! {
                <button class="secondary" data-testid="rule-confirm" on:click=move |_| confirm("confirm")>"Confirm"</button>
            })}
            <button class="secondary" data-testid="rule-redebate" title="Send it back to the agents at level 1 with the context above"
                on:click=move |_| redebate("redebate")>"Back to the agents"</button>
            {move || error().map(|e| view! { <span class="form-error" role="alert">{e}</span> })}
            {move || preview().map(impact_preview)}
        </div>
    }
}

/// ES-3…ES-9 at a glance, above the agents' columns. With `id` (the live page), a signed-in
/// judge gets a ruling form on every challenge a judge may act on while the pipeline runs.
#[allow(clippy::too_many_lines)] // one panel's markup
#[component]
pub fn EsPanel(
    #[prop(into)] state: Signal<DebateView>,
    #[prop(optional_no_strip)] id: Option<String>,
) -> impl IntoView {
    let judge = super::judge::judge_looking();
    let send = rule_action();
    // The forms appear once the page is hydrated (before, they could not act), so the browser's
    // first render matches the server's.
    let mounted = RwSignal::new(false);
    Effect::new(move |_| mounted.set(true));
    let is_judge = move || mounted.get() && judge;
    // ES-10: while the pipeline runs, its clock and the timers count on every second between
    // events, at the debate's time scale.
    let tick = RwSignal::new(0u32);
    #[cfg(feature = "hydrate")]
    if let Ok(handle) = set_interval_with_handle(
        move || tick.update(|t| *t = t.wrapping_add(1)),
        std::time::Duration::from_secs(1),
    ) {
        on_cleanup(move || handle.clear());
    }
    let now = move || {
        tick.track();
        state.with(|v| match wall_ms() {
            Some(ms) if v.status() == crate::protocol::DebateStatus::Running => {
                v.es.now_at(&v.last_ts, ms)
            }
            _ => v.es.now,
        })
    };
    // ES-7: once a review at the gate is stored, the page follows the log's new end.
    let again = use_context::<FollowAgain>();
    Effect::new(move |_| {
        if matches!(send.value().get(), Some(Ok(()))) {
            if let Some(FollowAgain(n)) = again {
                n.update(|n| *n = n.wrapping_add(1));
            }
        }
    });
    let id = StoredValue::new(id);
    let rows = move || {
        let judge = is_judge();
        state.with(|v| {
            let running = v.status() == crate::protocol::DebateStatus::Running;
            let decided = v.status() == crate::protocol::DebateStatus::Finished
                || v.status() == crate::protocol::DebateStatus::BudgetExhausted;
            let base =
                v.es.analyses
                    .last()
                    .and_then(|a| v.es.params.map(|p| (p.company, a.assumptions.clone())));
            v.es.challenges
                .iter()
                .map(|c| {
                    let timed =
                        c.deadline.is_some() && (v.decision.is_none() || c.is_provisional());
                    // While the pipeline runs: a held challenge or a provisional value; after
                    // the decision: the provisional values, at the gate (L5).
                    let actionable = if running {
                        c.judge.is_some() || c.is_provisional()
                    } else {
                        decided && c.is_provisional()
                    };
                    let rule = id
                        .get_value()
                        .filter(|_| judge && actionable)
                        .map(|id| Rule {
                            id,
                            send,
                            base: base.clone(),
                        });
                    (c.clone(), timed, rule)
                })
                .collect::<Vec<_>>()
        })
    };
    // Re-made only when challenges first appear, so the rows below keep their forms.
    let empty = Memo::new(move |_| state.with(|v| v.es.challenges.is_empty()));
    // The latest analysis, and the assumptions whose value in it is provisional.
    let analysis = move || {
        state.with(|v| {
            v.es.analyses.last().cloned().map(|a| {
                let provisional: Vec<String> =
                    v.es.challenges
                        .iter()
                        .filter(|c| a.provisional.contains(&c.challenge.id))
                        .map(|c| c.challenge.assumption.clone())
                        .collect();
                // ES-8: the analyses the last gate review re-ran, batch by batch.
                let reran: Vec<String> =
                    v.es.analyses
                        .iter()
                        .filter(|r| r.at == a.at && !r.rerun.is_empty())
                        .map(|r| r.rerun.join(" + "))
                        .collect();
                (a, provisional, reran)
            })
        })
    };
    let clock = move || {
        let now = now();
        state.with(|v| {
            let scale = v.es.params.map_or(1, |p| p.time_scale);
            format!(
                "Pipeline time +{} (time scale {scale}×: one wall second is {} of pipeline time)",
                show_seconds(now),
                show_seconds(u64::from(scale))
            )
        })
    };
    view! {
        <section class="panel es-panel" data-testid="ladder">
            <h2>"Escalation ladder"</h2>
            <p class="muted" data-testid="pipeline-clock">{clock}</p>
            {move || {
                if empty.get() {
                    view! { <p class="muted" data-testid="no-challenges">{move || if state.with(|v| v.current_round >= 2) { "The specialists agreed on every assumption: no challenge." } else { "Challenges appear here once every specialist has stated its findings." }}</p> }.into_any()
                } else {
                    view! {
                        <ol class="ladder">
                            <For each=rows key=|(c, timed, rule)| (serde_json::to_string(c).unwrap_or_default(), *timed, rule.is_some())
                                children=move |(c, timed, rule)| row(c, timed, now, rule)/>
                        </ol>
                    }.into_any()
                }
            }}
            {move || state.with(|v| v.es.impacts.clone()).into_iter().map(|i| {
                let heading = format!(
                    "Judge {} overrode {} ({}): {} → {}",
                    i.judge,
                    i.challenge,
                    i.report.assumption.replace('_', " "),
                    shown(&i.report.assumption, i.report.old_value),
                    shown(&i.report.assumption, i.report.new_value)
                );
                view! {
                    <div class="gate-review" data-testid="gate-review">
                        <h3>"Gate review"</h3>
                        {impact_list(&i.report, heading)}
                    </div>
                }
            }).collect_view()}
            {move || analysis().map(|(a, provisional, reran)| {
                let items = a.assumptions.0.into_iter().map(|(k, v)| {
                    let label = assumption(&k).map_or_else(|| k.clone(), |s| s.label.to_owned());
                    let p = provisional.contains(&k);
                    let value = if p { format!("{} (provisional)", shown(&k, v)) } else { shown(&k, v) };
                    view! { <div class:provisional=p><dt>{label}</dt><dd>{value}</dd></div> }
                }).collect_view();
                view! {
                    <h3>"Assumptions the analyses used"</h3>
                    {(!reran.is_empty()).then(|| view! {
                        <p class="small" data-testid="reran">{format!("Re-ran after the gate review: {}.", reran.join(", then "))}</p>
                    })}
                    <dl class="facts es-assumptions" data-testid="assumptions">{items}</dl>
                }
            })}
        </section>
    }
}
