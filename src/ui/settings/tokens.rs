//! The Settings page's users and API tokens (admins only; others see why not). A new token's
//! secret is shown once, right after it is made; the list shows only names and times.

use leptos::prelude::*;

use crate::access::{Role, TokenSummary, UserSummary};
use crate::api::auth::{list_tokens, list_users, who_am_i, CreateToken, RevokeToken};
use crate::ui::{error_text, short_time, ErrorNote};

#[component]
pub fn UsersAndTokens() -> impl IntoView {
    let account = Resource::new(|| (), |_| who_am_i());
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                let account = account.await.ok()?;
                let user = account.user.filter(|_| account.auth_on)?;
                Some(if user.role == Role::Admin {
                    view! { <Admin /> }.into_any()
                } else {
                    view! {
                        <h2 class="settings-section">"Users and tokens"</h2>
                        <p class="muted">"An admin manages users and API tokens; your role is " {user.role.as_str()} "."</p>
                    }
                    .into_any()
                })
            })}
        </Transition>
    }
}

#[component]
fn Admin() -> impl IntoView {
    let create = ServerAction::<CreateToken>::new();
    let revoke = ServerAction::<RevokeToken>::new();
    let users = Resource::new(|| (), |_| list_users());
    let tokens = Resource::new(
        move || (create.version().get(), revoke.version().get()),
        |_| list_tokens(),
    );
    let made = move || match create.value().get() {
        Some(Ok(secret)) => Some(
            view! {
                <div class="note note-passed token-made" role="status">
                    <p>"Copy the token now: it is not shown again."</p>
                    <code class="token-secret">{secret}</code>
                </div>
            }
            .into_any(),
        ),
        Some(Err(err)) => Some(view! { <ErrorNote message=error_text(&err) /> }.into_any()),
        None => None,
    };
    view! {
        <h2 class="settings-section">"Users"</h2>
        <Transition fallback=|| view! { <p class="muted">"Loading users…"</p> }>
            {move || Suspend::new(async move {
                match users.await {
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                    Ok(list) => view! { <UserTable list=list.clone() /> <TokenForm users=list create /> }.into_any(),
                }
            })}
        </Transition>
        {made}
        <Transition fallback=|| view! { <p class="muted">"Loading tokens…"</p> }>
            {move || Suspend::new(async move {
                match tokens.await {
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                    Ok(list) if list.is_empty() => view! { <p class="muted">"No tokens yet."</p> }.into_any(),
                    Ok(list) => view! { <TokenTable list revoke /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn UserTable(list: Vec<UserSummary>) -> impl IntoView {
    view! {
        <table class="data-table users">
            <thead><tr><th scope="col">"Name"</th><th scope="col">"Role"</th><th scope="col">"Added"</th></tr></thead>
            <tbody>
                {list.into_iter().map(|user| view! {
                    <tr><td class="mono">{user.name}</td><td>{user.role.as_str()}</td><td>{short_time(&user.created_at)}</td></tr>
                }).collect_view()}
            </tbody>
        </table>
        <p class="muted">"Add users on the server: " <code>"evalstudio user add NAME --role viewer|editor|admin"</code> "."</p>
    }
}

/// Names a new token and picks whose it is.
#[component]
fn TokenForm(users: Vec<UserSummary>, create: ServerAction<CreateToken>) -> impl IntoView {
    view! {
        <h2 class="settings-section">"API tokens"</h2>
        <p class="muted">"For the CLI and scripts: " <code>"Authorization: Bearer <token>"</code> ", or " <code>"EVALSTUDIO_TOKEN"</code> " for push and pull."</p>
        <ActionForm action=create attr:class="token-form">
            <label>"Name" <input type="text" name="name" required placeholder="ci-nightly" /></label>
            <label>
                "For user"
                <select name="user" required>
                    {users.into_iter().map(|user| {
                        let label = format!("{} ({})", user.name, user.role.as_str());
                        view! { <option value=user.name>{label}</option> }
                    }).collect_view()}
                </select>
            </label>
            <button class="button primary" type="submit" disabled=create.pending()>"Create token"</button>
        </ActionForm>
    }
}

#[component]
fn TokenTable(list: Vec<TokenSummary>, revoke: ServerAction<RevokeToken>) -> impl IntoView {
    view! {
        <table class="data-table tokens">
            <thead>
                <tr>
                    <th scope="col">"Name"</th><th scope="col">"User"</th><th scope="col">"Created"</th>
                    <th scope="col">"Last used"</th><th scope="col"></th>
                </tr>
            </thead>
            <tbody>
                {list.into_iter().map(|token| {
                    let name = token.name.clone();
                    view! {
                        <tr>
                            <td class="mono">{token.name}</td>
                            <td>{token.user}</td>
                            <td>{short_time(&token.created_at)}</td>
                            <td>{token.last_used_at.as_deref().map(short_time).unwrap_or_else(|| "never".into())}</td>
                            <td class="actions">
                                <button class="button small danger" on:click=move |_| {
                                    revoke.dispatch(RevokeToken { name: name.clone() });
                                }>"Revoke"</button>
                            </td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}
