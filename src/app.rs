//! The HTML shell and the router.

use crate::ui::{
    AccountMenu, CaseEditorPage, CaseResultPage, ChatPage, ComparePage, EvalCasePage, EvalSetPage,
    EvalSetsPage, FolderBadge, LoginPage, NotFound, RunPage, RunsPage, SettingsPage, TracesPage,
};
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes, A};
use leptos_router::{path, Lazy, LazyRoute, SsrMode};

pub fn shell(options: LeptosOptions) -> impl IntoView {
    // In the shell (drawn on the server only), so it can name the built version.
    let stylesheet = format!("/{}/evalstudio.css", options.site_pkg_dir);
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
                <link rel="stylesheet" href=stylesheet />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();

    view! {
        <Title text="Evalstudio" />
        <Router>
            <header class="topbar">
                <a class="brand" href="/">"Evalstudio"</a>
                <FolderBadge />
                <nav aria-label="Main">
                    <A href="/chat">"Chat"</A>
                    <A href="/">"Evalsets"</A>
                    <A href="/runs">"Runs"</A>
                    <A href="/traces">"Traces"</A>
                    <A href="/settings">"Settings"</A>
                </nav>
                <AccountMenu />
            </header>
            <main class="page">
                // Pages of one thing render whole before their first byte, so a missing one
                // answers 404, not a streamed 200.
                <Routes fallback=|| marked(view! { <NotFound /> })>
                    <Route path=path!("/") view=|| marked(view! { <EvalSetsPage /> }) />
                    <Route path=path!("/login") view=|| marked(view! { <LoginPage /> }) />
                    <Route path=path!("/chat") view={Lazy::<ChatRoute>::new()} />
                    <Route path=path!("/settings") view={Lazy::<SettingsRoute>::new()} />
                    <Route path=path!("/runs") view={Lazy::<RunsRoute>::new()} />
                    <Route path=path!("/traces") view={Lazy::<TracesRoute>::new()} />
                    <Route path=path!("/runs/:app/:result_id") view={Lazy::<RunRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/runs/:app/:result_id/compare/:other_id") view={Lazy::<CompareRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/evalsets/:app/:eval_set_id") view=|| marked(view! { <EvalSetPage /> }) ssr=SsrMode::Async />
                    <Route path=path!("/evalsets/:app/:eval_set_id/case") view={Lazy::<EvalCaseRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/evalsets/:app/:eval_set_id/edit") view={Lazy::<CaseEditorRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("/evalsets/:app/:eval_set_id/results/:result_id") view={Lazy::<CaseResultRoute>::new()} ssr=SsrMode::Async />
                </Routes>
            </main>
        </Router>
    }
}

/// The route's page, marking the document as hydrated once it is (end-to-end tests and the load
/// benchmark wait for the mark). An effect runs after the hydration that created it, and a page
/// of the chunk is created only once its chunk has loaded, so the mark never comes early.
fn marked(page: impl IntoView + 'static) -> AnyView {
    Effect::new(move |_| {
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "true");
        }
    });
    page.into_any()
}

/// The pages the browser loads on first visit, as one wasm chunk of their own that
/// `scripts/build-site` splits off: the shell carries only the evalset pages, where users
/// spend their time, so those load fast from afar. When a page of the chunk is the first one
/// loaded, the server names the chunk in the HTML so the browser fetches it beside the shell.
#[derive(Clone, Copy)]
enum ChunkPage {
    Chat,
    Settings,
    Runs,
    Traces,
    Run,
    Compare,
    EvalCase,
    CaseEditor,
    CaseResult,
}

#[leptos::lazy]
fn chunk_page_view(page: ChunkPage) -> AnyView {
    match page {
        ChunkPage::Chat => view! { <ChatPage /> }.into_any(),
        ChunkPage::Settings => view! { <SettingsPage /> }.into_any(),
        ChunkPage::Runs => view! { <RunsPage /> }.into_any(),
        ChunkPage::Traces => view! { <TracesPage /> }.into_any(),
        ChunkPage::Run => view! { <RunPage /> }.into_any(),
        ChunkPage::Compare => view! { <ComparePage /> }.into_any(),
        ChunkPage::EvalCase => view! { <EvalCasePage /> }.into_any(),
        ChunkPage::CaseEditor => view! { <CaseEditorPage /> }.into_any(),
        ChunkPage::CaseResult => view! { <CaseResultPage /> }.into_any(),
    }
}

/// A route to a page of the chunk.
macro_rules! chunk_routes {
    ($($route:ident => $page:ident),* $(,)?) => {$(
        struct $route;

        impl LazyRoute for $route {
            fn data() -> Self {
                $route
            }

            async fn view(_route: Self) -> AnyView {
                marked(chunk_page_view(ChunkPage::$page).await)
            }

            // The router loads the chunk before it hydrates the page (or shows it). The loader
            // exists in the wasm build only, as leptos_router's own `#[lazy_route]` has it.
            async fn preload() {
                #[cfg(target_arch = "wasm32")]
                __preload_chunk_page_view().await;
            }
        }
    )*};
}

chunk_routes! {
    ChatRoute => Chat,
    SettingsRoute => Settings,
    RunsRoute => Runs,
    TracesRoute => Traces,
    RunRoute => Run,
    CompareRoute => Compare,
    EvalCaseRoute => EvalCase,
    CaseEditorRoute => CaseEditor,
    CaseResultRoute => CaseResult,
}
