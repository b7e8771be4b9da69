//! Settings: the agent profiles and MCP servers the server knows (from its TOML config),
//! without secrets; on a server with sign-in, its users and API tokens.

mod mcp_servers;
mod tokens;

use super::{error_text, ErrorNote};
use crate::api::chat::{list_agent_profiles, ProfileView};
use leptos::prelude::*;

#[component]
pub fn SettingsPage() -> impl IntoView {
    let profiles = Resource::new(|| (), |_| list_agent_profiles());
    view! {
        <div class="page-header">
            <div>
                <h1>"Agent profiles"</h1>
                <p class="muted">
                    "Each profile is an ADK app: its name is the " <code>"{app}"</code>
                    " in REST paths. Profiles come from " <code>"evalstudio.toml"</code>
                    " (or " <code>"--config"</code> "); API keys stay in the server's environment."
                </p>
            </div>
        </div>
        <Transition fallback=|| view! { <p class="muted">"Loading profiles…"</p> }>
            {move || Suspend::new(async move {
                match profiles.await {
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                    Ok(list) => view! {
                        <div class="profile-grid">
                            {list.into_iter().map(|profile| view! { <ProfileCard profile /> }).collect_view()}
                        </div>
                    }
                    .into_any(),
                }
            })}
        </Transition>
        <mcp_servers::McpServers />
        <tokens::UsersAndTokens />
    }
}

#[component]
fn ProfileCard(profile: ProfileView) -> impl IntoView {
    let key = profile.api_key_env.clone().map(|var| {
        let (class, state) = if profile.api_key_set {
            ("ok", "set")
        } else {
            ("missing", "not set")
        };
        view! {
            <dt>"API key"</dt>
            <dd>
                <code>{format!("${var}")}</code> " " <span class=format!("key-state {class}")>{state}</span>
            </dd>
        }
    });
    let tools = match (&profile.adk_app, profile.tools.is_empty()) {
        (Some(_), _) => "the ADK agent's own tools".to_string(),
        (None, true) => "none built in".to_string(),
        (None, false) => profile.tools.join(", "),
    };
    let model_options = (profile.kind == "openai").then(|| {
        let streaming = if profile.stream { "streamed" } else { "whole (stream = false)" };
        view! {
            <dt>"Answers"</dt>
            <dd>{streaming}</dd>
            {profile
                .tool_choice
                .clone()
                .map(|choice| view! { <dt>"Tool choice"</dt> <dd class="mono">{choice} " (first reply of a turn)"</dd> })}
            {(!profile.detected.is_empty())
                .then(|| view! { <dt>"Detected"</dt> <dd>{profile.detected.join("; ")}</dd> })}
        }
    });
    let mcp = (!profile.mcp_servers.is_empty()).then(|| {
        view! {
            <dt>"MCP servers"</dt>
            <dd class="mono">{profile.mcp_servers.join(", ")}</dd>
        }
    });
    view! {
        <section class="card profile">
            <h2 class="mono">{profile.name.clone()}</h2>
            <dl class="facts">
                <dt>"Kind"</dt>
                <dd>{profile.kind.clone()}</dd>
                {profile.model.clone().map(|model| view! { <dt>"Model"</dt> <dd class="mono">{model}</dd> })}
                {profile.base_url.clone().map(|url| view! { <dt>"Base URL"</dt> <dd class="mono">{url}</dd> })}
                {profile.adk_app.clone().map(|app| view! { <dt>"ADK app"</dt> <dd class="mono">{app}</dd> })}
                {key}
                <dt>"Tools"</dt>
                <dd>{tools}</dd>
                {mcp}
                {model_options}
                {profile
                    .system_prompt
                    .clone()
                    .map(|prompt| view! { <dt>"System prompt"</dt> <dd class="message">{prompt}</dd> })}
            </dl>
            <a class="button" href=format!("/chat?app={}", profile.name)>"Chat with " {profile.name.clone()}</a>
        </section>
    }
}
