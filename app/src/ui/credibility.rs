//! CR-2/CR-3 on a debate's pages: the agents' credibility when it started (from the logged
//! snapshot, CR-4) and the panel's effective number of independent votes.

use leptos::prelude::*;

use crate::protocol::credibility::{CrStatus, Credibility, CredibilitySnapshot};
use crate::protocol::types::display_name;
use crate::protocol::DebateView;

/// A score with its interval as a bar: the interval shaded, the score a mark.
#[component]
pub fn IntervalBar(credibility: Credibility) -> impl IntoView {
    match (credibility.status, credibility.score, credibility.low, credibility.high) {
        (CrStatus::Ok, Some(s), Some(l), Some(h)) => view! {
            <span class="cred" data-testid="credibility" data-score=format!("{s:.3}")>
                <span class="cred-bar" title=format!("95 % interval {l:.2}–{h:.2}")>
                    <span class="cred-interval" data-testid="interval" style=format!("left: {:.1}%; width: {:.1}%", l * 100.0, (h - l) * 100.0)></span>
                    <span class="cred-mark" style=format!("left: {:.1}%", s * 100.0)></span>
                </span>
                <span class="cred-text">{format!("{s:.2} ({l:.2}–{h:.2}, n = {})", credibility.points)}</span>
            </span>
        }
        .into_any(),
        _ => view! {
            <span class="cred insufficient" data-testid="credibility" data-score="">
                {format!("insufficient data ({} of 5 outcomes)", credibility.points)}
            </span>
        }
        .into_any(),
    }
}

/// The snapshot a debate logged: each agent's credibility and the effective votes.
#[component]
pub fn SnapshotPanel(state: Signal<DebateView>) -> impl IntoView {
    move || {
        let protocol = state.with(|v| v.protocol.clone());
        state.with(|v| v.credibility.clone()).map(|s: CredibilitySnapshot| {
            let sample = s.agents.iter().any(|a| a.sample);
            view! {
                <section class="panel credibility-snapshot" data-testid="credibility-snapshot">
                    <h2>"Credibility at the start"</h2>
                    // RC weighs observations (RC-2); nobody votes.
                    {(protocol != "reconcile").then(|| view! { <p class="effective" data-testid="effective-votes">{s.effective.note.clone()}</p> })}
                    {sample.then(|| view! { <p class="sample-note">"Part of this record is the bundled sample history, not real outcomes."</p> })}
                    <ul class="cred-list">
                        {s.agents.into_iter().map(|a| view! {
                            <li>
                                <a href=format!("/agents/{}", a.identity)>{display_name(&a.agent)}</a>
                                " "
                                <IntervalBar credibility=a.credibility/>
                            </li>
                        }).collect_view()}
                    </ul>
                    <p class="muted">{format!("Read from the track record at {} (CR-4: logged, so this debate's credibility-weighted what-if recomputes the same later).", s.as_of)}</p>
                </section>
            }
        })
    }
}
