//! The ids in a route's path, checked before any handler sees them: each by the rule of what it
//! names (an app, an eval set, a chat's user or session, a case), anything else at least free
//! of control characters and of a sensible length. A bad one is a 400 naming the field, so no
//! handler stores it, lists under it or sends it on.

use crate::evalset::{validate_app_name, validate_eval_id, validate_eval_set_id, validate_session_key};
use axum::extract::{RawPathParams, Request};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// The longest id of a kind without a rule of its own (a run's, a token's name).
const MAX_OTHER_ID_CHARS: usize = 256;

/// Refuses the request when an id in its path breaks its rule.
pub async fn check_path_ids(params: RawPathParams, request: Request, next: Next) -> Response {
    for (name, value) in &params {
        if let Err(problem) = check(name, value) {
            let body = json!({"error": problem, "detail": {"field": name}});
            return (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
        }
    }
    next.run(request).await
}

/// Whether `value` may be the path's `name`.
fn check(name: &str, value: &str) -> Result<(), String> {
    match name {
        "app" => validate_app_name(value),
        "eval_set_id" => validate_eval_set_id(value),
        "user" => validate_session_key("user id", value),
        "session_id" => validate_session_key("session id", value),
        "eval_id" => validate_eval_id(value).map_err(|problem| format!("eval_id: {problem}")),
        // A folder's files (adk-web's): the file server decides.
        "path" => Ok(()),
        other => {
            if value.chars().any(char::is_control) {
                Err(format!("{other} contains control characters"))
            } else if value.chars().count() > MAX_OTHER_ID_CHARS {
                Err(format!("{other} is longer than {MAX_OTHER_ID_CHARS} characters"))
            } else {
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn each_id_is_held_to_the_rule_of_what_it_names() {
        assert!(check("app", "weather_agent").is_ok());
        assert!(check("app", "../x").unwrap_err().contains("app name"));
        assert!(check("user", "ada@example.com").is_ok());
        assert!(check("user", "../../run").unwrap_err().starts_with("user id"));
        assert!(check("session_id", "a b").unwrap_err().starts_with("session id"));
        assert!(
            check("eval_id", "what's the weather?").is_ok(),
            "imported ids keep their text"
        );
        assert!(check("eval_id", "a\0b").is_err());
        assert!(check("result_id", &"r".repeat(300))
            .unwrap_err()
            .contains("longer than 256"));
        assert!(check("result_id", "demo_set_1732800000.5").is_ok());
    }
}
