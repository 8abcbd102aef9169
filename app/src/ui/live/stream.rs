//! The browser's EventSource, folded through the shared reducer. EventSource reconnects by
//! itself and sends `Last-Event-ID`, so the server resumes exactly after the last event seen.

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{EventSource, MessageEvent};

use super::writing::{self, Writing};
use super::Connection;
use crate::protocol::{DebateView, Event};

/// Longest wait between attempts to reopen a stream the browser gave up on.
const MAX_BACKOFF_MS: i32 = 10_000;

/// The page's one stream: the current EventSource, a pending reopen timer, failed attempts.
#[derive(Default)]
struct Link {
    source: Option<EventSource>,
    timer: Option<i32>,
    attempt: u32,
}

type StreamLink = StoredValue<Link, LocalStorage>;

pub fn connect(
    id: &str,
    state: RwSignal<DebateView>,
    conn: RwSignal<Connection>,
    failure: RwSignal<Option<String>>,
    writing: RwSignal<Vec<Writing>>,
) {
    let link: StreamLink = StoredValue::new_local(Link::default());
    on_cleanup(move || {
        // The page is going away: no stream, no pending reopen.
        link.try_update_value(|l| {
            if let Some(s) = l.source.take() {
                s.close();
            }
            if let (Some(t), Some(w)) = (l.timer.take(), web_sys::window()) {
                w.clear_timeout_with_handle(t);
            }
        });
    });
    open(id.to_owned(), state, conn, failure, writing, link);
}

/// Opens the stream after the last event folded in. EventSource retries network errors by
/// itself (sending `Last-Event-ID`); when it gives up (an HTTP error, e.g. a proxy's 502 while
/// the server restarts) a new one is opened with backoff, from the page's own cursor.
#[allow(clippy::too_many_lines)] // one stream's life: open, messages, errors, backoff
fn open(
    id: String,
    state: RwSignal<DebateView>,
    conn: RwSignal<Connection>,
    failure: RwSignal<Option<String>>,
    writing: RwSignal<Vec<Writing>>,
    link: StreamLink,
) {
    // Finished, failed for good, or the page went away (its signals are gone).
    if matches!(
        conn.try_get_untracked(),
        None | Some(Connection::Closed | Connection::Failed)
    ) {
        return;
    }
    let Some(after) = state.try_with_untracked(|v| v.last_seq) else {
        return;
    };
    let url = format!("/api/debates/{id}/events?after={after}");
    let Ok(source) = EventSource::new(&url) else {
        conn.set(Connection::Failed);
        return;
    };
    link.update_value(|l| {
        l.timer = None;
        l.source = Some(source.clone());
    });

    let on_message = {
        Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let Some(text) = e.data().as_string() else {
                return;
            };
            let Ok(event) = serde_json::from_str::<Event>(&text) else {
                leptos::logging::warn!("ignoring an unreadable event: {text}");
                return;
            };
            let terminal = event.body.is_terminal();
            state.update(|v| {
                v.apply(&event);
            });
            if terminal {
                // Nothing is being written once the log ends (a stop cancels the calls).
                writing.set(Vec::new());
                // Not closed here: a backlog may go on past a first decision (a gate review
                // appended to an ended log, ES-7). The server ends the stream after the
                // last event; the browser's reconnect then gets 204 and stops for good.
                conn.set(Connection::Closed);
            } else if conn.get_untracked() != Connection::Live {
                conn.set(Connection::Live);
            }
        })
    };
    let on_open = Closure::<dyn FnMut()>::new(move || {
        link.try_update_value(|l| l.attempt = 0);
        let _ = conn.try_set(Connection::Live);
    });
    let on_error = {
        let source = source.clone();
        Closure::<dyn FnMut()>::new(move || {
            if matches!(conn.try_get_untracked(), None | Some(Connection::Closed)) {
                return;
            }
            conn.set(Connection::Reconnecting);
            if source.ready_state() != EventSource::CLOSED {
                return; // the browser retries by itself
            }
            let Some(attempt) = link.try_update_value(|l| {
                l.attempt += 1;
                l.attempt
            }) else {
                return;
            };
            let delay = (250_i32 << attempt.min(6)).min(MAX_BACKOFF_MS);
            let id = id.clone();
            let retry = Closure::once(move || open(id, state, conn, failure, writing, link));
            let timer = web_sys::window().and_then(|w| {
                w.set_timeout_with_callback_and_timeout_and_arguments_0(
                    retry.as_ref().unchecked_ref(),
                    delay,
                )
                .ok()
            });
            match timer {
                Some(t) => {
                    retry.forget();
                    link.update_value(|l| l.timer = Some(t));
                }
                None => conn.set(Connection::Failed),
            }
        })
    };
    // The server's last word when the log cannot go on (`event: failed`): show why, stop.
    let on_failed = {
        let source = source.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let reason = e
                .data()
                .as_string()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .and_then(|v| v["error"].as_str().map(str::to_owned))
                .unwrap_or_else(|| "the server could not store this debate's log".into());
            source.close();
            // Nobody is thinking any more: the run behind this stream has ended.
            let _ = state.try_update(|v| v.thinking.clear());
            let _ = writing.try_set(Vec::new());
            let _ = failure.try_set(Some(reason));
            let _ = conn.try_set(Connection::Failed);
        })
    };
    let _ = source.add_event_listener_with_callback("failed", on_failed.as_ref().unchecked_ref());
    on_failed.forget();
    // LM-3: pieces of replies being written (no id: the cursor stays the last logged event).
    let on_delta = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let Some(d) = e
            .data()
            .as_string()
            .and_then(|t| serde_json::from_str::<writing::Delta>(&t).ok())
        else {
            return;
        };
        let _ = writing.try_update(|w| writing::apply(w, d));
    });
    let _ = source.add_event_listener_with_callback("delta", on_delta.as_ref().unchecked_ref());
    on_delta.forget();
    source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // Each source's callbacks live as long as the page (three per reopen).
    on_message.forget();
    on_open.forget();
    on_error.forget();
}
