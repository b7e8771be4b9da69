//! The role each server function needs, and the check in front of them and of the pages. A
//! server function missing here is refused (and the route-walk test names it). An editor's or
//! admin's server function checks again, first thing in its body ([`require`]).

use super::{allows, check, to_login, Access, Caller, Refusal};
use crate::access::Role::{self, Admin, Editor, Viewer};
use crate::api::{auth, case_results, cases, chat, evalsets, evaluate, folder, mcp_servers, runs, traces};
use axum::extract::Request;
use axum::http::{header, request::Parts, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use leptos::prelude::{use_context, ServerFnError};
use leptos::server_fn::ServerFn;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Pages anyone may open: where one signs in.
pub const PUBLIC_PAGES: &[&str] = &["/login"];

/// Each server function's path and what it needs.
pub fn server_fn_access() -> &'static HashMap<&'static str, Access> {
    static TABLE: OnceLock<HashMap<&'static str, Access>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let public = Access::Public;
        let (viewer, editor, admin) = (Access::Role(Viewer), Access::Role(Editor), Access::Role(Admin));
        HashMap::from([
            (auth::LogIn::PATH, public),
            (auth::LogOut::PATH, public),
            (auth::WhoAmI::PATH, public),
            (auth::ListTokens::PATH, admin),
            (auth::CreateToken::PATH, admin),
            (auth::RevokeToken::PATH, admin),
            (auth::ListUsers::PATH, admin),
            (case_results::CaseResult::PATH, viewer),
            (case_results::AcceptActual::PATH, editor),
            (case_results::RerunCase::PATH, editor),
            (case_results::CaseAcrossRuns::PATH, viewer),
            (cases::DuplicateCase::PATH, editor),
            (cases::NewScenarioCase::PATH, editor),
            (cases::DeleteCase::PATH, editor),
            (cases::DeleteCases::PATH, editor),
            (cases::UndoDeleteCases::PATH, editor),
            (cases::CaseHistory::PATH, viewer),
            (cases::RestoreCaseVersion::PATH, editor),
            (cases::SaveCase::PATH, editor),
            (cases::ToolSuggestions::PATH, viewer),
            (cases::CaseVersion::PATH, viewer),
            (chat::ListChatSessions::PATH, viewer),
            (chat::NewChatSession::PATH, editor),
            (chat::GetChatSession::PATH, viewer),
            (chat::StreamChatMessage::PATH, editor),
            (chat::FollowChatTurn::PATH, viewer),
            (chat::StopChatTurn::PATH, editor),
            (chat::RenameChatSession::PATH, editor),
            (chat::DeleteChatSession::PATH, editor),
            (chat::AddChatSessionToEvalSet::PATH, editor),
            (chat::ListAgentProfiles::PATH, viewer),
            (evalsets::ListApps::PATH, viewer),
            (evalsets::GetEvalSet::PATH, viewer),
            (evalsets::ListEvalSets::PATH, viewer),
            (evalsets::CreateEvalSet::PATH, editor),
            (evalsets::DeleteEvalSet::PATH, editor),
            (evalsets::ImportEvalSet::PATH, editor),
            (evalsets::ListCases::PATH, viewer),
            (evalsets::GetCase::PATH, viewer),
            (evaluate::EvalPanelOptions::PATH, viewer),
            (evaluate::EvalSetToolMode::PATH, viewer),
            (evaluate::StartEval::PATH, editor),
            (evaluate::ListEvalRuns::PATH, viewer),
            (evaluate::GetEvalRun::PATH, viewer),
            (evaluate::CancelEval::PATH, editor),
            (evaluate::ResumeEval::PATH, editor),
            (folder::OpenFolder::PATH, viewer),
            (folder::EvalSetFileStatus::PATH, viewer),
            (mcp_servers::ListMcpServers::PATH, viewer),
            (mcp_servers::ReconnectMcpServer::PATH, editor),
            (traces::ListRecordedSessions::PATH, viewer),
            (traces::GetRecordedSession::PATH, viewer),
            (traces::AddRecordedSession::PATH, editor),
            (traces::AddRecordedSessions::PATH, editor),
            (traces::ScoreRecordedSessions::PATH, editor),
            (runs::ListRuns::PATH, viewer),
            (runs::RunDetails::PATH, viewer),
            (runs::SetRunLabel::PATH, editor),
            (runs::CompareRuns::PATH, viewer),
        ])
    })
}

/// In front of Leptos's routes: a server function needs its declared role (none declared: no
/// one may call it); a page needs a viewer, and sends whoever has not signed in to log in.
pub async fn guard_pages_and_server_fns(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let checked = match server_fn_access().get(path) {
        Some(access) => check(*access, &request),
        None if path.starts_with("/api/") => Err(Refusal::Undeclared),
        None => return guard_page(request, next).await,
    };
    match checked {
        Ok(()) => next.run(request).await,
        Err(refusal) => refusal.into_response(),
    }
}

/// A page (or whatever else the router falls back to: a mistyped path renders the app too):
/// the login page is anyone's, the rest a viewer's; the signed-out are sent to log in.
pub async fn guard_page(request: Request, next: Next) -> Response {
    match refuse_page(&request) {
        Some(refused) => refused,
        None => next.run(request).await,
    }
}

/// Why a page may not be shown to this caller (`None`: it may).
pub fn refuse_page(request: &Request) -> Option<Response> {
    if PUBLIC_PAGES.contains(&request.uri().path()) {
        return None;
    }
    match check(Access::Role(Viewer), request) {
        Ok(()) => None,
        Err(Refusal::SignIn) => Some(to_login(request)),
        Err(refusal) => Some(refusal.into_response()),
    }
}

/// The first statement of every editor's and admin's server function: the caller the gate
/// identified (a request extension, which Leptos hands the body with the request's parts) must
/// have `needed`, as the table says, so a function the gate somehow let through still refuses.
/// No parts or no caller is no one signed in; with auth off everything is allowed, as in the
/// gate. A refusal reads and answers (401 or 403) as the gate's.
pub fn require(needed: Role) -> Result<(), ServerFnError> {
    let parts = use_context::<Parts>();
    let caller = parts.as_ref().and_then(|parts| parts.extensions.get::<Caller>());
    allows(Access::Role(needed), caller).map_err(|refusal| {
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            response.set_status(refusal.status());
            if refusal == Refusal::SignIn {
                response.insert_header(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
        }
        ServerFnError::new(refusal.message())
    })
}
