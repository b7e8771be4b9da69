//! [`read_evalset_cases_fast`](crate::read_evalset_cases_fast) on two threads, for a set read
//! whole before anything else can start (the expected set of `score`), and kept as text to be
//! parsed later: this thread cuts the cases from the input and hands them, a batch at a time,
//! to a helper thread that skims them (see [`super::skim`]); when the helper is behind, this
//! thread skims the batch itself, so both stay busy whatever each step costs. Only each case's
//! text and what is kept of it cross between the threads.

use super::import::{members_read_alone, read_again, validate_head};
use super::skim::{skim_case, CaseHead};
use super::split::{split_cases, Unexpected};
use crate::import::{read_evalset_cases, validate_case, FormatError};
use crate::model::case::EvalCase;
use crate::model::eval_set::EvalSet;
use std::collections::VecDeque;
use std::io::Read;
use std::sync::mpsc::{self, TrySendError};

/// Cases handed to the helper at once (one wake-up each)…
const BATCH: usize = 16;
/// …and batches queued for it (beside the one it skims) before this thread skims one itself.
const QUEUED: usize = 8;

/// Turns a case into what is kept of it, on the thread that read it.
pub type CheckCase<'a, T> = dyn Fn(CaseRead) -> Result<T, String> + Sync + 'a;

/// A case as the reader hands it to be checked.
#[derive(Debug)]
pub enum CaseRead {
    /// Skimmed (so it parses): what a compact set keeps of it, and its JSON as read.
    Skimmed { head: CaseHead, text: String },
    /// Parsed by the exact reader (after the fast one stopped).
    Parsed(Box<EvalCase>),
}

impl CaseRead {
    /// As [`validate_case`] checks a case.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            CaseRead::Skimmed { head, .. } => validate_head(head),
            CaseRead::Parsed(case) => validate_case(case),
        }
    }
}

/// What became of one case.
enum Skimmed<T> {
    Kept(T),
    /// Not UTF-8 or not a case: the exact reader says why.
    Unreadable,
    /// `check` refused it, for this reason.
    Refused(String),
}

/// As [`read_evalset_cases_fast`](crate::read_evalset_cases_fast), with each case skimmed and
/// given to `check` on one of two threads; `keep` takes what `check` made, in the list's order,
/// on this thread. Errors read as the exact reader's, as there.
pub fn read_evalset_cases_parallel<R: Read, T: Send>(
    reader: R,
    reopen: impl FnOnce() -> std::io::Result<R>,
    check: &CheckCase<'_, T>,
    keep: &mut dyn FnMut(usize, T) -> Result<(), String>,
) -> Result<EvalSet, FormatError> {
    let mut order = InOrder {
        keep,
        kept: 0,
        refused: None,
        stopped: false,
        waiting: VecDeque::new(),
    };
    let header = std::thread::scope(|scope| {
        let (to_helper, helper_in) = mpsc::sync_channel::<Batch>(QUEUED);
        let (helper_out, from_helper) = mpsc::channel::<(usize, Skimmed<T>)>();
        scope.spawn(move || {
            for batch in helper_in {
                for (index, bytes) in batch.numbered() {
                    if helper_out.send((index, skim(bytes, check))).is_err() {
                        return;
                    }
                }
            }
        });
        let mut batch = Batch::starting_at(0);
        let split = split_cases(reader, &mut members_read_alone, &mut |bytes| {
            batch.cases.push(bytes.to_vec());
            if batch.cases.len() == BATCH {
                let next = Batch::starting_at(batch.end());
                let full = std::mem::replace(&mut batch, next);
                match to_helper.try_send(full) {
                    Ok(()) => {}
                    Err(TrySendError::Full(full)) => order.skim_here(full, check)?,
                    Err(TrySendError::Disconnected(_)) => return Err(Unexpected),
                }
            }
            while let Ok((index, skimmed)) = from_helper.try_recv() {
                order.arrive(index, skimmed)?;
            }
            Ok(())
        });
        drop(to_helper);
        // Even when the cut stopped short, what was cut before is kept as read: the exact
        // reader then starts after it.
        let cut = batch.end();
        if order.skim_here(batch, check).is_ok() {
            while order.kept < cut && !order.stopped {
                let Ok((index, skimmed)) = from_helper.recv() else {
                    break;
                };
                if order.arrive(index, skimmed).is_err() {
                    break;
                }
            }
        }
        let header = split?;
        if order.kept == cut {
            Ok(header)
        } else {
            Err(Unexpected)
        }
    });
    if let Ok(Ok(header)) = header.map(|json| read_evalset_cases(&json[..], &mut |_, _| Ok(()))) {
        return Ok(header);
    }
    let InOrder {
        keep,
        kept,
        refused,
        waiting,
        ..
    } = order;
    drop(waiting);
    read_again(reopen, kept, refused, &mut |index, case| {
        keep(index, check(CaseRead::Parsed(Box::new(case)))?)
    })
}

