//! Placeholder, replaced below.
use leptos::prelude::*;
pub fn shell(_options: LeptosOptions) -> impl IntoView { view! { <p>"x"</p> } }
#[component]
pub fn App() -> impl IntoView { view! { <p>"x"</p> } }
