//! FK-3 on the audit page: this debate and its newest forks side by side — a column each, a row
//! per agent per round with the position held there, each fork's first different position
//! marked, and each column's decision and vote baseline.

use leptos::prelude::*;

use crate::api::{CompareCell, Comparison};

fn cell_text(cell: &CompareCell) -> String {
    match cell.confidence {
        Some(c) => format!("{} {c}%", cell.label),
        None => cell.label.clone(),
    }
}

/// The comparison of a debate with its forks, drawn once the page runs in the browser: a wide
/// table of data-dependent cells is left out of the server-rendered page the browser hydrates.
#[component]
pub fn CompareTable(c: Comparison) -> impl IntoView {
    let mounted = RwSignal::new(false);
    Effect::new(move |_| mounted.set(true));
    let c = StoredValue::new(c);
    move || {
        mounted
            .get()
            .then(|| view! { <CompareGrid c=c.get_value()/> })
    }
}

#[component]
fn CompareGrid(c: Comparison) -> impl IntoView {
    let columns = c.columns.clone();
    let firsts: Vec<Option<usize>> = columns.iter().map(|k| k.first_row).collect();
    view! {
        <h3>"Side by side"</h3>
        <p data-testid="compare-summary"><strong>{c.summary.clone()}</strong></p>
        <div class="compare-wrap">
        <table class="compare" data-testid="compare">
            <thead><tr>
                <th>"Round · agent"</th>
                {columns.iter().enumerate().map(|(i, k)| view! {
                    <th data-testid="compare-col" data-id=k.id.clone()>
                        {(i > 0).then(|| view! { <a href=format!("/debates/{}/audit", k.id)>{k.id.clone()}</a> })}
                        <span class="col-title">{k.title.clone()}</span>
                    </th>
                }).collect_view()}
            </tr></thead>
            <tbody>
                {c.rows.iter().enumerate().map(|(r, row)| view! {
                    <tr>
                        <th class="row-head">{format!("{} · {}", row.name, row.agent)}</th>
                        {row.cells.iter().enumerate().map(|(i, cell)| {
                            let first = firsts[i] == Some(r);
                            match cell {
                                Some(cell) => view! {
                                    <td class:differs=cell.differs class:first=first data-testid=if first { "divergence" } else { "compare-cell" }>
                                        {cell_text(cell)}
                                        {first.then(|| view! { <span class="first-mark" title="The first position this fork held differently">" ◆ first difference"</span> })}
                                    </td>
                                }.into_any(),
                                None => view! { <td class="muted">"—"</td> }.into_any(),
                            }
                        }).collect_view()}
                    </tr>
                }).collect_view()}
            </tbody>
            <tfoot>
                <tr><th class="row-head">"Went another way at"</th>
                    {columns.iter().enumerate().map(|(i, k)| view! {
                        <td>{match (i, k.diverged_at) {
                            (0, _) => "—".to_owned(),
                            (_, Some(n)) => format!("event {n}"),
                            (_, None) => "nowhere yet".to_owned(),
                        }}</td>
                    }).collect_view()}
                </tr>
                <tr><th class="row-head">"Decision"</th>
                    {columns.iter().map(|k| view! {
                        <td class="decision-cell" class:same=k.same class:other=!k.same data-testid="compare-decision">
                            {k.decision.clone().unwrap_or_else(|| "—".into())}
                        </td>
                    }).collect_view()}
                </tr>
                <tr><th class="row-head">"Plain vote of first positions"</th>
                    {columns.iter().map(|k| view! {
                        <td data-testid="compare-baseline">{k.baseline.clone().unwrap_or_else(|| "—".into())}</td>
                    }).collect_view()}
                </tr>
            </tfoot>
        </table>
        </div>
    }
}
