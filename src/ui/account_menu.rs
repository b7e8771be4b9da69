//! The top bar's account: who is signed in, their role, and a way out. Nothing where auth is
//! off (a loopback server has one local user).

use crate::api::auth::{who_am_i, LogOut};
use leptos::prelude::*;
use leptos_router::hooks::use_location;

#[component]
pub fn AccountMenu() -> impl IntoView {
    // Asked again on each navigation: logging in or out moves the browser within the app.
    let path = use_location().pathname;
    let account = Resource::new(move || path.get(), |_| who_am_i());
    let log_out = ServerAction::<LogOut>::new();
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                let user = account.await.ok().and_then(|account| account.user)?;
                Some(view! {
                    <div class="account">
                        <span class="account-name" title="Signed in">{user.name}</span>
                        <span class="role-badge">{user.role.as_str()}</span>
                        <ActionForm action=log_out>
                            <button class="button small" type="submit">"Log out"</button>
                        </ActionForm>
                    </div>
                })
            })}
        </Transition>
    }
}
