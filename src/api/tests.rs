//! How a use case's error reaches the browser.

use super::server_error;
use crate::service::runs::error::EvalRunError;
use crate::store::StoreError;

#[test]
fn a_mistake_keeps_its_sentence_and_a_fault_only_says_it_went_wrong() {
    let mistake = server_error(EvalRunError::NotFound("eval result `x` not found".into()));
    assert!(
        mistake.to_string().contains("eval result `x` not found"),
        "{mistake}"
    );

    let fault = EvalRunError::from(StoreError::Database(sqlx::Error::Protocol(
        "no such table: eval_runs".into(),
    )));
    let shown = server_error(fault).to_string();
    assert!(shown.contains("something went wrong (id "), "{shown}");
    assert!(!shown.contains("eval_runs"), "{shown}");
}
