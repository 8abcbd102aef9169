//! FK-2 on the audit page: where a fork sits among its ancestors, as a small tree, and its copied
//! events checked in the browser against its parent's log, which the browser fetches.

use leptos::prelude::*;

use super::clean_error;
use crate::protocol::run::{check_lineage, ForkChanges};
use crate::protocol::Event;

/// One ancestor of a fork: the debate, the event the fork went on after, what it changed.
pub type Ancestor = (String, u64, ForkChanges);

/// What a fork changed, in a few words ("seed 3 · safety: openai/llama").
fn changed(changes: &ForkChanges) -> String {
    let parts = changes.describe();
    if parts.is_empty() {
        "no change".into()
    } else {
        parts.join(" · ")
    }
}

/// FK-2: where this debate sits among its ancestors, as a small tree: the first debate, each
/// fork after the event it went on from with what it changed, down to this one.
#[component]
pub fn Lineage(
    from: Vec<Ancestor>,
    /// The fork's own log.
    events: StoredValue<Vec<Event>>,
) -> impl IntoView {
    let parent = from[0].0.clone();
    // Nearest parent first in the log; the tree reads from the first debate down.
    let chain: Vec<Ancestor> = from.into_iter().rev().collect();
    let root = chain[0].0.clone();
    let steps: Vec<(String, u64, ForkChanges)> = chain
        .iter()
        .enumerate()
        .map(|(i, (_, after, changes))| {
            let child = chain.get(i + 1).map_or_else(String::new, |c| c.0.clone());
            (child, *after, changes.clone())
        })
        .collect();
    let depth = steps.len();
    view! {
        <div data-testid="lineage">
            <p>"This debate is a fork: the events up to where each fork went on are its parent's, copied."</p>
            <ul class="lineage-tree" data-testid="lineage-tree">
                <li><a href=format!("/debates/{root}/audit")>{root.clone()}</a></li>
                {steps.into_iter().enumerate().map(|(i, (child, after, changes))| {
                    let last = i + 1 == depth;
                    let pad = format!("padding-left: {}em", 1.2 * (i + 1) as f32);
                    view! {
                        <li style=pad>
                            "└ "
                            {if last {
                                view! { <strong>"this debate"</strong> }.into_any()
                            } else {
                                view! { <a href=format!("/debates/{child}/audit")>{child.clone()}</a> }.into_any()
                            }}
                            <span class="muted">{format!(" — after event {after}, {}", changed(&changes))}</span>
                        </li>
                    }
                }).collect_view()}
            </ul>
            <LineageCheck parent events/>
        </div>
    }
}

/// FK-2: the fork's copied events and the hash it names, checked here against the parent's log
/// (whose own chain is checked first); what the check found, or that it could not be made.
#[component]
fn LineageCheck(parent: String, events: StoredValue<Vec<Event>>) -> impl IntoView {
    // In the browser only (an effect): the server renders "Checking".
    let checked = RwSignal::new(None::<Result<String, String>>);
    Effect::new(move |_| {
        let parent = parent.clone();
        leptos::task::spawn_local(async move {
            checked.set(Some(check(parent, events).await));
        });
    });
    move || {
        match checked.get() {
        None => view! { <p class="muted" data-testid="lineage-check" data-verdict="pending">"Checking the copied events against the parent's log…"</p> }.into_any(),
        Some(Ok(line)) => view! { <p class="small lineage-ok" data-testid="lineage-check" data-verdict="verified">{format!("✓ Checked in this browser: {line}.")}</p> }.into_any(),
        Some(Err(e)) => view! { <p class="small form-error" data-testid="lineage-check" data-verdict="failed">{format!("✗ {e}")}</p> }.into_any(),
    }
    }
}

/// FK-2: the parent's log fetched, its chain checked, and the fork's copied events against it.
async fn check(parent: String, events: StoredValue<Vec<Event>>) -> Result<String, String> {
    let found = super::data::get_debate(parent.clone())
        .await
        .map_err(|e| clean_error(&e.to_string()))?;
    let Some(d) = found else {
        return Err(format!(
            "debate {parent} is not on this server: the copied events are unchecked"
        ));
    };
    crate::protocol::chain::verify_chain(&d.events)
        .map_err(|e| format!("the parent's chain does not verify: {e}"))?;
    events
        .with_value(|child| check_lineage(child, Some(&d.events)))
        .map(|lines| lines.join(" "))
}