/// Cases cut from the input, in order, the first of them case `first`.
struct Batch {
    first: usize,
    cases: Vec<Vec<u8>>,
}

impl Batch {
    fn starting_at(first: usize) -> Self {
        Batch {
            first,
            cases: Vec::with_capacity(BATCH),
        }
    }

    /// The index of the case after this batch's last.
    fn end(&self) -> usize {
        self.first + self.cases.len()
    }

    fn numbered(self) -> impl Iterator<Item = (usize, Vec<u8>)> {
        (self.first..).zip(self.cases)
    }
}

/// Hands what was skimmed to `keep` in the list's order, whichever thread finished first.
struct InOrder<'k, T> {
    keep: &'k mut dyn FnMut(usize, T) -> Result<(), String>,
    /// Cases handed to `keep`.
    kept: usize,
    /// Why the case after the `kept` ones was refused, when it was.
    refused: Option<String>,
    /// A case after the `kept` ones was not kept: nothing more is.
    stopped: bool,
    /// Cases skimmed after `kept`, by index from it (none where one is still being skimmed).
    waiting: VecDeque<Option<Skimmed<T>>>,
}

impl<T> InOrder<'_, T> {
    /// Skims a batch on this thread, taking each case as it is done.
    fn skim_here(&mut self, batch: Batch, check: &CheckCase<'_, T>) -> Result<(), Unexpected> {
        batch
            .numbered()
            .try_for_each(|(index, bytes)| self.arrive(index, skim(bytes, check)))
    }

    /// Takes case `index`, and hands on every case it completes the run of; stops at the first
    /// case that is not kept.
    fn arrive(&mut self, index: usize, skimmed: Skimmed<T>) -> Result<(), Unexpected> {
        if self.stopped {
            return Err(Unexpected);
        }
        let slot = index - self.kept;
        if self.waiting.len() <= slot {
            self.waiting.resize_with(slot + 1, || None);
        }
        self.waiting[slot] = Some(skimmed);
        while let Some(skimmed) = self.waiting.front_mut().and_then(Option::take) {
            self.waiting.pop_front();
            let outcome = match skimmed {
                Skimmed::Kept(value) => (self.keep)(self.kept, value),
                Skimmed::Unreadable => {
                    self.stopped = true;
                    return Err(Unexpected);
                }
                Skimmed::Refused(reason) => Err(reason),
            };
            if let Err(reason) = outcome {
                self.refused = Some(reason);
                self.stopped = true;
                return Err(Unexpected);
            }
            self.kept += 1;
        }
        Ok(())
    }
}

fn skim<T>(bytes: Vec<u8>, check: &CheckCase<'_, T>) -> Skimmed<T> {
    let Ok(text) = String::from_utf8(bytes) else {
        return Skimmed::Unreadable;
    };
    let Ok(head) = skim_case(&text) else {
        return Skimmed::Unreadable;
    };
    match check(CaseRead::Skimmed { head, text }) {
        Ok(value) => Skimmed::Kept(value),
        Err(reason) => Skimmed::Refused(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After the first case not kept, nothing more is, even a case skimmed ahead and waiting.
    #[test]
    fn nothing_is_kept_after_a_refusal() {
        let mut kept = Vec::new();
        let mut keep = |index: usize, case: &str| {
            kept.push((index, case.to_string()));
            Ok(())
        };
        let mut order = InOrder {
            keep: &mut keep,
            kept: 0,
            refused: None,
            stopped: false,
            waiting: VecDeque::new(),
        };
        assert!(order.arrive(2, Skimmed::Kept("c2")).is_ok());
        assert!(order.arrive(0, Skimmed::Kept("c0")).is_ok());
        assert!(order.arrive(1, Skimmed::Refused("no".into())).is_err());
        assert!(order.arrive(3, Skimmed::Kept("c3")).is_err());
        assert_eq!((order.kept, order.refused.as_deref()), (1, Some("no")));
        assert_eq!(kept, [(0, "c0".to_string())]);
    }
}
