//! The weighted-collapse view (WC): cards side by side with their score breakdown, the gates,
//! reflexion loops, the panel's scores and the outcome.

use leptos::prelude::*;

use crate::protocol::collapse::WcOutcome;

/// The outcome and why (WC-6).
#[component]
pub fn WcBanner(outcome: WcOutcome) -> impl IntoView {
    let label = outcome.outcome.as_str();
    view! {
        <section class=format!("decision-banner o-{}", label.to_lowercase()) data-testid="decision" data-decision=label>
            <div class="verdict">
                <span class="verdict-label">"Outcome"</span>
                <span class="verdict-value">{label}</span>
            </div>
            <div class="decision-body">
                <p class="reasoning">{outcome.reasoning}</p>
            </div>
        </section>
    }
}
