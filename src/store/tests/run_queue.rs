//! The run queue: batches claimed once each, writes stored only by the worker holding their
//! batch, the last batch finishing the run, a dead worker's batch taken up once its lease ends,
//! and stop and resume from any process. Two store handles are two workers (each its boot id).

use super::{case_run, new_run, temp_store};
use crate::records::runs::{EvalRunCase, RunStatus};
use crate::store::{BatchClaim, BatchWrite, ClaimedBatch, EvalRunRecord, Store, Written};

/// A run of `cases` one-repetition cases, queued for workers.
async fn queued_run(store: &Store, cases: usize) -> EvalRunRecord {
    new_run(store, "many", cases).await
}

async fn claim(store: &Store, run: &EvalRunRecord) -> ClaimedBatch {
    match store.claim_run_batch(run.row).await.unwrap() {
        BatchClaim::Claimed(batch) => batch,
        other => panic!("expected a batch, got {other:?}"),
    }
}

/// Stores the case runs of `cases` as held by `store`, completing `batch` when `completes`.
async fn store_cases(
    store: &Store,
    run: &EvalRunRecord,
    batch: &ClaimedBatch,
    cases: impl Iterator<Item = usize>,
    completes: bool,
) -> Written {
    let rows: Vec<EvalRunCase> = cases.map(|case| case_run(case as i64, 1)).collect();
    let write = BatchWrite {
        held: vec![batch.id],
        completed: if completes { vec![batch.id] } else { vec![] },
        at: 2.0,
    };
    store
        .save_eval_run_cases(run.row, &rows, &[], &write)
        .await
        .unwrap()
}

async fn status(store: &Store, run: &EvalRunRecord) -> RunStatus {
    store
        .eval_run("demo", &run.summary.result_id)
        .await
        .unwrap()
        .summary
        .status
}

#[tokio::test]
async fn workers_claim_each_batch_once_and_the_write_of_the_last_finishes_the_run() {
    let (_dir, first) = temp_store().await;
    let second = Store::open(first.location()).await.unwrap();
    let run = queued_run(&first, 40).await;

    let a = claim(&first, &run).await;
    let b = claim(&second, &run).await;
    let c = claim(&first, &run).await;
    assert_eq!(
        (a.cases.clone(), b.cases.clone(), c.cases.clone()),
        (0..16, 16..32, 32..40)
    );
    assert_eq!(second.claim_run_batch(run.row).await.unwrap(), BatchClaim::Busy);

    // Not its batch: nothing of the write is stored.
    assert_eq!(
        store_cases(&second, &run, &a, 0..2, false).await,
        Written::NotHeld
    );
    assert_eq!(first.eval_run_cases(run.row, false).await.unwrap().len(), 0);

    assert_eq!(
        store_cases(&first, &run, &a, 0..16, true).await,
        Written::Stored { finished: false }
    );
    assert_eq!(
        store_cases(&first, &run, &c, 32..40, true).await,
        Written::Stored { finished: false }
    );
    assert_eq!(status(&first, &run).await, RunStatus::Running);
    assert_eq!(
        store_cases(&second, &run, &b, 16..32, true).await,
        Written::Stored { finished: true }
    );
    let finished = first
        .eval_run("demo", &run.summary.result_id)
        .await
        .unwrap()
        .summary;
    assert_eq!(
        (finished.status, finished.done, finished.finished_at),
        (RunStatus::Finished, 40, Some(2.0))
    );
    assert_eq!(
        first.claim_run_batch(run.row).await.unwrap(),
        BatchClaim::Over(RunStatus::Finished)
    );
}

