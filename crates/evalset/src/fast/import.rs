//! The fast reader of a set in ADK's form, each case parsed from its own bytes as
//! [`super::split`] cuts them (at anything it does not expect, the exact reader
//! [`read_evalset_cases`] reads the input again, so what it reads and its errors are the same),
//! and the check of a case read by a skim.

use super::skim::CaseHead;
use super::split::{split_cases, Unexpected};
use crate::import::{read_evalset_cases, validate_parts, FormatError};
use crate::model::case::EvalCase;
use crate::model::eval_set::EvalSet;
use crate::parts::CaseParts;

/// As [`crate::validate_case`], for a case skimmed rather than parsed.
pub fn validate_head(head: &CaseHead) -> Result<(), String> {
    validate_parts(&head.eval_id, head.turns.is_some(), head.has_scenario)
}

/// Takes each case read with its place in the list and its JSON as read (none when the exact
/// reader read it); an `Err` stops reading.
pub type OnCaseAsRead<'a> = dyn FnMut(usize, EvalCase, Option<&str>) -> Result<(), String> + 'a;

/// As [`read_evalset_cases`], faster: each case is parsed from its own bytes (the `parts` of it
/// asked for), which `on_case` is given too (none for a case the exact reader read, whole). At
/// anything it does not expect (an error among them) the exact reader reads the input again
/// from `reopen`, skipping the cases already handed over, so errors read the same.
pub fn read_evalset_cases_fast<R: std::io::Read>(
    reader: R,
    reopen: impl FnOnce() -> std::io::Result<R>,
    parts: CaseParts,
    on_case: &mut OnCaseAsRead<'_>,
) -> Result<EvalSet, FormatError> {
    let mut handed = 0;
    // Why `on_case` refused the case after the `handed` ones, to be said again where the exact
    // reader reaches it (not by asking `on_case` twice).
    let mut refused = None;
    let header = split_cases(reader, &mut members_read_alone, &mut |bytes| {
        // One check of the whole case's UTF-8 is faster than one per string.
        let text = std::str::from_utf8(bytes).map_err(|_| Unexpected)?;
        let case = parts.parse(text).map_err(|_| Unexpected)?;
        on_case(handed, case, Some(text)).map_err(|reason| {
            refused = Some(reason);
            Unexpected
        })?;
        handed += 1;
        Ok(())
    });
    if let Ok(Ok(header)) = header.map(|json| read_evalset_cases(&json[..], &mut |_, _| Ok(()))) {
        return Ok(header);
    }
    read_again(reopen, handed, refused, &mut |index, case| {
        on_case(index, case, None)
    })
}

/// The exact reader's answer for an input the fast one stopped in: the input is read again
/// from `reopen`, the `handed` cases already handed over are skipped, and the next one, when
/// `refused` says why it was, is refused again for that reason.
pub(crate) fn read_again<R: std::io::Read>(
    reopen: impl FnOnce() -> std::io::Result<R>,
    handed: usize,
    mut refused: Option<String>,
    on_case: &mut dyn FnMut(usize, EvalCase) -> Result<(), String>,
) -> Result<EvalSet, FormatError> {
    let again = reopen().map_err(|err| FormatError {
        path: "$".into(),
        line: 0,
        column: 0,
        message: format!("cannot read it again: {err}"),
    })?;
    let mut seen = 0;
    read_evalset_cases(again, &mut |index, case| {
        seen += 1;
        match seen.cmp(&(handed + 1)) {
            std::cmp::Ordering::Less => Ok(()),
            std::cmp::Ordering::Equal if refused.is_some() => Err(refused.take().unwrap_or_default()),
            _ => on_case(index, case),
        }
    })
}

/// Whether the members before the case list (`{` and the members) read as the exact reader
/// reads them before its first case: followed by a valid id and an empty list, they do unless
/// one of them is wrong.
pub(crate) fn members_read_alone(members: &[u8]) -> Result<(), Unexpected> {
    let mut probe = members.to_vec();
    if probe.len() > 1 {
        probe.push(b',');
    }
    probe.extend_from_slice(br#""eval_set_id":"probe","eval_cases":[]}"#);
    read_evalset_cases(&probe[..], &mut |_, _| Ok(()))
        .map(drop)
        .map_err(|_| Unexpected)
}
