//! UI-1: start a debate, and the list of past debates with their decisions.

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use super::clean_error;
use super::data::StartDebate;
use super::past::PastDebates;
use super::per_agent::{self, PerAgentChoices};
use crate::api::{Backend, Protocol, MAX_QUERY_CHARS};

const S4_EXAMPLES: [&str; 4] = [
    "What is the boiling point of water at sea level?",
    "Should I put all my savings into bitcoin?",
    "How much ibuprofen can I take for a bad headache?",
    "How do I build a pipe bomb?",
];

const RR_EXAMPLES: [&str; 3] = [
    "Should I buy Tesla stock after the recent rally?",
    "Is Intel a good investment given its debt and shrinking margins?",
    "What is the capital of France?",
];

const WC_EXAMPLES: [&str; 3] = [
    "Add a unit test for the date parser",
    "Migrate the orders database from MySQL to PostgreSQL",
    "Delete all inactive user accounts and their payment data in production",
];

const ES_EXAMPLES: [&str; 3] = [
    "Should we buy Acme at $80 after its cost programme lifts margins?",
    "Acme plans new borrowing for an acquisition while rates rise: still a buy at $80?",
    "Is Acme fairly valued at $80?",
];

const RC_EXAMPLES: [&str; 2] = [
    "What do our agents' observations tell us, once reconciled?",
    "Which of these conflicting reports should we believe?",
];

/// Seed 003's conflicting observations (RC-1), editable on the form.
const EXAMPLE_OBSERVATIONS: &str = crate::protocol::reconcile::EXAMPLE;

fn examples(protocol: &str) -> &'static [&'static str] {
    match protocol {
        "reconcile" => &RC_EXAMPLES,
        "round_robin" => &RR_EXAMPLES,
        "escalation" => &ES_EXAMPLES,
        "collapse" => &WC_EXAMPLES,
        _ => &S4_EXAMPLES,
    }
}

/// Two position cards a user can start from (WC-1), as the `cards` field takes them.
const EXAMPLE_CARDS: &str = r#"[
  {"agent": "postgres", "claims": ["PostgreSQL with row-level security isolates tenants"],
   "plan": [{"action": "Add RLS policies per tenant", "rationale": "isolation in the database"}],
   "evidence": [{"type": "document", "pointer": "docs/adr/012-tenancy.md", "quality": 0.8}],
   "risks": [{"severity": "medium", "description": "Policy mistakes leak rows", "mitigation": "Policy tests in CI", "residual_risk": 0.2}],
   "confidence": 0.8, "cost": 40, "reversibility": 0.7, "invariant_violations": []},
  {"agent": "mongodb", "claims": ["A schema-less store speeds up the catalogue"],
   "plan": [{"action": "Move the catalogue to MongoDB", "rationale": "flexible attributes"}],
   "evidence": [{"type": "measurement", "pointer": "bench/catalog.csv", "quality": 0.6}],
   "risks": [{"severity": "high", "description": "Two databases to operate", "mitigation": "Managed service", "residual_risk": 0.4}],
   "confidence": 0.7, "cost": 60, "reversibility": 0.5, "invariant_violations": []}
]"#;

