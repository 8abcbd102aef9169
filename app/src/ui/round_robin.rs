//! The round-robin view (RR): turn timeline, turns per agent, a consensus meter per round.

use leptos::prelude::*;

use crate::protocol::round_robin::RrOutcome;

/// The final stance with its metadata (RR-4).
#[component]
pub fn RrBanner(outcome: RrOutcome) -> impl IntoView {
    let stance = outcome.stance.as_str();
    view! {
        <section class=format!("decision-banner s-{}", stance.to_lowercase()) data-testid="decision" data-decision=stance>
            <div class="verdict">
                <span class="verdict-label">"Stance"</span>
                <span class="verdict-value">{stance}</span>
            </div>
            <div class="decision-body">
                <p class="reasoning">{outcome.reasoning}</p>
            </div>
        </section>
    }
}
