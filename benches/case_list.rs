//! The case list's server time (numbers, not pass/fail): a page of a 10,000-case evalset against
//! a page of a 100-case one, listed in file order, sorted, deep in the list, and filtered, through
//! the service the browser and the REST API call, on a real SQLite file (or a PostgreSQL
//! database). The ratio should stay near 1 for the indexed orders; a text filter reads every
//! case of the set.
//!
//! Run with `make bench` or `cargo bench --features ssr --bench case_list`; on PostgreSQL,
//! `scripts/with-postgres cargo bench --features ssr --bench case_list`.

#[allow(dead_code)]
#[path = "../src/testing/database.rs"]
mod database;

use evalstudio::records::cases::{CaseListQuery, CaseSort};
use evalstudio::service::cases::list_cases;
use evalstudio::service::eval_sets::{import_file, ImportMode};
use evalstudio::store::Store;
use serde_json::json;
use std::time::{Duration, Instant};

const ROUNDS: u32 = 200;

fn evalset(id: &str, cases: usize) -> String {
    let tools = [
        "get_weather",
        "convert_currency",
        "order_status",
        "search_help",
        "calculate",
    ];
    let cases: Vec<_> = (0..cases)
        .map(|i| {
            json!({"eval_id": format!("case_{i:05}"), "conversation": [{
                "invocation_id": format!("i{i}"),
                "user_content": {"role": "user", "parts": [{"text": format!("question number {i} about the weather")}]},
                "final_response": {"role": "model", "parts": [{"text": "An answer."}]},
                "intermediate_data": {"tool_uses": [{"name": tools[i % tools.len()], "args": {"n": i}}]}
            }]})
        })
        .collect();
    json!({"eval_set_id": id, "eval_cases": cases}).to_string()
}

/// Mean server time of one call, over `ROUNDS` calls.
async fn time_page(store: &Store, set: &str, query: &CaseListQuery, page: i64) -> Duration {
    let started = Instant::now();
    for _ in 0..ROUNDS {
        let listed = list_cases(store, "bench", set, query, page).await.unwrap();
        assert!(!listed.cases.is_empty() || !query.text.is_empty());
    }
    started.elapsed() / ROUNDS
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let location = database::scratch_database(dir.path()).await;
    let store = Store::open(&location).await.unwrap();
    println!(
        "on {}",
        if location.is_postgres() {
            "PostgreSQL"
        } else {
            "SQLite"
        }
    );
    for (id, cases) in [("small", 100), ("large", 10_000)] {
        import_file(
            &store,
            "bench",
            "x.json",
            None,
            evalset(id, cases),
            ImportMode::New,
        )
        .await
        .unwrap();
    }
    // As a server's database after autovacuum (see run_views.rs).
    if let evalstudio::store::Location::Postgres(url) = &location {
        let pool = sqlx::PgPool::connect(url).await.unwrap();
        sqlx::query("VACUUM ANALYZE").execute(&pool).await.unwrap();
    }
    let query = |text: &str, sort: CaseSort| CaseListQuery {
        text: text.into(),
        sort,
        descending: false,
        failed_last_run: false,
    };
    let scenarios = [
        ("first page, file order", query("", CaseSort::File), 1, 1),
        ("last page, file order", query("", CaseSort::File), 2, 200),
        (
            "first page by eval id, descending",
            CaseListQuery {
                descending: true,
                ..query("", CaseSort::EvalId)
            },
            1,
            1,
        ),
        ("first page by tool calls", query("", CaseSort::ToolCalls), 1, 1),
        (
            "filter by tool name",
            query("convert_currency", CaseSort::File),
            1,
            1,
        ),
        ("filter by eval id", query("case_0004", CaseSort::File), 1, 1),
    ];
    println!("case list, server time per page of 50 ({ROUNDS} calls each): 100 cases vs 10,000 cases");
    for (name, query, small_page, large_page) in scenarios {
        let small = time_page(&store, "small", &query, small_page).await;
        let large = time_page(&store, "large", &query, large_page).await;
        println!(
            "  {name:<36} {:>8.3} ms  {:>8.3} ms  ratio {:.2}",
            small.as_secs_f64() * 1e3,
            large.as_secs_f64() * 1e3,
            large.as_secs_f64() / small.as_secs_f64()
        );
    }
}
