//! An evalset's JSON cut into its cases' bytes by its brackets, without parsing, so that each
//! case can be parsed from a slice: serde_json reads a slice several times faster than a reader,
//! and one case's bytes are all that is held. The cut checks nothing a parser would: what it does
//! not expect, it hands back (see [`Unexpected`]) for the exact reader to name.

use crate::scan::{is_whitespace, value_len, TooDeep};
use std::io::Read;
use std::ops::Range;

/// Input is read this much at a time, more when one value is longer.
const CHUNK: usize = 1 << 20;

/// The cut met something it does not read (bad JSON, an escaped key, a second case list…), or the
/// caller refused a case; the exact reader takes it from there.
#[derive(Debug)]
pub(crate) struct Unexpected;

/// A value nested past [`MAX_DEPTH`] is left to the parser.
impl From<TooDeep> for Unexpected {
    fn from(_: TooDeep) -> Self {
        Unexpected
    }
}

/// Levels of nesting the cut reads itself: well under serde_json's limit of 128, which counts
/// the levels around a case too.
const MAX_DEPTH: usize = 100;

/// Hands each case's bytes of the evalset read from `reader` to `on_case` and answers the set's
/// other members as a JSON object whose `eval_cases` is empty (none when it has no case list).
/// Before the first case, `check_members` sees the members read so far (`{` and the members,
/// not closed), which a parser reads before any case too.
pub(crate) fn split_cases<R: Read>(
    reader: R,
    check_members: &mut dyn FnMut(&[u8]) -> Result<(), Unexpected>,
    on_case: &mut dyn FnMut(&[u8]) -> Result<(), Unexpected>,
) -> Result<Vec<u8>, Unexpected> {
    let mut input = Window::new(reader);
    let mut header = b"{".to_vec();
    let mut has_cases = false;
    input.expect(b'{')?;
    if input.peek()? == b'}' {
        input.pos += 1;
    } else {
        loop {
            let key = input.key()?;
            if key == b"eval_cases" && !has_cases {
                has_cases = true;
                check_members(&header)?;
                input.cases(on_case)?;
            } else if key == b"eval_cases" {
                return Err(Unexpected);
            } else {
                let value = input.value()?;
                push_member(&mut header, &key, &input.buf[value.clone()]);
                input.pos = value.end;
            }
            match input.next_byte()? {
                b',' => continue,
                b'}' => break,
                _ => return Err(Unexpected),
            }
        }
    }
    input.at_end()?;
    if has_cases {
        push_member(&mut header, b"eval_cases", b"[]");
    }
    header.push(b'}');
    Ok(header)
}

fn push_member(header: &mut Vec<u8>, key: &[u8], value: &[u8]) {
    if header.len() > 1 {
        header.push(b',');
    }
    header.push(b'"');
    header.extend_from_slice(key);
    header.extend_from_slice(b"\":");
    header.extend_from_slice(value);
}

/// The part of the input not yet consumed, read a buffer at a time into one buffer that grows
/// only when a single value is longer.
struct Window<R> {
    reader: R,
    buf: Vec<u8>,
    /// The next byte to read in `buf`; what lies before it is done with.
    pos: usize,
    /// Where what was read ends in `buf`.
    end: usize,
    eof: bool,
}

impl<R: Read> Window<R> {
    fn new(reader: R) -> Self {
        Window {
            reader,
            buf: vec![0; CHUNK],
            pos: 0,
            end: 0,
            eof: false,
        }
    }

