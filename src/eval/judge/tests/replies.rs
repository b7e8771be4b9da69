//! Tests of reading judge replies: yes/no, scores, ADK's validity labels, rubric verdicts, statements.

use crate::eval::judge::parse::{self, Validity};

#[test]
fn yes_no_replies_are_read_tolerantly() {
    let cases = [
        ("YES", Ok(true)),
        ("no", Ok(false)),
        ("**No.**", Ok(false)),
        ("```\nyes\n```", Ok(true)),
        ("  \"Yes\" — the response matches.", Ok(true)),
        ("Answer: NO", Ok(false)),
        (
            "The response cites no source, but the context backs it.\nVerdict: **yes**",
            Ok(true),
        ),
        ("Looking at the context and the claim.\nYES", Ok(true)),
        ("The answer is yes.", Ok(true)),
        ("There is no support for this.", Ok(false)),
    ];
    for (reply, expected) in cases {
        assert_eq!(parse::yes_no(reply), expected, "{reply:?}");
    }
    for reply in ["", "maybe", "I cannot tell.", "It could be yes or it could be no"] {
        let problem = parse::yes_no(reply).unwrap_err();
        assert!(problem.contains("yes"), "{reply:?}: {problem}");
    }
}

#[test]
fn score_replies_are_read_tolerantly() {
    let range = (0.0, 1.0);
    let read = |reply: &str| parse::score_json(reply, range).map(|r| r.score);
    assert_eq!(read("{\"score\": 0.8, \"feedback\": \"ok\"}"), Ok(0.8));
    assert_eq!(
        read("Here you go:\n```json\n{\"Score\": \"0.25\", \"feedback\": \"thin\"}\n```"),
        Ok(0.25)
    );
    assert_eq!(
        read("{\"evaluation\": {\"feedback\": \"f\", \"score\": 1}}"),
        Ok(1.0)
    );
    assert_eq!(read("{\"score\": \"80%\"}"), Ok(0.8));
    assert_eq!(read(" **0.5** "), Ok(0.5));
    assert!(read("{\"score\": 4}").unwrap_err().contains("outside 0 to 1"));
    assert!(read("{\"score\": \"high\"}")
        .unwrap_err()
        .contains("not a number"));
    assert!(read("{\"score\": 0.5, \"feedback\": ")
        .unwrap_err()
        .contains("no JSON object"));
    assert!(read("I'd say fairly relevant.")
        .unwrap_err()
        .contains("no JSON object"));
    let reply = parse::score_json("{\"score\": 3, \"reasoning\": \"mid\"}", (1.0, 5.0)).unwrap();
    assert_eq!((reply.score, reply.feedback.as_deref()), (0.5, Some("mid")));
}

