//! The offline audit viewer (UI-3, SV-2): one self-contained HTML file (`target/site/viewer.html`,
//! also served at `/viewer.html`) that opens an exported `.json` log from disk and verifies it
//! entirely in the browser, with no server. Mounted client-side by `frontend::viewer()`.

use leptos::prelude::*;

use super::audit::AuditBody;
use crate::audit::Export;
use crate::protocol::event::DebateEvent;
use crate::protocol::{Event, EventBody};

/// The protocol, query and seed as the log's `debate_started` records them, for the header.
fn started(events: &[Event]) -> (String, String, u64) {
    events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::Debate(DebateEvent::DebateStarted {
                protocol,
                query,
                seed,
                ..
            }) => Some((protocol.clone(), query.clone(), *seed)),
            _ => None,
        })
        .unwrap_or_default()
}

/// What the judge opened: a file name and its events, or why it could not be read.
type Opened = Result<(String, Export), String>;

#[component]
pub fn Viewer() -> impl IntoView {
    let opened = RwSignal::new(None::<Opened>);
    let on_change = move |ev: leptos::ev::Event| {
        #[cfg(feature = "hydrate")]
        read_file(&ev, opened);
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, opened);
    };

    view! {
        <div class="app viewer">
            <header class="topbar">
                <span class="brand">
                    <span class="brand-mark">"⚖"</span>
                    <span class="brand-name">"Consilium"</span>
                </span>
                <span class="tagline">"Offline audit viewer — nothing you open leaves this page"</span>
            </header>
            <main>
                <section class="panel viewer-intro">
                    <h1>"Verify a debate log"</h1>
                    <p class="muted">
                        "Open a log exported from Consilium (" <code>"export.json"</code>
                        "). This page re-computes every hash of the chain and the decision from the logged votes with the same code the server runs, compiled to WebAssembly."
                    </p>
                    <label class="file-pick">
                        <span>"Choose an exported .json file"</span>
                        <input type="file" accept=".json,application/json" data-testid="file" on:change=on_change/>
                    </label>
                </section>
                {move || opened.get().map(|o| match o {
                    Ok((name, export)) => {
                        let (protocol, query, seed) = started(&export.events);
                        view! {
                            <section class="panel debate-head">
                                <div class="debate-meta">
                                    <span class="proto">{protocol.to_uppercase()}</span>
                                    <span class="muted">{format!("seed {seed}")}</span>
                                    <span class="muted" data-testid="file-name">{name}</span>
                                </div>
                                <h1 class="debate-query">{query}</h1>
                            </section>
                            <AuditBody export/>
                        }
                        .into_any()
                    }
                    Err(reason) => view! {
                        <section class="panel verification failed" data-testid="verification" data-verdict="failed">
                            <span class="verdict-icon">"✗"</span>
                            <div><strong data-testid="verdict">{reason}</strong></div>
                        </section>
                    }
                    .into_any(),
                })}
            </main>
        </div>
    }
}

#[cfg(feature = "hydrate")]
fn read_file(ev: &leptos::ev::Event, opened: RwSignal<Option<Opened>>) {
    let input: web_sys::HtmlInputElement = event_target(ev);
    let Some(file) = input.files().and_then(|files| files.get(0)) else {
        return;
    };
    let name = file.name();
    // A huge file is refused before it is read into memory.
    let size = file.size();
    if size > crate::audit::MAX_EXPORT_BYTES as f64 {
        opened.set(Some(Err(format!(
            "{name}: {}",
            crate::audit::too_large(size as usize)
        ))));
        return;
    }
    leptos::task::spawn_local(async move {
        let text = wasm_bindgen_futures::JsFuture::from(file.text())
            .await
            .ok()
            .and_then(|t| t.as_string());
        opened.set(Some(match text {
            Some(text) => match crate::audit::parse_export_full(&text) {
                Ok(export) => Ok((name, export)),
                Err(e) => Err(format!("{name}: {e}")),
            },
            None => Err(format!("cannot read {name} as text")),
        }));
    });
}
