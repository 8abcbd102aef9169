//! QL-3 on the home form: each agent of the chosen protocol may get its own backend and model.

use leptos::prelude::*;

use crate::api::AgentChoice;
use crate::protocol::{collapse, escalation, reconcile, round_robin, AgentSpec};

/// The agents a protocol starts with, as the form offers them.
pub fn agents_of(protocol: &str) -> Vec<AgentSpec> {
    match protocol {
        "round_robin" => round_robin::default_agents(),
        "collapse" => collapse::default_authors(),
        "escalation" => escalation::default_agents(),
        // RC: the observing agents are data; the embedder and the reconciler are asked.
        "reconcile" => vec![
            AgentSpec::new(reconcile::EMBEDDER, crate::protocol::Role::Embedder),
            AgentSpec::new(reconcile::RECONCILER, crate::protocol::Role::Reconciler),
        ],
        _ => AgentSpec::default_s4(),
    }
}

/// One row per agent: (agent id, backend or "" for the debate's, model).
pub type Rows = RwSignal<Vec<(String, String, String)>>;

/// The rows for `protocol`, every agent on the debate's backend.
pub fn rows_for(protocol: &str) -> Vec<(String, String, String)> {
    agents_of(protocol)
        .into_iter()
        .map(|a| (a.id, String::new(), String::new()))
        .collect()
}

/// The request's `agents`: only the rows that differ from the debate's backend.
pub fn choices(rows: &[(String, String, String)]) -> Option<Vec<AgentChoice>> {
    let chosen: Vec<AgentChoice> = rows
        .iter()
        .filter(|(_, b, m)| !b.is_empty() || !m.trim().is_empty())
        .map(|(a, b, m)| AgentChoice {
            role: a.clone(),
            backend: (!b.is_empty()).then(|| b.clone()),
            model: Some(m.trim().to_owned()).filter(|m| !m.is_empty()),
        })
        .collect();
    (!chosen.is_empty()).then_some(chosen)
}

#[component]
pub fn PerAgentChoices(rows: Rows) -> impl IntoView {
    let set = move |i: usize, field: usize, value: String| {
        rows.update(|r| {
            if let Some(row) = r.get_mut(i) {
                match field {
                    1 => row.1 = value,
                    _ => row.2 = value,
                }
            }
        });
    };
    view! {
        <details class="per-agent" data-testid="per-agent">
            <summary>"Per-agent backends and models (optional) — mixed models debate better than copies of one"</summary>
            {move || rows.get().into_iter().enumerate().map(|(i, (agent, backend, model))| {
                let name = crate::protocol::types::display_name(&agent);
                let openai = backend == "openai";
                view! {
                    <div class="form-row per-agent-row" data-agent=agent.clone()>
                        <span class="per-agent-name">{name}</span>
                        <select aria-label=format!("Backend for {agent}") data-testid=format!("agent-backend-{agent}")
                            prop:value=backend.clone()
                            on:change=move |ev| set(i, 1, event_target_value(&ev))>
                            <option value="">"The debate's agents"</option>
                            <option value="builtin">"Builtin"</option>
                            <option value="openai">"OpenAI-compatible model"</option>
                            <option value="http">"Remote agent service"</option>
                        </select>
                        <input aria-label=format!("Model for {agent}") data-testid=format!("agent-model-{agent}")
                            placeholder=if openai { "server's OPENAI_MODEL" } else { "model (openai only)" }
                            disabled=!openai
                            prop:value=model.clone()
                            on:input=move |ev| set(i, 2, event_target_value(&ev))/>
                    </div>
                }
            }).collect_view()}
        </details>
    }
}