/// The labels google-adk 2.13's `_parse_critique` gives these replies (VALID, INVALID or
/// NOT_FOUND), from running it on each.
#[test]
fn final_response_match_v2_labels_equal_adks() {
    let adk: [(&str, Option<Validity>); 19] = [
        (
            "{\n  \"reasoning\": \"fine\",\n  \"is_the_agent_response_valid\": \"valid\"\n}",
            Some(Validity::Valid),
        ),
        (
            "{\"reasoning\": [x], \"is_the_agent_response_valid\": [invalid],}",
            Some(Validity::Invalid),
        ),
        ("\"is_the_agent_response_valid\": valid}", Some(Validity::Valid)),
        (
            "\"is_the_agent_response_valid\": [ \"valid\" ]\n",
            Some(Validity::Valid),
        ),
        ("\"is_the_agent_response_valid\": Valid,", None),
        ("\"is_the_agent_response_valid\": valid", None),
        (
            "\"is_the_agent_response_valid\": partially_valid,",
            Some(Validity::Invalid),
        ),
        (
            "\"is_the_agent_response_valid\": almost}",
            Some(Validity::Invalid),
        ),
        ("\"is_the_agent_response_valid\": true\n", Some(Validity::Valid)),
        ("\"is_the_agent_response_invalid\": false,", Some(Validity::Valid)),
        (
            "\"is_the_agent_response_invalid\": \"true\"}",
            Some(Validity::Invalid),
        ),
        ("\"is_the_agent_response_invalid\": \n,", Some(Validity::Valid)),
        ("\"is_the_agent_response_valid\": va,lid}", None),
        ("\"is_the_agent_response_valid\": \"valid\"x,", None),
        (
            "\"is_the_agent_response_valid\": \n \"valid\" \n ] \n }",
            Some(Validity::Valid),
        ),
        ("\"is_the_agent_response_valid\": ^valid,", None),
        (
            "\"is_the_agent_response_valid\": x\n\"is_the_agent_response_valid\": \"invalid\",",
            None,
        ),
        ("is_the_agent_response_valid: valid", None),
        (
            "```json\n{\"is_the_agent_response_valid\": \"invalid\"}\n```",
            Some(Validity::Invalid),
        ),
    ];
    for (reply, expected) in adk {
        let ours = parse::validity(reply);
        match expected {
            Some(label) => assert_eq!(ours, Ok((label, true)), "{reply:?}"),
            // Where ADK finds no label, ours is the tolerant reading's, never ADK's.
            None => assert!(
                ours.as_ref().map_or(true, |(_, by_adk)| !by_adk),
                "{reply:?}: {ours:?}"
            ),
        }
    }
    // The tolerant reading of what ADK misses.
    assert_eq!(
        parse::validity("\"is_the_agent_response_valid\": Valid,"),
        Ok((Validity::Valid, false))
    );
    assert_eq!(
        parse::validity("is_the_agent_response_valid: valid"),
        Ok((Validity::Valid, false))
    );
    assert_eq!(parse::validity("**Invalid.**"), Ok((Validity::Invalid, false)));
    assert!(parse::validity("\"is_the_agent_response_valid\": va,lid}").is_err());
    // Degenerate replies stay fast (a bounded window, failed states remembered).
    let spaces = " ".repeat(20_000);
    assert!(parse::validity(&format!("\"is_the_agent_response_valid\":{spaces}[{spaces}\"x")).is_err());
}

/// What google-adk 2.13's `DefaultAutoRaterResponseParser` reads from this reply.
#[test]
fn rubric_verdicts_equal_adks() {
    let reply = "ID: 1\nProperty: The answer is polite.\nEvidence: none\nRationale: It says please.\nVerdict: yes\n\n  \nID: 2\nProperty: **The answer cites a source.**\nRationale: It does not.\nVerdict: No, it doesn't\n\nProperty: Unknown property\nRationale: r\nVerdict: maybe\n";
    let verdicts = parse::rubric_verdicts(reply);
    let read: Vec<(Option<&str>, &str, &str, Option<f64>)> = verdicts
        .iter()
        .map(|v| {
            (
                v.rubric_id.as_deref(),
                v.property.as_str(),
                v.rationale.as_str(),
                v.score,
            )
        })
        .collect();
    assert_eq!(
        read,
        [
            (Some("1"), "The answer is polite.", "It says please.", Some(1.0)),
            (
                Some("2"),
                "**The answer cites a source.**",
                "It does not.",
                Some(0.0)
            ),
            (None, "Unknown property", "r", None),
        ]
    );
    // Counts that disagree read as nothing (ADK: a partial parse could hide a failed rubric).
    assert!(parse::rubric_verdicts("Property: a\nRationale: b\n").is_empty());
    // Markdown labels, which ADK cannot read, are read once the emphasis is removed.
    let bold = parse::rubric_verdicts("**ID:** 7\n**Property:** Short.\n**Rationale:** r\n**Verdict:** yes");
    assert_eq!(bold.len(), 1);
    assert_eq!(
        (bold[0].rubric_id.as_deref(), bold[0].score),
        (Some("7"), Some(1.0))
    );
    assert_eq!(
        parse::normalize_property("  **“The answer”  is\tshort.** "),
        "the answer\" is short."
    );
}

#[test]
fn statement_lists_are_read_from_json_or_bullets() {
    assert_eq!(
        parse::statements("[\"A.\", \" B. \"]"),
        Ok(vec!["A.".into(), "B.".into()])
    );
    assert_eq!(
        parse::statements("```json\n{\"claims\": [\"A.\"]}\n```"),
        Ok(vec!["A.".into()])
    );
    assert_eq!(
        parse::statements("Claims:\n1. A.\n2) B.\n- C."),
        Ok(vec!["A.".into(), "B.".into(), "C.".into()])
    );
    assert_eq!(parse::statements("[]"), Ok(Vec::new()));
    assert!(parse::statements("The text says it is sunny.").is_err());
}
