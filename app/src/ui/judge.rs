//! SV-7 in the browser: the judge's sign-in page, the top bar's "who am I", and the one judge
//! control so far — stopping a running debate. Viewers never see judge controls.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_query_map;

use super::data::{stop_debate, who_am_i};

/// Who is looking at a page: `(name, role)` of a signed-in judge or viewer, `None` for anyone.
pub type Me = Option<(String, String)>;

/// Whether `me` is a judge (who may stop a debate, grant tokens, rule).
pub fn is_judge(me: &Me) -> bool {
    matches!(me, Some((_, role)) if role == "judge")
}

/// Who is looking, as the page that shows a debate's live view knows it (`live.rs` provides it
/// to the view's parts: the protocol's panel, the human decision form).
#[derive(Clone, Debug)]
pub struct Looking(pub Me);

/// Whether a judge is looking, as the live page knows it (`Looking`). Only a live page shows a
/// judge's forms (they act on the debate it shows); elsewhere (an audit page, the offline
/// viewer) nobody is asked, and the answer is no. No resource is made for it, so the ids of the
/// resources a page serialises are the same whichever bundle hydrates it.
pub fn judge_looking() -> bool {
    use_context::<Looking>().is_some_and(|Looking(me)| is_judge(&me))
}

/// `/judge/sign-in`: a plain form (it works before the page hydrates) that posts the token to
/// `/api/judge/sign-in`, which sets the session cookie and comes back here.
#[component]
pub fn SignInPage() -> impl IntoView {
    let me = Resource::new(|| (), |_| who_am_i());
    let query = use_query_map();
    let error = move || query.read().get("error").is_some();
    view! {
        <leptos_meta::Title text="Consilium · judge sign-in"/>
        <section class="panel sign-in">
            <Suspense fallback=|| view! { <p class="muted">"…"</p> }>
                {move || Suspend::new(async move {
                    match me.await.ok().flatten() {
                        Some((name, role)) => view! {
                            <h1>"Signed in"</h1>
                            <p data-testid="signed-in-as">{format!("You are signed in as {name} ({role}).")}</p>
                            <form method="post" action="/api/judge/sign-out">
                                <button type="submit" class="secondary" data-testid="sign-out">"Sign out"</button>
                            </form>
                            <p><A href="/">"Back to the debates"</A></p>
                        }.into_any(),
                        None => view! {
                            <h1>"Judge sign-in"</h1>
                            <p class="muted">
                                "Judges rule on debates. Your token comes from the operator ("
                                <code>"consilium judge add NAME"</code>"). Viewers need no sign-in."
                            </p>
                            {error().then(|| view! {
                                <p class="form-error" role="alert">"That token is not valid (unknown, rotated or removed)."</p>
                            })}
                            <form method="post" action="/api/judge/sign-in" class="sign-in-form">
                                <label for="token">"Token"</label>
                                <input id="token" name="token" type="password" autocomplete="current-password"
                                    required data-testid="judge-token"/>
                                <button type="submit" data-testid="sign-in">"Sign in"</button>
                            </form>
                        }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// The top bar's corner: who is signed in, or the way to sign in.
#[component]
pub fn JudgeCorner() -> impl IntoView {
    let me = Resource::new(|| (), |_| who_am_i());
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match me.await.ok().flatten() {
                    Some((name, role)) => view! {
                        {(role == "judge").then(|| view! {
                            <A href="/judge" attr:class="judge-corner" attr:data-testid="desk-link">"Desk"</A>
                        })}
                        <A href="/judge/sign-in" attr:class="judge-corner" attr:data-testid="judge-corner">
                            {format!("{name} · {role}")}
                        </A>
                    }.into_any(),
                    None => view! {
                        <A href="/judge/sign-in" attr:class="judge-corner muted">"Judge sign-in"</A>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// A judge's "Stop debate" button, shown only to a signed-in judge (`judge`, known to the page
/// that shows it) while the debate runs.
#[component]
pub fn StopButton(id: String, running: Signal<bool>, judge: bool) -> impl IntoView {
    let stop = Action::new(move |id: &String| stop_debate(id.clone()));
    let failed = move || {
        stop.value()
            .get()
            .and_then(|r| r.err())
            .map(|e| super::clean_error(&e.to_string()))
    };
    judge.then(|| {
        view! {
            <span class="judge-controls">
                <button class="danger" data-testid="stop-debate"
                    hidden=move || !running.get()
                    disabled=move || stop.pending().get()
                    on:click=move |_| { stop.dispatch(id.clone()); }>
                    "Stop debate"
                </button>
                {move || failed().map(|e| view! { <span class="form-error" role="alert">{e}</span> })}
            </span>
        }
    })
}
