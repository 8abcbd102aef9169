//! What a debate cost and what the defence layer saw (AG-2, S4-8): tokens and latency per agent,
//! injection attempts and clamped confidences, and the budget stop.

use leptos::prelude::*;

use crate::protocol::types::display_name;
use crate::protocol::DebateView;

/// Shown when the token budget ran out: why the decision is the cautious one.
#[component]
pub fn BudgetBanner(state: Signal<DebateView>) -> impl IntoView {
    move || {
        let (stop, daily) = state.with(|v| (v.budget_exhausted, v.daily_limit));
        stop.map(|(round, used, budget)| {
            let why = match daily {
                // SV-13: the server's limit, not this debate's budget.
                Some((spent, limit)) => format!(
                    "This server's daily limit for remote models was reached in round {round} \
                     ({} of {} tokens spent today); the agents had used {} tokens.",
                    thousands(spent),
                    thousands(limit),
                    thousands(used)
                ),
                None => format!(
                    "Token budget exhausted in round {round}: the agents used {} of {} tokens.",
                    thousands(used),
                    thousands(budget)
                ),
            };
            view! {
                <section class="panel interrupted" role="alert" data-testid="budget-exhausted">
                    {format!(
                        "{why} The debate stopped there, and the decision was made from the \
                         positions that existed, the most cautious way."
                    )}
                </section>
            }
        })
    }
}

/// S4-8 findings, in log order.
#[component]
pub fn DefenceFlags(state: Signal<DebateView>) -> impl IntoView {
    move || {
        let flags = state.with(|v| v.flags.clone());
        (!flags.is_empty()).then(|| {
            view! {
                <section class="panel flags" data-testid="defence-flags">
                    <h2>"Attack defence"</h2>
                    <ul>
                        {flags
                            .into_iter()
                            .map(|f| {
                                let who = if f.source == "query" {
                                    "The query".to_owned()
                                } else {
                                    format!("{} (round {})", display_name(&f.source), f.round)
                                };
                                let what = if f.kind == "injection" {
                                    "prompt-injection pattern"
                                } else {
                                    "over-confidence"
                                };
                                view! {
                                    <li data-kind=f.kind.clone() data-source=f.source.clone()>
                                        <span class="flag-kind">{what}</span>
                                        " "
                                        <strong>{who}</strong>
                                        ": "
                                        {f.detail}
                                        <span class="muted">{format!(" · event {}", f.seq)}</span>
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
                </section>
            }
        })
    }
}

/// AG-2: calls, latency and tokens per agent; only remote agents report any.
#[component]
pub fn UsageTable(state: Signal<DebateView>) -> impl IntoView {
    move || {
        let usage = state.with(|v| v.usage.clone());
        let total = state.with(DebateView::tokens_used);
        let declared = state.with(|v| v.backend.clone());
        let agents = state.with(|v| v.agents.clone());
        // QL-3: an agent with its own backend says which, beside its name.
        let own = move |agent: &str| {
            agents.iter().find(|a| a.id == agent).and_then(|a| {
                a.backend.as_ref().map(|b| match &a.model {
                    Some(m) => format!(" ({b} · {m})"),
                    None => format!(" ({b})"),
                })
            })
        };
        (!usage.is_empty() || declared.is_some()).then(|| {
            let backend = match &declared {
                Some(b) => match &b.model {
                    Some(m) => format!("{} · {m}", b.kind),
                    None => b.kind.clone(),
                },
                None => usage.first().map(|u| u.backend.clone()).unwrap_or_default(),
            };
            let budget = declared
                .as_ref()
                .map(|b| format!(", of a {} budget", thousands(b.token_budget)));
            let estimated = usage.iter().any(|u| u.estimated);
            view! {
                <section class="panel usage" data-testid="agent-usage">
                    <h2>{format!("Model calls ({backend})")}</h2>
                    <table class="usage-table">
                        <thead>
                            <tr>
                                <th>"Agent"</th>
                                <th>"Calls"</th>
                                <th>"Failed"</th>
                                <th>"Retries"</th>
                                <th>"Latency (last / mean)"</th>
                                <th>"Prompt tokens"</th>
                                <th>"Completion tokens"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {usage
                                .into_iter()
                                .map(|u| {
                                    let mean = u.latency_ms / u64::from(u.calls.max(1));
                                    view! {
                                        <tr data-agent=u.agent.clone()>
                                            <td>{display_name(&u.agent)}<span class="muted" data-testid="agent-own-backend">{own(&u.agent)}</span></td>
                                            <td>{u.calls}</td>
                                            <td>{u.failed}</td>
                                            <td>{u.retries}</td>
                                            <td data-testid="latency">{format!("{} / {} ms", thousands(u.last_latency_ms), thousands(mean))}</td>
                                            <td data-testid="prompt-tokens">{thousands(u.prompt_tokens)}</td>
                                            <td data-testid="completion-tokens">{thousands(u.completion_tokens)}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </tbody>
                    </table>
                    <p class="muted" data-testid="tokens-total">
                        {format!("{} tokens in all", thousands(total))}
                        {budget}
                        {estimated.then_some(" (some estimated: the endpoint reported no usage)")}
                    </p>
                </section>
            }
        })
    }
}

/// 12345 → "12,345".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_separators() {
        for (n, want) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1_234_567, "1,234,567"),
        ] {
            assert_eq!(super::thousands(n), want);
        }
    }
}