#[tokio::test]
async fn a_dead_workers_batch_is_taken_up_once_its_lease_ends_and_its_writes_are_refused() {
    let (_dir, dead) = temp_store().await;
    let alive = Store::open(dead.location()).await.unwrap();
    let run = queued_run(&dead, 10).await;
    let batch = claim(&dead, &run).await;
    assert_eq!(
        store_cases(&dead, &run, &batch, 0..3, false).await,
        Written::Stored { finished: false }
    );
    assert_eq!(alive.claim_run_batch(run.row).await.unwrap(), BatchClaim::Busy);
    assert!(alive.runs_with_free_batches(10).await.unwrap().is_empty());

    dead.expire_run_batch_leases(run.row).await.unwrap();
    assert_eq!(
        alive.runs_with_free_batches(10).await.unwrap(),
        [("demo".to_string(), run.summary.result_id.clone())]
    );
    let taken = claim(&alive, &run).await;
    assert_eq!((taken.id, taken.cases.clone()), (batch.id, 0..10));
    assert_eq!(
        taken.stored,
        [(0, 0), (0, 1), (0, 2)],
        "the case runs stored are skipped"
    );
    // The dead worker, had it only hung, can store nothing of it now.
    assert_eq!(
        store_cases(&dead, &run, &batch, 3..10, true).await,
        Written::NotHeld
    );
    assert_eq!(
        store_cases(&alive, &run, &taken, 3..10, true).await,
        Written::Stored { finished: true }
    );
    let stored = alive.eval_run_cases(run.row, false).await.unwrap();
    assert_eq!(stored.len(), 10);
}

#[tokio::test]
async fn a_run_stopped_anywhere_refuses_its_workers_writes_and_resumes_where_it_stopped() {
    let (_dir, worker) = temp_store().await;
    let elsewhere = Store::open(worker.location()).await.unwrap();
    let run = queued_run(&worker, 20).await;
    let batch = claim(&worker, &run).await;
    assert_eq!(
        store_cases(&worker, &run, &batch, 0..4, false).await,
        Written::Stored { finished: false }
    );

    assert!(elsewhere
        .stop_eval_run(run.row, RunStatus::Cancelled, 3.0)
        .await
        .unwrap());
    assert!(!elsewhere
        .stop_eval_run(run.row, RunStatus::Cancelled, 3.0)
        .await
        .unwrap());
    assert_eq!(
        worker.renew_run_batches(run.row).await.unwrap(),
        RunStatus::Cancelled
    );
    assert_eq!(
        store_cases(&worker, &run, &batch, 4..8, false).await,
        Written::NotHeld
    );
    assert_eq!(
        worker.claim_run_batch(run.row).await.unwrap(),
        BatchClaim::Over(RunStatus::Cancelled)
    );
    // Another worker's failure does not interrupt a run this one no longer holds.
    assert!(!worker.interrupt_held_eval_run(run.row, 4.0).await.unwrap());

    assert!(elsewhere.resume_eval_run(run.row).await.unwrap());
    assert!(
        !elsewhere.resume_eval_run(run.row).await.unwrap(),
        "already running"
    );
    assert_eq!(status(&worker, &run).await, RunStatus::Running);
    let again = claim(&elsewhere, &run).await;
    assert_eq!((again.cases.clone(), again.stored.len()), (0..16, 4));

    // A worker that fails while it holds a batch interrupts the run.
    assert!(elsewhere.interrupt_held_eval_run(run.row, 5.0).await.unwrap());
    assert_eq!(status(&worker, &run).await, RunStatus::Interrupted);
}

#[tokio::test]
async fn a_worker_shutting_down_lets_go_of_every_batch_it_holds() {
    let (_dir, stopping) = temp_store().await;
    let other = Store::open(stopping.location()).await.unwrap();
    let run = queued_run(&stopping, 40).await;
    claim(&stopping, &run).await;
    claim(&stopping, &run).await;
    claim(&other, &run).await;
    assert_eq!(other.claim_run_batch(run.row).await.unwrap(), BatchClaim::Busy);
    assert_eq!(stopping.release_all_run_batches().await.unwrap(), 2);
    assert_eq!(claim(&other, &run).await.cases, 0..16);
    assert_eq!(claim(&other, &run).await.cases, 16..32);
}