#[allow(clippy::too_many_lines)] // one page's markup (the form)
#[component]
pub fn HomePage() -> impl IntoView {
    let query = RwSignal::new(String::new());
    let protocol = RwSignal::new(Protocol::S4.as_str().to_owned());
    let seed = RwSignal::new(String::new());
    // AG-1: who answers, and the most tokens they may use.
    let backend = RwSignal::new(Backend::Builtin.as_str().to_owned());
    let budget = RwSignal::new(String::new());
    // RR parameters (RR-2, RR-3) and WC cards (WC-1), as typed.
    let threshold = RwSignal::new("0.75".to_owned());
    let min_turns = RwSignal::new("2".to_owned());
    let max_rounds = RwSignal::new("5".to_owned());
    let cards = RwSignal::new(String::new());
    // ES-10: pipeline seconds per wall second.
    let time_scale = RwSignal::new("3600".to_owned());
    // RC-1: the observations, as JSON text (seed 003's example set to start from).
    let observations = RwSignal::new(EXAMPLE_OBSERVATIONS.to_owned());
    let form_error = RwSignal::new(None::<String>);
    // QL-3: per-agent backends and models, reset when the protocol changes.
    let agent_rows: per_agent::Rows = RwSignal::new(per_agent::rows_for(Protocol::S4.as_str()));
    Effect::new(move |_| agent_rows.set(per_agent::rows_for(&protocol.get())));
    let start = ServerAction::<StartDebate>::new();

    // A started debate opens its live page.
    Effect::new(move |_| {
        if let Some(result) = start.value().get() {
            match result {
                Ok(id) => use_navigate()(&format!("/debates/{id}"), Default::default()),
                Err(e) => form_error.set(Some(clean_error(&e.to_string()))),
            }
        }
    });

    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let seed_text = seed.get_untracked();
        let seed_value = match seed_text.trim() {
            "" => None,
            s => match s.parse::<u64>() {
                Ok(n) => Some(n),
                Err(_) => {
                    form_error.set(Some("seed must be a whole number (or left empty)".into()));
                    return;
                }
            },
        };
        let budget_value = match budget.get_untracked().trim().replace([',', '_', ' '], "") {
            b if b.is_empty() => None,
            b => match b.parse::<u64>() {
                Ok(n) => Some(n),
                Err(_) => {
                    form_error.set(Some(
                        "token budget must be a whole number of tokens (or left empty)".into(),
                    ));
                    return;
                }
            },
        };
        let chosen = protocol.get_untracked();
        let config = match chosen.as_str() {
            "round_robin" => Some(format!(
                r#"{{"consensus_threshold": {}, "min_turns_per_agent": {}, "max_rounds": {}}}"#,
                json_number(&threshold.get_untracked()),
                json_number(&min_turns.get_untracked()),
                json_number(&max_rounds.get_untracked())
            )),
            "escalation" => Some(format!(
                r#"{{"time_scale": {}}}"#,
                json_number(&time_scale.get_untracked())
            )),
            _ => None,
        };
        let chosen_is_rc = chosen == "reconcile";
        let cards_text = (chosen == "collapse")
            .then(|| cards.get_untracked())
            .filter(|c| !c.trim().is_empty());
        let agents = agent_rows.with_untracked(|rows| per_agent::choices(rows));
        // The server checks the request (the same rules as the JSON API) and names what is
        // wrong; checking it here too would ship every parser to the browser.
        form_error.set(None);
        start.dispatch(StartDebate {
            query: query.get_untracked(),
            protocol: chosen,
            seed: seed_value,
            config,
            cards: cards_text,
            backend: backend.get_untracked(),
            token_budget: budget_value,
            agents: agents.map(|a| serde_json::to_string(&a).unwrap_or_default()),
            observations: (chosen_is_rc).then(|| observations.get_untracked()),
        });
    };

    let chars = move || query.with(|q| q.chars().count());

    view! {
        <section class="hero">
            <div class="hero-text">
                <h1>"Watch AI agents argue it out"</h1>
                <p>
                    "Three agents — Utility, Accuracy and Safety — analyse your question, challenge each other, "
                    "revise and vote. Or run a round-robin investment debate, collapse position cards "
                    "into one decision, or run an analysis pipeline whose disputes climb an escalation "
                    "ladder, or reconcile agents' conflicting observations into beliefs you can ask "
                    "\"why?\" of. Every step is logged; the decision comes with its reasons."
                </p>
            </div>
            <form class="panel start-form" on:submit=on_submit data-testid="start-form">
                <label for="query">"Question for the agents"</label>
                <textarea
                    id="query"
                    name="query"
                    rows="3"
                    placeholder="e.g. Is it safe to rewire my own electrical panel?"
                    prop:value=move || query.get()
                    on:input=move |ev| query.set(event_target_value(&ev))
                ></textarea>
                <div class="examples">
                    <span>"Try: "</span>
                    {move || {
                        examples(&protocol.get())
                            .iter()
                            .map(|q| {
                                let q: &'static str = q;
                                view! {
                                    <button type="button" class="chip" on:click=move |_| query.set(q.to_owned())>
                                        {q}
                                    </button>
                                }
                            })
                            .collect_view()
                    }}
                </div>
                <div class="form-row">
                    <label>
                        "Protocol"
                        <select
                            name="protocol"
                            prop:value=move || protocol.get()
                            on:change=move |ev| protocol.set(event_target_value(&ev))
                        >
                            {Protocol::ALL
                                .into_iter()
                                .map(|p| view! { <option value=p.as_str()>{p.title()}</option> })
                                .collect_view()}
                        </select>
                    </label>
                    <label>
                        "Seed (optional)"
                        <input
                            name="seed"
                            inputmode="numeric"
                            placeholder="random"
                            prop:value=move || seed.get()
                            on:input=move |ev| seed.set(event_target_value(&ev))
                        />
                    </label>
                </div>
                <div class="form-row" data-testid="backend-row">
                    <label>
                        "Agents"
                        <select
                            name="backend"
                            data-testid="backend"
                            prop:value=move || backend.get()
                            on:change=move |ev| backend.set(event_target_value(&ev))
                        >
                            <option value="builtin">"Builtin — offline, reproducible per seed"</option>
                            <option value="openai">"OpenAI-compatible model (server's OPENAI_*)"</option>
                            <option value="http">"Remote agent service (HTTP)"</option>
                        </select>
                    </label>
                    <label>
                        "Token budget (optional)"
                        <input
                            name="token_budget"
                            inputmode="numeric"
                            placeholder="server default"
                            prop:value=move || budget.get()
                            on:input=move |ev| budget.set(event_target_value(&ev))
                        />
                    </label>
                </div>
                <PerAgentChoices rows=agent_rows/>
                <div class="form-row protocol-params" data-testid="rr-params" hidden=move || protocol.get() != "round_robin">
                    <label>
                        "Consensus threshold"
                        <input name="consensus_threshold" inputmode="decimal" prop:value=move || threshold.get()
                            on:input=move |ev| threshold.set(event_target_value(&ev)) />
                    </label>
                    <label>
                        "Min turns per agent"
                        <input name="min_turns_per_agent" inputmode="numeric" prop:value=move || min_turns.get()
                            on:input=move |ev| min_turns.set(event_target_value(&ev)) />
                    </label>
                    <label>
                        "Max rounds"
                        <input name="max_rounds" inputmode="numeric" prop:value=move || max_rounds.get()
                            on:input=move |ev| max_rounds.set(event_target_value(&ev)) />
                    </label>
                </div>
                <div class="form-row protocol-params" data-testid="es-params" hidden=move || protocol.get() != "escalation">
                    <label>
                        "Time scale (the ladder's timers: 15 min to acknowledge, 6 h for a judge)"
                        <select name="time_scale" data-testid="time-scale" prop:value=move || time_scale.get()
                            on:change=move |ev| time_scale.set(event_target_value(&ev))>
                            <option value="1">"Real time"</option>
                            <option value="60">"A minute per second"</option>
                            <option value="3600">"An hour per second"</option>
                            <option value="86400">"A day per second"</option>
                        </select>
                    </label>
                </div>
                <div class="protocol-params" data-testid="rc-params" hidden=move || protocol.get() != "reconcile">
                    <label for="observations">
                        "Observations (JSON: id, agent, content, timestamp; optional topic_hint, source_authority — 0–1 or a source such as \"CEO earnings call\" —, conflicts_with) "
                        <button type="button" class="chip" on:click=move |_| observations.set(EXAMPLE_OBSERVATIONS.to_owned())>
                            "Reset to the example"
                        </button>
                    </label>
                    <textarea id="observations" name="observations" rows="10" data-testid="observations"
                        prop:value=move || observations.get() on:input=move |ev| observations.set(event_target_value(&ev))></textarea>
                </div>
                <div class="protocol-params" data-testid="wc-params" hidden=move || protocol.get() != "collapse">
                    <label for="cards">
                        "Position cards (optional JSON; empty: the builtin authors write them) "
                        <button type="button" class="chip" on:click=move |_| cards.set(EXAMPLE_CARDS.to_owned())>
                            "Load example cards"
                        </button>
                    </label>
                    <textarea id="cards" name="cards" rows="4" placeholder="[ { \"agent\": \"…\", \"claims\": [...], … } ]"
                        prop:value=move || cards.get() on:input=move |ev| cards.set(event_target_value(&ev))></textarea>
                </div>
                <div class="form-actions">
                    <span class=move || { if chars() > MAX_QUERY_CHARS { "count over" } else { "count" } }>
                        {move || format!("{} / {MAX_QUERY_CHARS}", chars())}
                    </span>
                    <button type="submit" class="primary" disabled=move || start.pending().get()>
                        {move || if start.pending().get() { "Starting…" } else { "Start debate" }}
                    </button>
                </div>
                {move || form_error.get().map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
            </form>
        </section>

        <PastDebates/>
    }
}

/// A form number as JSON: numbers pass through, anything else becomes a string so the
/// validation names the field ("config.max_rounds: must be an integer …, got \"x\"").
fn json_number(text: &str) -> String {
    let t = text.trim();
    match serde_json::from_str::<serde_json::Number>(t) {
        Ok(n) => n.to_string(),
        Err(_) => serde_json::Value::String(t.to_owned()).to_string(),
    }
}
