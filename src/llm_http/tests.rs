//! SSE line splitting and the retry backoff. The endpoint's requests, retries and error
//! messages are tested through the `openai` agent and the judge against the fake model server.

use std::time::Duration;

use super::retry::backoff;
use super::{sse_data, SseLines};

#[test]
fn sse_lines_survive_any_split() {
    let stream = ": ping\r\ndata: {\"a\":\"é\"}\r\n\r\ndata: [DONE]\n";
    for cut in 0..=stream.len() {
        let mut lines = SseLines::default();
        let mut all = lines.push(&stream.as_bytes()[..cut]);
        all.extend(lines.push(&stream.as_bytes()[cut..]));
        assert_eq!(lines.finish(), None);
        assert_eq!(
            all,
            [": ping", "data: {\"a\":\"é\"}", "", "data: [DONE]"],
            "cut at {cut}"
        );
    }
    // Byte by byte, including inside the two-byte "é".
    let mut lines = SseLines::default();
    let all: Vec<String> = stream.bytes().flat_map(|b| lines.push(&[b])).collect();
    assert_eq!(all.len(), 4);
    assert_eq!(sse_data(&all[1]), Some("{\"a\":\"é\"}"));
    assert_eq!(sse_data("data:x"), Some("x"));
    assert_eq!(sse_data(": keep-alive"), None);
    assert_eq!(sse_data(""), None);
}

#[test]
fn backoff_doubles_caps_and_jitters() {
    let base = Duration::from_millis(500);
    for salt in 0..200 {
        for (attempt, nominal) in [
            (0, 500.0),
            (1, 1000.0),
            (2, 2000.0),
            (3, 4000.0),
            (4, 8000.0),
            (9, 8000.0),
        ] {
            let ms = backoff(base, attempt, salt).as_secs_f64() * 1000.0;
            assert!(
                ms >= nominal * 0.8 - 1e-6 && ms <= nominal * 1.2 + 1e-6,
                "{attempt}: {ms}"
            );
        }
    }
    // The jitter actually varies.
    let distinct: std::collections::BTreeSet<u128> =
        (0..50).map(|salt| backoff(base, 1, salt).as_micros()).collect();
    assert!(distinct.len() > 40);
    assert!(backoff(base, 40, 1) <= Duration::from_millis(9600));
}
