//! Server-sent events as model servers stream them: a byte stream cut into lines, and the
//! payload of each `data:` line.

/// Splits a byte stream into lines. Lines may be cut anywhere between network chunks; `\r\n` and
/// `\n` both end a line.
#[derive(Default)]
pub(crate) struct SseLines {
    buf: Vec<u8>,
}

impl SseLines {
    /// The lines completed by `bytes`.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.buf.extend_from_slice(bytes);
        let mut lines = Vec::new();
        let mut start = 0;
        while let Some(end) = self.buf[start..].iter().position(|&b| b == b'\n') {
            lines.push(decode_line(&self.buf[start..start + end]));
            start += end + 1;
        }
        self.buf.drain(..start);
        lines
    }

    /// Whatever is left when the stream ends without a final newline.
    pub(crate) fn finish(&mut self) -> Option<String> {
        if self.buf.is_empty() {
            None
        } else {
            let line = decode_line(&self.buf);
            self.buf.clear();
            Some(line)
        }
    }
}

fn decode_line(bytes: &[u8]) -> String {
    // A newline byte never occurs inside a UTF-8 sequence, so a whole line decodes cleanly.
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// The payload of a `data:` line; None for comments (`: keep-alive`), blank lines and other fields.
pub(crate) fn sse_data(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("data:")?;
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}