    fn rest(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Moves what is left to the front and reads until the buffer is full (doubled if what is
    /// left filled it); false when nothing more came.
    fn fill(&mut self) -> Result<bool, Unexpected> {
        if self.eof {
            return Ok(false);
        }
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let before = self.end;
        while self.end < self.buf.len() {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Err(Unexpected),
            }
        }
        Ok(self.end > before)
    }

    /// The next byte that is not whitespace, not consumed.
    fn peek(&mut self) -> Result<u8, Unexpected> {
        loop {
            match self.rest().iter().position(|b| !is_whitespace(*b)) {
                Some(at) => {
                    self.pos += at;
                    return Ok(self.buf[self.pos]);
                }
                None => {
                    self.pos = self.end;
                    if !self.fill()? {
                        return Err(Unexpected);
                    }
                }
            }
        }
    }

    fn next_byte(&mut self) -> Result<u8, Unexpected> {
        let byte = self.peek()?;
        self.pos += 1;
        Ok(byte)
    }

    fn expect(&mut self, byte: u8) -> Result<(), Unexpected> {
        if self.next_byte()? == byte {
            Ok(())
        } else {
            Err(Unexpected)
        }
    }

    /// A member's key (which must have no escape) and its colon.
    fn key(&mut self) -> Result<Vec<u8>, Unexpected> {
        if self.peek()? != b'"' {
            return Err(Unexpected);
        }
        let string = self.value()?;
        let key = self.buf[string.start + 1..string.end - 1].to_vec();
        if key.contains(&b'\\') {
            return Err(Unexpected);
        }
        self.pos = string.end;
        self.expect(b':')?;
        Ok(key)
    }

    /// Where in `buf` the value starting at the next byte that is not whitespace lies, reading
    /// more of the input until it ends. Not consumed.
    fn value(&mut self) -> Result<Range<usize>, Unexpected> {
        self.peek()?;
        loop {
            if let Some(len) = value_len(self.rest(), self.eof, MAX_DEPTH)? {
                return Ok(self.pos..self.pos + len);
            }
            if !self.fill()? {
                return Err(Unexpected);
            }
        }
    }

    /// The case list: each case's bytes to `on_case`.
    fn cases(&mut self, on_case: &mut dyn FnMut(&[u8]) -> Result<(), Unexpected>) -> Result<(), Unexpected> {
        self.expect(b'[')?;
        if self.peek()? == b']' {
            self.pos += 1;
            return Ok(());
        }
        loop {
            let case = self.value()?;
            on_case(&self.buf[case.clone()])?;
            self.pos = case.end;
            match self.next_byte()? {
                b',' => {}
                b']' => return Ok(()),
                _ => return Err(Unexpected),
            }
        }
    }

    /// Nothing but whitespace is left.
    fn at_end(&mut self) -> Result<(), Unexpected> {
        loop {
            if self.rest().iter().any(|b| !is_whitespace(*b)) {
                return Err(Unexpected);
            }
            self.pos = self.end;
            if !self.fill()? {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases' bytes and the header, reading `text` `chunk` bytes at a time.
    fn split(text: &str, chunk: usize) -> Result<(Vec<String>, String), Unexpected> {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut cases = Vec::new();
        let header = split_cases(Trickle(text.as_bytes(), chunk), &mut |_| Ok(()), &mut |case| {
            cases.push(String::from_utf8(case.to_vec()).unwrap());
            Ok(())
        })?;
        Ok((cases, String::from_utf8(header).unwrap()))
    }

    #[test]
    fn cases_and_header_come_apart_however_the_input_arrives() {
        let text = r#" { "eval_set_id" : "s", "eval_cases": [ {"eval_id": "a]\"}", "x": [1, {}]} ,
            {"eval_id": "b"} ], "creation_timestamp": 12.5 } "#;
        for chunk in [1, 2, 3, 7, 1 << 20] {
            let (cases, header) = split(text, chunk).unwrap();
            assert_eq!(
                cases,
                [r#"{"eval_id": "a]\"}", "x": [1, {}]}"#, r#"{"eval_id": "b"}"#]
            );
            assert_eq!(
                header,
                r#"{"eval_set_id":"s","creation_timestamp":12.5,"eval_cases":[]}"#
            );
        }
    }

    #[test]
    fn an_empty_list_or_object_has_no_cases() {
        assert_eq!(split(r#"{"eval_cases": []}"#, 4).unwrap().0.len(), 0);
        assert_eq!(split("{}", 4).unwrap().1, "{}");
    }

    #[test]
    fn what_the_cut_does_not_read_is_left_to_the_parser() {
        for text in [
            "[]",
            r#"{"eval_cases": [{"a": 1}"#,
            r#"{"eval_cases": [], "eval_cases": []}"#,
            r#"{"eval\u005fcases": []}"#,
            r#"{"eval_cases": [{}] "x": 1}"#,
            r#"{"eval_cases": [{}]} x"#,
            r#"{"eval_cases": [{}],}"#,
            "{\"eval_cases\": []}\u{c}",
        ] {
            assert!(split(text, 3).is_err(), "{text}");
        }
    }

    #[test]
    fn a_value_nested_past_the_limit_is_left_to_the_parser() {
        let deep = format!(
            "{{\"eval_cases\": [{{\"x\": {}{}}}]}}",
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        assert!(split(&deep, 1 << 20).is_err());
        let fine = deep
            .replace(&"[".repeat(MAX_DEPTH), &"[".repeat(MAX_DEPTH - 1))
            .replacen(']', "", 1);
        assert_eq!(split(&fine, 1 << 20).unwrap().0.len(), 1);
    }

    #[test]
    fn the_members_before_the_list_are_shown_before_any_case() {
        let seen = std::cell::RefCell::new(Vec::new());
        let text = r#"{"eval_set_id": "s", "name": 3, "eval_cases": [{}], "x": 1}"#;
        split_cases(
            text.as_bytes(),
            &mut |members| {
                seen.borrow_mut()
                    .push(String::from_utf8(members.to_vec()).unwrap());
                Ok(())
            },
            &mut |_| {
                seen.borrow_mut().push("case".into());
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen.into_inner(), [r#"{"eval_set_id":"s","name":3"#, "case"]);
    }
}
