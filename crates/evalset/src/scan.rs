//! A JSON value's length read from its quotes and brackets without parsing it: how the fast
//! reader cuts a set into its cases, and how an error found after parsing finds its place.

/// A value nested deeper than the reader of [`value_len`] asked for.
#[derive(Debug)]
pub(crate) struct TooDeep;

/// The length of the value `bytes` starts with, by its quotes and brackets; none when `bytes`
/// ends first (a number or word may go on unless `complete`). A value nested deeper than
/// `max_depth` is `TooDeep`.
pub(crate) fn value_len(bytes: &[u8], complete: bool, max_depth: usize) -> Result<Option<usize>, TooDeep> {
    let Some(first) = bytes.first() else {
        return Ok(None);
    };
    Ok(match first {
        b'"' => string_len(bytes),
        b'{' | b'[' => bracketed_len(bytes, max_depth)?,
        _ => match bytes
            .iter()
            .position(|b| matches!(b, b',' | b'}' | b']') || is_whitespace(*b))
        {
            Some(len) => Some(len),
            None if complete => Some(bytes.len()),
            None => None,
        },
    })
}

fn bracketed_len(bytes: &[u8], max_depth: usize) -> Result<Option<usize>, TooDeep> {
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(byte) = bytes.get(at) {
        match byte {
            b'"' => match string_len(&bytes[at..]) {
                Some(len) => {
                    at += len;
                    continue;
                }
                None => return Ok(None),
            },
            b'{' | b'[' => {
                depth += 1;
                if depth > max_depth {
                    return Err(TooDeep);
                }
            }
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(Some(at + 1));
                }
            }
            _ => {}
        }
        at += 1;
    }
    Ok(None)
}

/// JSON's whitespace (not form feed, which `u8::is_ascii_whitespace` also counts).
pub(crate) fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The length of the string `bytes` starts with, its quotes included.
pub(crate) fn string_len(bytes: &[u8]) -> Option<usize> {
    let mut at = 1;
    loop {
        match bytes.get(at)? {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
}
