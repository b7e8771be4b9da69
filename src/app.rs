//! The HTML shell and the router.

use crate::ui::{
    CaseEditorPage, CaseResultPage, ChatPage, ComparePage, EvalCasePage, EvalSetPage, EvalSetsPage,
    FolderBadge, NotFound, RunPage, RunsPage, SettingsPage,
};
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes, A};
use leptos_router::{path, SsrMode};

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
    // Effects run only in the browser: this marks the page as hydrated (end-to-end tests wait for it).
    Effect::new(move |_| {
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "true");
        }
    });

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
                    <A href="/settings">"Settings"</A>
                </nav>
            </header>
            <main class="page">
                // Pages of one thing render whole before their first byte, so a missing one
                // answers 404, not a streamed 200.
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=EvalSetsPage />
                    <Route path=path!("/chat") view=ChatPage />
                    <Route path=path!("/settings") view=SettingsPage />
                    <Route path=path!("/runs") view=RunsPage />
                    <Route path=path!("/runs/:app/:result_id") view=RunPage ssr=SsrMode::Async />
                    <Route path=path!("/runs/:app/:result_id/compare/:other_id") view=ComparePage ssr=SsrMode::Async />
                    <Route path=path!("/evalsets/:app/:eval_set_id") view=EvalSetPage ssr=SsrMode::Async />
                    <Route path=path!("/evalsets/:app/:eval_set_id/case") view=EvalCasePage ssr=SsrMode::Async />
                    <Route path=path!("/evalsets/:app/:eval_set_id/edit") view=CaseEditorPage ssr=SsrMode::Async />
                    <Route path=path!("/evalsets/:app/:eval_set_id/results/:result_id") view=CaseResultPage ssr=SsrMode::Async />
                </Routes>
            </main>
        </Router>
    }
}
