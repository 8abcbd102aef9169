//! ES-11 on the live page: a debate whose token budget is spent while judges are configured
//! pauses instead of stopping. Everyone sees that it waits; a signed-in judge grants more
//! tokens (it resumes where it stopped) or closes it with the cautious decision. Every grant
//! stays listed.

use leptos::prelude::*;

use super::costs::thousands;
use crate::protocol::DebateView;

#[component]
pub fn BudgetPause(
    #[prop(into)] state: Signal<DebateView>,
    id: String,
    /// A signed-in judge is looking (the page knows).
    judge: bool,
) -> impl IntoView {
    // Shown once hydrated (its buttons cannot act before); the first render is the server's.
    let mounted = RwSignal::new(false);
    Effect::new(move |_| mounted.set(true));
    let is_judge = move || mounted.get() && judge;
    let id = StoredValue::new(id);
    let tokens = RwSignal::new(String::new());
    let send = Action::new(|(id, tokens): &(String, Option<u64>)| {
        super::data::budget_debate(id.clone(), *tokens)
    });
    let error = move || {
        send.value()
            .get()
            .and_then(|r| r.err())
            .map(|e| super::clean_error(&e.to_string()))
    };
    let grant = move |_| {
        let typed = tokens.get_untracked().trim().replace([',', '_', ' '], "");
        // Not a number: sent as 0, which the server refuses by name.
        let n = typed.parse::<u64>().unwrap_or(0);
        send.dispatch((id.get_value(), Some(n)));
    };
    let close = move |_| {
        send.dispatch((id.get_value(), None));
    };
    let grants = move || {
        state.with(|v| {
            v.budget_grants
                .iter()
                .map(|(judge, tokens, budget)| {
                    format!(
                        "Judge {judge} granted {} tokens (budget now {}).",
                        thousands(*tokens),
                        thousands(*budget)
                    )
                })
                .collect::<Vec<_>>()
        })
    };
    view! {
        {move || state.with(|v| v.budget_paused).map(|(used, budget)| view! {
            <section class="panel interrupted" role="status" data-testid="budget-paused">
                <h2>"Paused: awaiting budget approval"</h2>
                <p>{format!(
                    "The agents used {} of the {} tokens this debate may use. It waits for a judge: more tokens and it resumes where it stopped, or close it with the cautious decision.",
                    thousands(used),
                    thousands(budget)
                )}</p>
                {move || is_judge().then(|| view! {
                    <div class="rule-form">
                        <label>
                            "Tokens to grant"
                            <input data-testid="grant-tokens" inputmode="numeric" prop:value=move || tokens.get()
                                on:input=move |ev| tokens.set(event_target_value(&ev))/>
                        </label>
                        <button class="primary" data-testid="grant" disabled=move || send.pending().get() on:click=grant>"Grant and resume"</button>
                        <button class="secondary" data-testid="close-budget" disabled=move || send.pending().get() on:click=close>"Close with the cautious decision"</button>
                        {move || error().map(|e| view! { <span class="form-error" role="alert">{e}</span> })}
                    </div>
                })}
            </section>
        })}
        {move || {
            let g = grants();
            (!g.is_empty()).then(|| view! {
                <section class="panel" data-testid="budget-grants">
                    {g.into_iter().map(|line| view! { <p class="small">{line}</p> }).collect_view()}
                </section>
            })
        }}
    }
}
