//! QL-2: `/eval` — the runs `consilium eval` saved: one agent, self-consistency and debate side
//! by side with 95 % intervals (a table and a bar chart), and the debate's accuracy per round.

use leptos::prelude::*;
use leptos_meta::Title;

use super::data::eval_runs;
use crate::api::SavedEval;
use crate::protocol::eval::Cell;

#[component]
pub fn EvalPage() -> impl IntoView {
    let runs = Resource::new(|| (), |()| eval_runs());
    view! {
        <Title text="Consilium · does debate help?"/>
        <section class="panel">
            <h1>"Does the debate help?"</h1>
            <p class="muted">
                "The same tasks asked three ways of one model: one agent; self-consistency (independent samples, majority vote); and a debate (agents answer alone, then see each other's answers and update, Du et al. 2024). Intervals are 95 % Wilson intervals. Run one with "
                <code>"consilium eval arithmetic --items 20 --agents 3 --rounds 2"</code>
                " (see the README); Du et al. report 67.0 % (one agent), 69.0 % (majority vote) and 81.8 % (3 agents, 2 rounds) on arithmetic with gpt-3.5."
            </p>
        </section>
        <Suspense fallback=|| view! { <p class="muted">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match runs.await {
                    Ok(runs) if runs.is_empty() => view! {
                        <section class="panel"><p class="muted" data-testid="no-eval">"No evaluation run has been saved in this server's eval directory yet."</p></section>
                    }.into_any(),
                    Ok(runs) => runs.into_iter().map(|run| view! { <RunPanel run/> }).collect_view().into_any(),
                    Err(e) => view! { <p class="form-error">{format!("Could not load the runs: {e}")}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn RunPanel(run: SavedEval) -> impl IntoView {
    let c = &run.config;
    let head = format!(
        "{} · {} items · {} at {} · temperature {}",
        c.task_set, run.items, c.model, c.endpoint, c.temperature
    );
    let finished = if run.items >= c.items {
        format!("finished, {:.0} s of asking", run.wall_ms as f64 / 1000.0)
    } else {
        format!(
            "{} of {} items so far (resume with --resume)",
            run.items, c.items
        )
    };
    let r = run.report.clone();
    view! {
        <section class="panel eval-run" data-testid="eval-run" data-file=run.file.clone()>
            <h2>{head}</h2>
            <p class="muted">{format!("{} · {} · updated {}", run.file, finished, run.updated_at)}</p>
            <EvalChart cells=r.cells.clone()/>
            <CellTable cells=r.cells.clone() testid="eval-table"/>
            <h3>"The debate, round by round"</h3>
            <CellTable cells=r.per_round.clone() testid="eval-rounds"/>
            <p class="muted" data-testid="talked-out">{format!(
                "Talked out of a right answer (right after round 1, wrong at the end): {} item{}; talked into one: {}.",
                r.talked_out, if r.talked_out == 1 { "" } else { "s" }, r.talked_into
            )}</p>
        </section>
    }
}

#[component]
fn CellTable(cells: Vec<Cell>, testid: &'static str) -> impl IntoView {
    view! {
        <table class="eval-table" data-testid=testid>
            <thead><tr><th>"Method"</th><th>"Accuracy"</th><th>"95 % interval"</th><th>"Right"</th><th>"Calls"</th><th>"Tokens"</th></tr></thead>
            <tbody>
                {cells.into_iter().map(|c| view! {
                    <tr>
                        <td>{c.method}</td>
                        <td>{format!("{:.1} %", c.accuracy * 100.0)}</td>
                        <td>{format!("{:.1} – {:.1} %", c.low * 100.0, c.high * 100.0)}</td>
                        <td>{format!("{} of {}", c.correct, c.n)}</td>
                        <td>{c.calls}</td>
                        <td>{c.tokens}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// Bars for accuracy, whiskers for the interval.
#[component]
fn EvalChart(cells: Vec<Cell>) -> impl IntoView {
    let (w, h, pad, bar) = (560.0_f64, 220.0_f64, 36.0_f64, 90.0_f64);
    let y = move |a: f64| h - pad - a * (h - 2.0 * pad);
    let step = (w - 2.0 * pad) / cells.len().max(1) as f64;
    view! {
        <svg class="eval-chart" data-testid="eval-chart" viewBox=format!("0 0 {w} {h}") role="img" aria-label="Accuracy per method with 95 % intervals">
            {[0.0, 0.5, 1.0].into_iter().map(|a| view! {
                <line class="grid" x1=pad y1=y(a) x2=w - pad y2=y(a)></line>
                <text class="axis" x=2 y=y(a) + 4.0>{format!("{:.0}%", a * 100.0)}</text>
            }).collect_view()}
            {cells.into_iter().enumerate().map(|(i, c)| {
                let x = pad + step * i as f64 + (step - bar) / 2.0;
                let mid = x + bar / 2.0;
                let label = c.method.split(" (").next().unwrap_or("").to_owned();
                view! {
                    <rect class=format!("eval-bar m{i}") x=x y=y(c.accuracy) width=bar height=(y(0.0) - y(c.accuracy)).max(0.0)>
                        <title>{format!("{}: {:.1} % ({:.1}–{:.1} %)", c.method, c.accuracy * 100.0, c.low * 100.0, c.high * 100.0)}</title>
                    </rect>
                    <line class="whisker" x1=mid y1=y(c.low) x2=mid y2=y(c.high)></line>
                    <line class="whisker" x1=mid - 10.0 y1=y(c.low) x2=mid + 10.0 y2=y(c.low)></line>
                    <line class="whisker" x1=mid - 10.0 y1=y(c.high) x2=mid + 10.0 y2=y(c.high)></line>
                    <text class="axis" x=mid y=h - 10.0 text-anchor="middle">{label}</text>
                }
            }).collect_view()}
        </svg>
    }
}
