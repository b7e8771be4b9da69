//! `/login`: name and password, a session cookie on success, back to the page that sent the
//! browser here. A plain form, so it works before the page's script has loaded.

use crate::api::auth::{who_am_i, LogIn};
use crate::ui::{error_text, ErrorNote};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

#[component]
pub fn LoginPage() -> impl IntoView {
    let log_in = ServerAction::<LogIn>::new();
    let next = move || {
        use_query_map()
            .read()
            .get("next")
            .unwrap_or_else(|| "/".to_string())
    };
    let account = Resource::new(|| (), |_| who_am_i());
    let failed = move || match log_in.value().get() {
        Some(Err(err)) => Some(view! { <ErrorNote message=error_text(&err) /> }),
        _ => None,
    };
    view! {
        <section class="login card">
            <h1>"Sign in"</h1>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match account.await {
                        Ok(account) if !account.auth_on => Some(view! {
                            <p class="note">"This server has no sign-in: it listens on this machine only. "
                                <a href="/">"Go to the evalsets"</a></p>
                        }.into_any()),
                        Ok(account) => account.user.map(|user| view! {
                            <p class="note">"You are signed in as " <strong>{user.name}</strong> ". "
                                <a href="/">"Go to the evalsets"</a></p>
                        }.into_any()),
                        Err(_) => None,
                    }
                })}
            </Transition>
            <ActionForm action=log_in attr:class="login-form">
                <input type="hidden" name="next" prop:value=next />
                <label>
                    "User name"
                    <input type="text" name="name" autocomplete="username" required autofocus />
                </label>
                <label>
                    "Password"
                    <input type="password" name="password" autocomplete="current-password" required />
                </label>
                {failed}
                <button class="button primary" type="submit" disabled=log_in.pending()>
                    {move || if log_in.pending().get() { "Signing in…" } else { "Sign in" }}
                </button>
            </ActionForm>
            <p class="muted">"No account? An admin adds one with " <code>"evalstudio user add NAME --role editor"</code> "."</p>
        </section>
    }
}
