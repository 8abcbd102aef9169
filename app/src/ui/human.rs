//! ES-12 on the live page: a collapse debate that ended ESCALATED_TO_HUMAN waits for a judge.
//! A signed-in judge chooses one of its positions (each with its score S and first claim) and
//! gives a rationale; the decision is appended to the log and the page follows it. Viewers see
//! that the debate waits for a judge, without the form.

use leptos::prelude::*;

use super::escalation::FollowAgain;
use crate::protocol::collapse::WcOutcomeKind;
use crate::protocol::types::display_name;
use crate::protocol::{DebateView, Outcome};

#[component]
pub fn HumanDecisionForm(#[prop(into)] state: Signal<DebateView>, id: String) -> impl IntoView {
    let judge = super::judge::judge_looking();
    // Shown once hydrated (its buttons cannot act before); the first render is the server's.
    let mounted = RwSignal::new(false);
    Effect::new(move |_| mounted.set(true));
    let is_judge = move || mounted.get() && judge;
    let waiting = move || {
        state.with(|v| {
            matches!(&v.decision, Some(Outcome::Collapse(o))
                if o.outcome == WcOutcomeKind::EscalatedToHuman)
        })
    };
    let id = StoredValue::new(id);
    let chosen = RwSignal::new(String::new());
    let text = RwSignal::new(String::new());
    let send = Action::new(|(id, chosen, text): &(String, String, String)| {
        super::data::decide_debate(id.clone(), chosen.clone(), text.clone())
    });
    let again = use_context::<FollowAgain>();
    Effect::new(move |_| {
        if matches!(send.value().get(), Some(Ok(()))) {
            if let Some(FollowAgain(n)) = again {
                n.update(|n| *n = n.wrapping_add(1));
            }
        }
    });
    let positions = move || {
        state.with(|v| {
            v.wc.positions
                .iter()
                .map(|p| {
                    let claim = p.latest.card.claims.first().cloned().unwrap_or_default();
                    (
                        p.latest.position.clone(),
                        format!(
                            "{} — S {:.2}: {claim}",
                            display_name(&p.latest.position),
                            p.latest.score.total
                        ),
                    )
                })
                .collect::<Vec<_>>()
        })
    };
    let error = move || {
        send.value()
            .get()
            .and_then(|r| r.err())
            .map(|e| super::clean_error(&e.to_string()))
    };
    view! {
        {move || waiting().then(|| view! {
            <section class="panel human-decision" data-testid="human-decision">
                <h2>"Waiting for a judge"</h2>
                <p class="muted">"The rules could not settle this debate: a judge chooses a position and says why. The choice is appended to the log as the decision."</p>
                {move || is_judge().then(|| {
                    view! {
                        <div class="rule-form">
                            <label>
                                "Position"
                                <select data-testid="decide-position" on:change=move |ev| chosen.set(event_target_value(&ev))>
                                    <option value="">"Choose…"</option>
                                    {positions().into_iter().map(|(value, label)| view! { <option value=value>{label}</option> }).collect_view()}
                                </select>
                            </label>
                            <label class="grow">
                                "Rationale"
                                <input data-testid="decide-text" prop:value=move || text.get()
                                    on:input=move |ev| text.set(event_target_value(&ev))/>
                            </label>
                            <button class="primary" data-testid="decide" disabled=move || send.pending().get()
                                on:click=move |_| {
                                    send.dispatch((id.get_value(), chosen.get_untracked(), text.get_untracked()));
                                }>"Decide"</button>
                            {move || error().map(|e| view! { <span class="form-error" role="alert">{e}</span> })}
                        </div>
                    }
                })}
            </section>
        })}
    }
}
