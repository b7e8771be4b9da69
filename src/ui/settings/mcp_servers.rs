//! The Settings page's MCP servers: each configured server with its state (servers start on
//! first use), the reason it failed, its tools as the model sees them, and a button that
//! connects it (again).

use leptos::prelude::*;

use crate::api::mcp_servers::{list_mcp_servers, ReconnectMcpServer};
use crate::records::mcp::{McpServerStatus, McpServerView, McpToolView};
use crate::ui::{error_text, ErrorNote};

#[component]
pub fn McpServers() -> impl IntoView {
    let servers = Resource::new(|| (), |_| list_mcp_servers());
    view! {
        <h2 class="settings-section">"MCP servers"</h2>
        <Transition fallback=|| view! { <p class="muted">"Loading MCP servers…"</p> }>
            {move || Suspend::new(async move {
                match servers.await {
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                    Ok(list) if list.is_empty() => view! { <NoServers /> }.into_any(),
                    Ok(list) => view! {
                        <div class="profile-grid">
                            {list.into_iter().map(|server| view! { <ServerCard server /> }).collect_view()}
                        </div>
                    }
                    .into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn NoServers() -> impl IntoView {
    view! {
        <p class="muted">
            "None configured. Add a " <code>"[[mcp_servers]]"</code> " entry to " <code>"evalstudio.toml"</code>
            " and name it in an openai profile's " <code>"mcp_servers"</code> "; the README shows how."
        </p>
    }
}

#[component]
fn ServerCard(server: McpServerView) -> impl IntoView {
    let name = server.name.clone();
    let reconnect = ServerAction::<ReconnectMcpServer>::new();
    // The card shows the latest answer of its button, else what the page loaded with.
    let shown = Signal::derive(move || match reconnect.value().get() {
        Some(Ok(view)) => view,
        _ => server.clone(),
    });
    let pending = reconnect.pending();
    let failed = move || match reconnect.value().get() {
        Some(Err(err)) => Some(view! { <ErrorNote message=error_text(&err) /> }),
        _ => None,
    };
    let connect = move |_| {
        reconnect.dispatch(ReconnectMcpServer { name: name.clone() });
    };
    view! {
        <section class="card profile mcp-server">
            <h2 class="mono">{move || shown.get().name}</h2>
            <dl class="facts">
                <dt>"Transport"</dt>
                <dd class="mono">{move || shown.get().transport}</dd>
                // An admin's answer alone carries a stdio server's arguments.
                {move || {
                    shown.get().args.filter(|args| !args.is_empty()).map(|args| {
                        view! { <dt>"Arguments"</dt> <dd class="mono">{args}</dd> }
                    })
                }}
                <dt>"Status"</dt>
                <dd><StatusBadge status=Signal::derive(move || shown.get().status) /></dd>
            </dl>
            {move || view! { <ToolList tools=shown.get().tools /> }}
            {failed}
            <button class="button" on:click=connect disabled=pending>
                {move || match (pending.get(), shown.get().status) {
                    (true, _) => "Connecting…",
                    (false, McpServerStatus::Running) => "Reconnect",
                    (false, _) => "Connect",
                }}
            </button>
        </section>
    }
}

#[component]
fn StatusBadge(status: Signal<McpServerStatus>) -> impl IntoView {
    move || match status.get() {
        McpServerStatus::NotStarted => {
            view! { <span class="badge info">"not started: starts on first use"</span> }.into_any()
        }
        McpServerStatus::Starting => view! { <span class="badge running">"starting…"</span> }.into_any(),
        McpServerStatus::Running => view! { <span class="badge passed">"running"</span> }.into_any(),
        McpServerStatus::Failed { reason } => view! {
            <span class="badge error">"failed"</span>
            <p class="mcp-reason">{reason}</p>
        }
        .into_any(),
    }
}

#[component]
fn ToolList(tools: Vec<McpToolView>) -> impl IntoView {
    let count = tools.len();
    (count > 0).then(|| {
        view! {
            <details class="mcp-tools" open=count <= 8>
                <summary>{format!("{count} tools")}</summary>
                <ul>
                    {tools
                        .into_iter()
                        .map(|tool| {
                            let renamed = (tool.name != tool.remote_name)
                                .then(|| view! { <span class="muted">" (" {tool.remote_name.clone()} ")"</span> });
                            view! {
                                <li>
                                    <code>{tool.name.clone()}</code>
                                    {renamed}
                                    <span class="tool-description">{tool.description.clone()}</span>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            </details>
        }
    })
}
