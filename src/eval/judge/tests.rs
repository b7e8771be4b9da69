//! Judge metrics against a scripted in-memory judge: prompts, reply reading (ADK's parsers
//! checked against google-adk's own outputs), sample votes, evidence and config errors.

use super::parse::{self, Validity};
use super::template;
use super::*;
use crate::eval::metrics::{
    ANSWER_CORRECTNESS, ANSWER_FAITHFULNESS, CONTEXT_PRECISION, CONTEXT_RECALL, FACT_CHECKING, FAITHFULNESS,
    FINAL_RESPONSE_MATCH_V2, RELEVANCY, RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1,
};
use crate::evalset::{Invocation, RubricContent};
use futures::executor::block_on;
use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::{json, Map, Value};
use std::sync::Mutex;

/// Answers each prompt with `answer(prompt)` and records the requests.
pub(super) struct ScriptedJudge<F> {
    answer: F,
    requests: Mutex<Vec<(String, Option<String>)>>,
}

impl<F: Fn(&str) -> Result<String, String> + Send + Sync> ScriptedJudge<F> {
    pub(super) fn new(answer: F) -> Self {
        ScriptedJudge {
            answer,
            requests: Mutex::new(Vec::new()),
        }
    }

    pub(super) fn prompts(&self) -> Vec<String> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .map(|(p, _)| p.clone())
            .collect()
    }
}

impl<F: Fn(&str) -> Result<String, String> + Send + Sync> Judge for ScriptedJudge<F> {
    fn complete<'a>(&'a self, request: JudgeRequest<'a>) -> BoxFuture<'a, Result<String, String>> {
        self.requests
            .lock()
            .unwrap()
            .push((request.prompt.to_string(), request.model.map(str::to_string)));
        let reply = (self.answer)(request.prompt);
        async move { reply }.boxed()
    }
}

/// A judge that gives `replies` in turn, one per request.
pub(super) fn replies_in_turn(
    replies: &[&str],
) -> ScriptedJudge<impl Fn(&str) -> Result<String, String> + Send + Sync> {
    let queue: Mutex<Vec<String>> = Mutex::new(replies.iter().rev().map(|r| r.to_string()).collect());
    ScriptedJudge::new(move |_| Ok(queue.lock().unwrap().pop().expect("the script ran out")))
}

pub(super) fn metric(name: &str, criterion: Value) -> JudgeMetric {
    let Value::Object(criterion) = criterion else {
        panic!("criterion must be an object")
    };
    parse_judge_metric(name, &criterion, &format!("criteria.{name}"))
        .unwrap()
        .unwrap()
}

fn config_error(name: &str, criterion: Value) -> String {
    let Value::Object(criterion) = criterion else {
        panic!("criterion must be an object")
    };
    parse_judge_metric(name, &criterion, &format!("criteria.{name}")).unwrap_err()
}

fn input() -> JudgeInput {
    JudgeInput {
        query: "What's the weather in Paris?".into(),
        response: "It is sunny in Paris, 25 °C.".into(),
        reference: Some("Sunny, 25 degrees.".into()),
        context: vec![
            "get_weather: {\"temp_c\":25,\"sky\":\"sunny\"}".into(),
            "get_news: {\"headline\":\"Bridge opens\"}".into(),
        ],
        ..JudgeInput::default()
    }
}

fn evaluate(metric: &JudgeMetric, input: &JudgeInput, judge: &dyn Judge) -> InvocationScore {
    block_on(evaluate_judge_metric(metric, input, judge))
}

/// Evidence as results store it.
fn stored(evidence: Option<Evidence>) -> Value {
    serde_json::to_value(evidence.expect("evidence")).unwrap()
}

fn rubric(id: &str, text: &str) -> Rubric {
    Rubric {
        rubric_id: id.into(),
        rubric_content: RubricContent {
            text_property: Some(text.into()),
            ..RubricContent::default()
        },
        ..Rubric::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Templates

#[test]
fn templates_fill_names_and_keep_other_braces() {
    let prompt = "Q: {query}\n{{literal}} {\"score\": 1} {not a name} {response}{query}é{";
    assert_eq!(template::placeholders(prompt), ["query", "response"]);
    let filled = template::render(prompt, |name| match name {
        "query" => Some("why {response}?"),
        "response" => Some("R"),
        _ => None,
    })
    .unwrap();
    // A value's braces are never read as placeholders.
    assert_eq!(
        filled,
        "Q: why {response}?\n{literal} {\"score\": 1} {not a name} Rwhy {response}?é{"
    );
    assert_eq!(
        template::render("{reference}", |_| None),
        Err("reference".to_string())
    );
    assert_eq!(template::fill("{a} {b}", &[("a", "1")]), "1 {b}");
}

#[test]
fn custom_prompt_placeholders_are_substituted() {
    let custom = metric(
        "tone",
        json!({"threshold": 0.5, "judge_prompt": "Q={query}|R={response}|C={context}|G={reference}|{{x}}", "reply": "yes_no"}),
    );
    let judge = replies_in_turn(&["YES"]);
    let score = evaluate(&custom, &input(), &judge);
    assert_eq!(score.score, Some(1.0));
    assert_eq!(
        judge.prompts(),
        [format!(
            "Q=What's the weather in Paris?|R=It is sunny in Paris, 25 °C.|C={}\n\n{}|G=Sunny, 25 degrees.|{{x}}",
            input().context[0],
            input().context[1]
        )]
    );
    // No tool calls: the context says so rather than being empty.
    let judge = replies_in_turn(&["no"]);
    let bare = JudgeInput {
        context: Vec::new(),
        ..input()
    };
    assert_eq!(evaluate(&custom, &bare, &judge).score, Some(0.0));
    assert!(judge.prompts()[0].contains("C=(none: the agent called no tools)"));
}

#[test]
fn custom_prompt_without_a_reference_is_not_evaluated_naming_the_field() {
    let custom = metric(
        "matches",
        json!({"threshold": 0.5, "judgePrompt": "{response} vs {reference}", "reply": "yes_no"}),
    );
    let judge = replies_in_turn(&[]);
    let score = evaluate(
        &custom,
        &JudgeInput {
            reference: None,
            ..input()
        },
        &judge,
    );
    assert_eq!(score.score, None);
    let reason = score.reason.unwrap();
    assert!(
        reason.contains("criteria.matches.judgePrompt uses {reference}"),
        "{reason}"
    );
    assert!(judge.prompts().is_empty());
}

#[test]
fn custom_score_json_maps_its_range_onto_0_to_1() {
    let custom = metric(
        "grounded",
        json!({"threshold": 0.5, "judge_prompt": "{response}", "reply": "score_json", "score_range": [1, 5],
               "judge_model_options": {"num_samples": 2, "judge_model": "small-judge"}}),
    );
    let judge = replies_in_turn(&[
        "{\"score\": 4, \"feedback\": \"good\"}",
        "```json\n{\"score\": \"5\"}\n```",
    ]);
    let score = evaluate(&custom, &input(), &judge);
    assert_eq!(score.score, Some((0.75 + 1.0) / 2.0));
    assert_eq!(stored(score.evidence)["samples"][0]["feedback"], "good");
    let models: Vec<Option<String>> = judge
        .requests
        .lock()
        .unwrap()
        .iter()
        .map(|(_, m)| m.clone())
        .collect();
    assert_eq!(
        models,
        [Some("small-judge".to_string()), Some("small-judge".to_string())]
    );
}

// ---------------------------------------------------------------------------------------------
// Reading replies

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

// ---------------------------------------------------------------------------------------------
// Samples and votes

#[test]
fn final_response_match_v2_takes_the_majority_and_a_tie_is_invalid() {
    let v2 = metric(FINAL_RESPONSE_MATCH_V2, json!({"threshold": 0.5}));
    assert_eq!(v2.options.num_samples, 5, "ADK's default");
    let valid = "{\"reasoning\": \"ok\", \"is_the_agent_response_valid\": \"valid\"}";
    let invalid = "{\"reasoning\": \"no\", \"is_the_agent_response_valid\": \"invalid\"}";
    // 2 valid, 2 invalid, 1 unreadable: the unreadable one does not vote, the tie is invalid.
    let judge = replies_in_turn(&[valid, invalid, "I refuse.", valid, invalid]);
    let score = evaluate(&v2, &input(), &judge);
    assert_eq!(score.score, Some(0.0));
    let evidence = stored(score.evidence);
    assert_eq!(evidence["votes"], json!({"yes": 2, "no": 2, "unread": 1}));
    assert_eq!(evidence["samples"][2]["reply"], "I refuse.");
    assert_eq!(
        evidence["samples"][0]["verdict"],
        json!({"label": "valid", "parser": "adk"})
    );
    // 1 valid and 4 unreadable: valid.
    let judge = replies_in_turn(&[valid, "?", "?", "?", "?"]);
    assert_eq!(evaluate(&v2, &input(), &judge).score, Some(1.0));
    // The prompt is ADK's, filled with the query, response and reference.
    let prompt = &judge.prompts()[0];
    assert!(prompt.contains("  \"User prompt\": What's the weather in Paris?,\n  \"Agent response\": It is sunny in Paris, 25 °C.,\n  \"Reference response\": Sunny, 25 degrees.,\n}"), "{prompt}");
    assert!(prompt.contains("{\n  \"reasoning\": [reasoning],"));
}

#[test]
fn unreadable_replies_are_not_evaluated_with_the_raw_text_kept() {
    let relevancy = metric(
        RELEVANCY,
        json!({"threshold": 1.0, "judge_model_options": {"num_samples": 3}}),
    );
    let judge = replies_in_turn(&["perhaps", "hmm", "unclear"]);
    let score = evaluate(&relevancy, &input(), &judge);
    assert_eq!(score.score, None);
    assert_eq!(
        score.reason.as_deref(),
        Some("the judge's reply was neither yes nor no")
    );
    let evidence = stored(score.evidence);
    let raw: Vec<&str> = evidence["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reply"].as_str().unwrap())
        .collect();
    assert_eq!(raw, ["perhaps", "hmm", "unclear"]);

    let faithfulness = metric(ANSWER_FAITHFULNESS, json!({"threshold": 0.5}));
    let score = evaluate(
        &faithfulness,
        &input(),
        &replies_in_turn(&["{\"score\": 0.9, \"feedback\""]),
    );
    assert_eq!(score.score, None);
    assert!(score.reason.unwrap().contains("no JSON object"));
    assert_eq!(
        stored(score.evidence)["samples"][0]["reply"],
        "{\"score\": 0.9, \"feedback\""
    );
}

#[test]
fn a_judge_error_is_not_evaluated_with_the_error() {
    let calls = Mutex::new(0);
    let judge = ScriptedJudge::new(move |_| {
        let mut n = calls.lock().unwrap();
        *n += 1;
        if *n == 2 {
            Err("the judge model server failed (500)".to_string())
        } else {
            Ok("yes".to_string())
        }
    });
    let correctness = metric(
        ANSWER_CORRECTNESS,
        json!({"threshold": 1.0, "judge_model_options": {"num_samples": 3}}),
    );
    let score = evaluate(&correctness, &input(), &judge);
    assert_eq!(score.score, None);
    assert_eq!(
        score.reason.as_deref(),
        Some("the judge failed: the judge model server failed (500)")
    );
    assert_eq!(
        stored(score.evidence)["samples"][1],
        json!({"error": "the judge model server failed (500)"})
    );
}

#[test]
fn yes_no_metrics_show_the_judge_their_inputs() {
    let judge = replies_in_turn(&["Yes", "NO", "yes"]);
    let relevancy = metric(RELEVANCY, json!({"threshold": 1.0}));
    let fact_checking = metric(FACT_CHECKING, json!({"threshold": 1.0}));
    let correctness = metric(ANSWER_CORRECTNESS, json!({"threshold": 1.0}));
    assert_eq!(evaluate(&relevancy, &input(), &judge).score, Some(1.0));
    assert_eq!(evaluate(&fact_checking, &input(), &judge).score, Some(0.0));
    assert_eq!(evaluate(&correctness, &input(), &judge).score, Some(1.0));
    let prompts = judge.prompts();
    assert!(prompts[0].contains("Query:\nWhat's the weather in Paris?\n\nResponse:\nIt is sunny in Paris, 25 °C.\n\nContext:\nget_weather:"));
    assert!(prompts[1].contains("Document:\nget_weather: {\"temp_c\":25,\"sky\":\"sunny\"}\n\nget_news:"));
    assert!(prompts[1].ends_with("Claim:\nIt is sunny in Paris, 25 °C.\n"));
    assert!(prompts[2].contains("Reference answer:\nSunny, 25 degrees.\n"));
    // Without a reference, answer_correctness cannot be judged.
    let score = evaluate(
        &correctness,
        &JudgeInput {
            reference: Some(" ".into()),
            ..input()
        },
        &judge,
    );
    assert!(score
        .reason
        .unwrap()
        .contains("needs the expected final response"));
}

// ---------------------------------------------------------------------------------------------
// Rubrics

fn rubric_reply(verdicts: &[(&str, &str, &str)]) -> String {
    verdicts
        .iter()
        .map(|(id, property, verdict)| {
            format!("ID: {id}\nProperty: {property}\nEvidence: e\nRationale: because {verdict}\nVerdict: {verdict}\n")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn rubric_metric_votes_per_rubric_and_averages() {
    let rubric_metric = metric(
        RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1,
        json!({"threshold": 0.5, "judge_model_options": {"num_samples": 3}, "rubrics": [
            {"rubric_id": "concise", "rubric_content": {"text_property": "The answer is concise."}},
            {"rubricId": "units", "rubricContent": {"textProperty": "Temperatures say °C or °F."}}
        ]}),
    );
    let mut with_invocation_rubric = input();
    let mut typed = rubric("tool", "The answer uses the tool's data.");
    typed.extra.insert("type".into(), json!("FINAL_RESPONSE_QUALITY"));
    with_invocation_rubric.rubrics = vec![typed, rubric("untyped", "Ignored: no type.")];
    let replies = [
        // concise yes, units no, tool yes (matched by its text, no id).
        rubric_reply(&[
            ("concise", "x", "yes"),
            ("units", "x", "no"),
            ("", "The answer uses the tool's data.", "yes"),
        ]),
        // concise no, units no, tool unreadable.
        rubric_reply(&[
            ("concise", "x", "no"),
            ("units", "x", "no"),
            ("tool", "x", "unsure"),
        ]),
        // Unreadable as a whole (counts disagree): no votes.
        "Property: only this\n".to_string(),
    ];
    let replies: Vec<&str> = replies.iter().map(String::as_str).collect();
    let judge = replies_in_turn(&replies);
    let score = evaluate(&rubric_metric, &with_invocation_rubric, &judge);
    // concise: 1 yes, 1 no → tie → no; units: no; tool: 1 yes → yes. Mean 1/3.
    assert_eq!(score.score, Some(1.0 / 3.0));
    let evidence = stored(score.evidence.clone());
    let per_rubric: Vec<(&str, Option<f64>)> = evidence["rubrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["rubric_id"].as_str().unwrap(), r["score"].as_f64()))
        .collect();
    assert_eq!(
        per_rubric,
        [("concise", Some(0.0)), ("units", Some(0.0)), ("tool", Some(1.0))]
    );
    assert_eq!(
        evidence["rubrics"][0]["votes"],
        json!({"yes": 1, "no": 1, "unread": 0})
    );
    assert_eq!(evidence["rubrics"][0]["rationale"], "because no");
    let prompt = &judge.prompts()[0];
    assert!(prompt.ends_with("<properties>\n*  [id: concise] The answer is concise.\n*  [id: units] Temperatures say °C or °F.\n*  [id: tool] The answer uses the tool's data.\n</properties>\n\n## Output\n"), "{prompt}");
    assert!(!prompt.contains("untyped"));

    // Over a case: the mean of every rubric score, not of the invocations' means.
    let other = with_evidence(
        InvocationScore::scored(1.0),
        JudgeEvidence {
            rubrics: Some(vec![RubricOutcome {
                rubric_id: "concise".into(),
                text: "The answer is concise.".into(),
                score: Some(1.0),
                rationale: String::new(),
                votes: Votes::default(),
            }]),
            ..JudgeEvidence::default()
        },
    );
    let not_evaluated = InvocationScore::not_evaluated("judge down");
    assert_eq!(
        rubric_metric.overall_score(&[score, other, not_evaluated]),
        Some(0.5)
    );
}

#[test]
fn rubric_metric_without_rubrics_or_with_clashing_ids_is_not_evaluated() {
    let rubric_metric = metric(RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1, json!({"threshold": 0.5}));
    let judge = replies_in_turn(&[]);
    let reason = evaluate(&rubric_metric, &input(), &judge).reason.unwrap();
    assert!(reason.contains("there are no rubrics"), "{reason}");
    let clashing = JudgeInput {
        rubrics: [rubric("a", "One."), rubric("a", "Two.")]
            .into_iter()
            .map(|mut r| {
                r.extra.insert("type".into(), json!("FINAL_RESPONSE_QUALITY"));
                r
            })
            .collect(),
        ..input()
    };
    let reason = evaluate(&rubric_metric, &clashing, &judge).reason.unwrap();
    assert!(reason.contains("rubric_id `a`"), "{reason}");
    assert!(judge.prompts().is_empty());
}

// ---------------------------------------------------------------------------------------------
// RAG metrics

#[test]
fn context_precision_is_mean_precision_at_the_useful_items() {
    let precision = metric(CONTEXT_PRECISION, json!({"threshold": 0.5}));
    let three = JudgeInput {
        context: vec!["A".into(), "B".into(), "C".into()],
        ..input()
    };
    let judge = ScriptedJudge::new(|prompt: &str| {
        Ok(if prompt.contains("Context:\nB\n") {
            "NO"
        } else {
            "Yes."
        }
        .to_string())
    });
    let score = evaluate(&precision, &three, &judge);
    // Useful at 1 and 3: (1/1 + 2/3) / 2.
    assert!((score.score.unwrap() - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
    let evidence = stored(score.evidence);
    assert_eq!(evidence["items"][1]["useful"], false);
    assert_eq!(evidence["answer"], "reference");
    assert!(judge.prompts()[0].contains("Answer:\nSunny, 25 degrees.\n"));

    let judge = ScriptedJudge::new(|_: &str| Ok("no".to_string()));
    assert_eq!(evaluate(&precision, &three, &judge).score, Some(0.0));
    let judge = ScriptedJudge::new(|prompt: &str| {
        Ok(if prompt.contains("\nB\n") { "dunno" } else { "yes" }.to_string())
    });
    let score = evaluate(&precision, &three, &judge);
    assert_eq!(
        score.reason.as_deref(),
        Some("context item 2: the judge's reply was neither yes nor no")
    );
    let none = JudgeInput {
        context: Vec::new(),
        ..input()
    };
    assert!(evaluate(&precision, &none, &judge)
        .reason
        .unwrap()
        .contains("no context"));
}

#[test]
fn faithfulness_checks_each_claim_against_the_context() {
    let faithfulness = metric(FAITHFULNESS, json!({"threshold": 0.5}));
    let judge = ScriptedJudge::new(|prompt: &str| {
        Ok(if prompt.starts_with("Break the text") {
            "```json\n[\"Paris is sunny.\", \"It is 25 °C in Paris.\", \"Paris is in Spain.\"]\n```"
        } else if prompt.contains("Claim:\nParis is in Spain.") {
            "No"
        } else {
            "Yes"
        }
        .to_string())
    });
    let score = evaluate(&faithfulness, &input(), &judge);
    assert_eq!(score.score, Some(2.0 / 3.0));
    let evidence = stored(score.evidence);
    assert_eq!(
        evidence["statements"][2],
        json!({"statement": "Paris is in Spain.", "supported": false, "reply": "No"})
    );
    let prompts = judge.prompts();
    assert!(prompts[0].contains("Text:\nIt is sunny in Paris, 25 °C.\n"));
    assert_eq!(prompts.len(), 4);

    // No claims to check; no context to check them against.
    let judge = replies_in_turn(&["[]"]);
    assert!(evaluate(&faithfulness, &input(), &judge)
        .reason
        .unwrap()
        .contains("no statements in the response"));
    let judge = replies_in_turn(&["[\"Paris is sunny.\"]"]);
    let score = evaluate(
        &faithfulness,
        &JudgeInput {
            context: Vec::new(),
            ..input()
        },
        &judge,
    );
    assert_eq!(score.score, Some(0.0));
    assert_eq!(judge.prompts().len(), 1, "nothing to check the claim against");
}

#[test]
fn context_recall_checks_the_reference_statements() {
    let recall = metric(CONTEXT_RECALL, json!({"threshold": 0.5}));
    let judge = ScriptedJudge::new(|prompt: &str| {
        Ok(if prompt.starts_with("Break the text") {
            "{\"statements\": [\"It is sunny.\", \"It is 25 degrees.\"]}"
        } else {
            "yes"
        }
        .to_string())
    });
    assert_eq!(evaluate(&recall, &input(), &judge).score, Some(1.0));
    assert!(judge.prompts()[0].contains("Text:\nSunny, 25 degrees.\n"));
    let score = evaluate(
        &recall,
        &JudgeInput {
            reference: None,
            ..input()
        },
        &judge,
    );
    assert!(score
        .reason
        .unwrap()
        .contains("context_recall needs the expected final response"));
    let broken = replies_in_turn(&["It is sunny and warm."]);
    let score = evaluate(&recall, &input(), &broken);
    assert!(score.reason.unwrap().contains("neither a JSON list"));
    assert_eq!(
        stored(score.evidence)["statements_reply"],
        "It is sunny and warm."
    );
}

// ---------------------------------------------------------------------------------------------
// Config

#[test]
fn config_reads_adk_options_and_names_the_field_of_each_error() {
    let v2 = metric(
        FINAL_RESPONSE_MATCH_V2,
        json!({"threshold": 0.8, "judgeModelOptions": {"judgeModel": "gpt-4o", "numSamples": 3.0, "parallelism_limit": 2}, "include_intermediate_responses_in_final": true}),
    );
    assert_eq!(
        v2.options,
        JudgeModelOptions {
            judge_model: Some("gpt-4o".into()),
            num_samples: 3,
            parallelism_limit: Some(2),
        }
    );
    assert!(v2.include_intermediate_responses_in_final);
    assert_eq!(
        metric(RELEVANCY, json!({"threshold": 1.0})).options.num_samples,
        1
    );
    let not_judge = parse_judge_metric(
        "tool_trajectory_avg_score",
        &Map::new(),
        "criteria.tool_trajectory_avg_score",
    );
    assert_eq!(not_judge, Ok(None));

    let errors = [
        (
            config_error(FINAL_RESPONSE_MATCH_V2, json!({"threshold": 1, "judge_model_options": {"num_samples": 0}})),
            "criteria.final_response_match_v2.judge_model_options.num_samples: expected a positive integer, found 0",
        ),
        (
            config_error(FINAL_RESPONSE_MATCH_V2, json!({"threshold": 1, "judge_model_options": {"num_sample": 2}})),
            "criteria.final_response_match_v2.judge_model_options.num_sample: unknown option",
        ),
        (
            config_error(RELEVANCY, json!({"threshold": 1, "judge_model_options": {"judge_model_config": {"temperature": 0}}})),
            "criteria.relevancy.judge_model_options.judge_model_config: not supported",
        ),
        (
            config_error(RELEVANCY, json!({"threshold": 1, "judge_model_options": 3})),
            "criteria.relevancy.judge_model_options: expected an object",
        ),
        (
            config_error(RELEVANCY, json!({"threshold": 1, "rubrics": []})),
            "criteria.relevancy.rubrics: not a setting of a judge metric",
        ),
        (
            config_error(RELEVANCY, json!({"threshold": 1, "judge_prompt": "{response}"})),
            "criteria.relevancy.judge_prompt: `relevancy` has its own prompt",
        ),
        (
            config_error(FAITHFULNESS, json!({"threshold": 1, "judge_model_options": {"num_samples": 5}})),
            "criteria.faithfulness.judge_model_options.num_samples: `faithfulness` asks the judge once per statement",
        ),
        (
            config_error(RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1, json!({"threshold": 1, "rubrics": [{"rubric_id": "a"}]})),
            "criteria.rubric_based_final_response_quality_v1.rubrics[0]: missing field `rubric_content`",
        ),
        (
            config_error(RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1, json!({"threshold": 1, "rubrics": [
                {"rubric_id": "a", "rubric_content": {"text_property": "A"}},
                {"rubric_id": "a", "rubric_content": {"text_property": "B"}}]})),
            "criteria.rubric_based_final_response_quality_v1.rubrics[1].rubric_id: `a` is used twice",
        ),
        (
            config_error(RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1, json!({"threshold": 1, "rubrics": [
                {"rubric_id": "a", "rubric_content": {"text_property": "A"}, "weight": 2}]})),
            "criteria.rubric_based_final_response_quality_v1.rubrics[0].weight: not a rubric field",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "Is {answer} polite? {response}", "reply": "yes_no"})),
            "criteria.tone.judge_prompt: unknown placeholder {answer}",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "Is it polite? {query}", "reply": "yes_no"})),
            "criteria.tone.judge_prompt: the prompt never shows the judge the response",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "{response}"})),
            "criteria.tone.reply: missing",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "{response}", "reply": "YES/NO"})),
            "criteria.tone.reply: expected \"yes_no\" or \"score_json\"",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "{response}", "reply": "score_json", "score_range": [5, 1]})),
            "criteria.tone.score_range: expected [lowest, highest]",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "{response}", "reply": "yes_no", "score_range": [1, 5]})),
            "criteria.tone.score_range: only a \"score_json\" reply has a score range",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "{response}", "reply": "yes_no", "rubric": "x"})),
            "criteria.tone.rubric: not a setting of a judge metric",
        ),
    ];
    for (error, expected) in errors {
        assert!(
            error.starts_with(expected),
            "{error}\n  should start with\n{expected}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs from invocations, and ADK's prompts byte for byte

/// Prompts google-adk 2.13 built for these invocations (`conformance/adk_judge_prompts.py`).
#[test]
fn adk_prompts_are_byte_identical() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adk_judge_prompts.json");
    let scenarios: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(scenarios.len(), 2);
    for scenario in scenarios {
        let name = scenario["name"].as_str().unwrap();
        let actual: Invocation = serde_json::from_value(scenario["actual"].clone()).unwrap();
        let expected: Invocation = serde_json::from_value(scenario["expected"].clone()).unwrap();
        let include = scenario["include_intermediate_responses_in_final"]
            .as_bool()
            .unwrap();
        let input = JudgeInput::new(&actual, Some(&expected), &[], include);
        let criterion = json!({
            "threshold": 0.5,
            "include_intermediate_responses_in_final": include,
            "judge_model_options": {"num_samples": 1},
            "rubrics": scenario["criterion_rubrics"],
        });
        for metric_name in [FINAL_RESPONSE_MATCH_V2, RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1] {
            let mut criterion = criterion.clone();
            if metric_name == FINAL_RESPONSE_MATCH_V2 {
                criterion.as_object_mut().unwrap().remove("rubrics");
            }
            let judge = replies_in_turn(&["no label"]);
            evaluate(&metric(metric_name, criterion), &input, &judge);
            assert_eq!(
                judge.prompts()[0],
                scenario[metric_name].as_str().unwrap(),
                "{name}: {metric_name}"
            );
        }
    }
}

#[test]
fn inputs_read_both_intermediate_data_forms() {
    let events: Invocation = serde_json::from_value(json!({
        "user_content": {"parts": [{"text": "Order 42?"}]},
        "final_response": {"parts": [{"text": "Shipped."}]},
        "intermediate_data": {"invocation_events": [
            {"author": "a", "content": {"parts": [{"text": "Checking."}, {"function_call": {"id": "1", "name": "get_order_status", "args": {"id": 42}}}]}},
            {"author": "a", "content": {"parts": [{"function_response": {"id": "1", "name": "get_order_status", "response": {"status": "shipped"}}}]}}
        ]},
        "rubrics": [{"rubric_id": "own", "rubric_content": {"text_property": "x"}}]
    }))
    .unwrap();
    let tool_uses: Invocation = serde_json::from_value(json!({
        "user_content": {"parts": [{"text": "Order 42?"}]},
        "final_response": {"parts": [{"text": "It shipped."}]},
        "intermediate_data": {
            "tool_uses": [{"id": "1", "name": "get_order_status", "args": {"id": 42}}],
            "tool_responses": [{"id": "1", "name": "get_order_status", "response": {"status": "shipped"}}],
            "intermediate_responses": [["a", [{"text": "One moment."}]]]
        },
        "rubrics": [{"rubric_id": "expected", "rubric_content": {"text_property": "y"}}]
    }))
    .unwrap();
    let case_rubrics = [rubric("case", "z")];
    let input = JudgeInput::new(&events, Some(&tool_uses), &case_rubrics, false);
    assert_eq!(input.query, "Order 42?");
    assert_eq!(input.response, "Shipped.");
    assert_eq!(input.reference.as_deref(), Some("It shipped."));
    assert_eq!(input.context, ["get_order_status: {\"status\":\"shipped\"}"]);
    let ids: Vec<&str> = input.rubrics.iter().map(|r| r.rubric_id.as_str()).collect();
    assert_eq!(ids, ["own", "case", "expected"]);

    let with_intermediate = JudgeInput::new(&events, Some(&tool_uses), &[], true);
    assert_eq!(with_intermediate.response, "Checking.\nShipped.");
    assert_eq!(
        with_intermediate.reference.as_deref(),
        Some("One moment.\nIt shipped.")
    );
    let reversed = JudgeInput::new(&tool_uses, None, &[], false);
    assert_eq!(reversed.context, input.context);
    assert_eq!(reversed.reference, None);
}

// ---------------------------------------------------------------------------------------------
// Evidence as stored: the exact JSON text (keys in order) that runs keep and the REST API returns

/// The evidence as results store it, checked to read back as the same typed judge evidence.
fn evidence_text(score: &InvocationScore) -> String {
    let evidence = score.evidence.as_ref().expect("evidence");
    let text = serde_json::to_string(evidence).unwrap();
    let read: Evidence = serde_json::from_str(&text).unwrap();
    assert!(
        matches!(read, Evidence::Judge(_)),
        "{text} reads back as {read:?}"
    );
    assert_eq!(&read, evidence);
    text
}

#[test]
fn evidence_of_votes_keeps_each_reply_its_reading_and_the_tally() {
    let relevancy = metric(
        RELEVANCY,
        json!({"threshold": 1.0, "judge_model_options": {"num_samples": 3}}),
    );
    let score = evaluate(&relevancy, &input(), &replies_in_turn(&["Yes", "NO", "perhaps"]));
    assert_eq!(
        evidence_text(&score),
        r#"{"samples":[{"reply":"Yes","verdict":"yes"},{"reply":"NO","verdict":"no"},{"reply":"perhaps","problem":"the judge's reply was neither yes nor no"}],"votes":{"yes":1,"no":1,"unread":1}}"#
    );

    let v2 = metric(
        FINAL_RESPONSE_MATCH_V2,
        json!({"threshold": 0.5, "judge_model_options": {"num_samples": 3}}),
    );
    let valid = "{\"reasoning\": \"ok\", \"is_the_agent_response_valid\": \"valid\"}";
    let score = evaluate(&v2, &input(), &replies_in_turn(&[valid, "Invalid", "I refuse."]));
    assert_eq!(
        evidence_text(&score),
        r#"{"samples":[{"reply":"{\"reasoning\": \"ok\", \"is_the_agent_response_valid\": \"valid\"}","verdict":{"label":"valid","parser":"adk"}},{"reply":"Invalid","verdict":{"label":"invalid","parser":"tolerant"}},{"reply":"I refuse.","problem":"the judge's reply has no \"is_the_agent_response_valid\" label"}],"votes":{"yes":1,"no":1,"unread":1}}"#
    );
}

#[test]
fn evidence_of_a_failed_request_keeps_what_the_judge_answered() {
    let calls = Mutex::new(0);
    let judge = ScriptedJudge::new(move |_| {
        let mut n = calls.lock().unwrap();
        *n += 1;
        if *n == 2 {
            Err("down".to_string())
        } else {
            Ok("yes".to_string())
        }
    });
    let correctness = metric(
        ANSWER_CORRECTNESS,
        json!({"threshold": 1.0, "judge_model_options": {"num_samples": 3}}),
    );
    assert_eq!(
        evidence_text(&evaluate(&correctness, &input(), &judge)),
        r#"{"samples":[{"reply":"yes"},{"error":"down"},{"reply":"yes"}]}"#
    );
}

#[test]
fn evidence_of_scores_keeps_each_score_and_feedback() {
    let custom = metric(
        "grounded",
        json!({"threshold": 0.5, "judge_prompt": "{response}", "reply": "score_json", "score_range": [1, 5],
               "judge_model_options": {"num_samples": 3}}),
    );
    let judge = replies_in_turn(&[
        "{\"score\": 5, \"feedback\": \"good\"}",
        "{\"score\": 3}",
        "no idea",
    ]);
    assert_eq!(
        evidence_text(&evaluate(&custom, &input(), &judge)),
        r#"{"samples":[{"reply":"{\"score\": 5, \"feedback\": \"good\"}","score":1.0,"feedback":"good"},{"reply":"{\"score\": 3}","score":0.5,"feedback":null},{"reply":"no idea","problem":"the judge's reply has no JSON object with a \"score\""}]}"#
    );
}

#[test]
fn evidence_of_rubrics_keeps_each_rubric_and_each_reply() {
    let rubric_metric = metric(
        RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1,
        json!({"threshold": 0.5, "judge_model_options": {"num_samples": 2}, "rubrics": [
            {"rubric_id": "concise", "rubric_content": {"text_property": "The answer is concise."}},
            {"rubric_id": "units", "rubric_content": {"text_property": "Temperatures say °C."}}
        ]}),
    );
    let replies = [
        rubric_reply(&[("concise", "x", "yes"), ("units", "x", "unsure")]),
        rubric_reply(&[
            ("concise", "x", "yes"),
            ("concise", "x", "no"),
            ("units", "x", "no"),
        ]),
    ];
    let replies: Vec<&str> = replies.iter().map(String::as_str).collect();
    let score = evaluate(&rubric_metric, &input(), &replies_in_turn(&replies));
    assert_eq!(
        evidence_text(&score),
        r#"{"rubrics":[{"rubric_id":"concise","text":"The answer is concise.","score":1.0,"rationale":"because yes","votes":{"yes":2,"no":1,"unread":0}},{"rubric_id":"units","text":"Temperatures say °C.","score":0.0,"rationale":"because no","votes":{"yes":0,"no":1,"unread":1}}],"samples":[{"reply":"ID: concise\nProperty: x\nEvidence: e\nRationale: because yes\nVerdict: yes\n\nID: units\nProperty: x\nEvidence: e\nRationale: because unsure\nVerdict: unsure\n","rubric_scores":{"concise":1.0,"units":null}},{"reply":"ID: concise\nProperty: x\nEvidence: e\nRationale: because yes\nVerdict: yes\n\nID: concise\nProperty: x\nEvidence: e\nRationale: because no\nVerdict: no\n\nID: units\nProperty: x\nEvidence: e\nRationale: because no\nVerdict: no\n","rubric_scores":{"concise":0.0,"units":0.0}}]}"#
    );
}

#[test]
fn evidence_of_context_items_keeps_each_item_and_its_reply() {
    let precision = metric(CONTEXT_PRECISION, json!({"threshold": 0.5}));
    let three = JudgeInput {
        context: vec!["A".into(), "B".into(), "C".into()],
        ..input()
    };
    let judge = ScriptedJudge::new(|prompt: &str| {
        if prompt.contains("Context:\nA\n") {
            Ok("Yes.".to_string())
        } else if prompt.contains("Context:\nB\n") {
            Ok("dunno".to_string())
        } else {
            Err("down".to_string())
        }
    });
    assert_eq!(
        evidence_text(&evaluate(&precision, &three, &judge)),
        r#"{"items":[{"context":"A","useful":true,"reply":"Yes."},{"context":"B","reply":"dunno","problem":"the judge's reply was neither yes nor no"},{"context":"C","error":"down"}],"answer":"reference"}"#
    );
    let judge = ScriptedJudge::new(|_: &str| Ok("no".to_string()));
    let score = evaluate(
        &precision,
        &JudgeInput {
            reference: None,
            ..three
        },
        &judge,
    );
    assert_eq!(
        evidence_text(&score),
        r#"{"items":[{"context":"A","useful":false,"reply":"no"},{"context":"B","useful":false,"reply":"no"},{"context":"C","useful":false,"reply":"no"}],"answer":"response"}"#
    );
}

#[test]
fn evidence_of_statements_keeps_the_list_and_each_check() {
    let faithfulness = metric(FAITHFULNESS, json!({"threshold": 0.5}));
    let judge = ScriptedJudge::new(|prompt: &str| {
        if prompt.starts_with("Break the text") {
            Ok("[\"A.\", \"B.\", \"C.\", \"D.\"]".to_string())
        } else if prompt.contains("Claim:\nA.") {
            Ok("Yes".to_string())
        } else if prompt.contains("Claim:\nB.") {
            Ok("No".to_string())
        } else if prompt.contains("Claim:\nC.") {
            Ok("hmm".to_string())
        } else {
            Err("down".to_string())
        }
    });
    assert_eq!(
        evidence_text(&evaluate(&faithfulness, &input(), &judge)),
        r#"{"statements_reply":"[\"A.\", \"B.\", \"C.\", \"D.\"]","statements":[{"statement":"A.","supported":true,"reply":"Yes"},{"statement":"B.","supported":false,"reply":"No"},{"statement":"C.","reply":"hmm","problem":"the judge's reply was neither yes nor no"},{"statement":"D.","error":"down"}]}"#
    );
    let no_context = JudgeInput {
        context: Vec::new(),
        ..input()
    };
    let judge = replies_in_turn(&["[\"A.\"]"]);
    assert_eq!(
        evidence_text(&evaluate(&faithfulness, &no_context, &judge)),
        r#"{"statements_reply":"[\"A.\"]","statements":[{"statement":"A.","supported":false,"reply":null}]}"#
    );
    let judge = replies_in_turn(&["[]"]);
    assert_eq!(
        evidence_text(&evaluate(&faithfulness, &input(), &judge)),
        r#"{"statements_reply":"[]","statements":[]}"#
    );
    let judge = replies_in_turn(&["It is sunny."]);
    assert_eq!(
        evidence_text(&evaluate(&faithfulness, &input(), &judge)),
        r#"{"statements_reply":"It is sunny."}"#
    );
}

/// Answers G-Eval's steps request with two steps, counting them, and every scoring prompt with
/// `score`.
fn g_eval_judge(score: &'static str) -> ScriptedJudge<impl Fn(&str) -> Result<String, String> + Send + Sync> {
    ScriptedJudge::new(move |prompt| {
        Ok(if prompt.contains("Write 3 or 4 short evaluation steps") {
            "```json\n{\"steps\": [\"Check the city.\", \"Check the temperature.\"]}\n```".to_string()
        } else {
            score.to_string()
        })
    })
}

#[test]
fn g_eval_writes_its_steps_once_and_scores_each_turn_by_them() {
    let judged = metric(
        "correct",
        json!({"threshold": 0.5, "criteria": "The answer is right.", "evaluation_params": ["input", "actual_output", "expected_output", "TOOLS_CALLED"]}),
    );
    let judge = g_eval_judge(r#"{"score": 8, "reason": "Right city."}"#);
    // Two turns of one case and one of another: one steps request, three scoring ones.
    let clone = judged.clone();
    for metric in [&judged, &judged, &clone] {
        let score = block_on(evaluate_judge_metric(metric, &input(), &judge));
        assert_eq!(score.score, Some(7.0 / 9.0), "{score:?}");
        let evidence = score.evidence.unwrap();
        assert_eq!(
            evidence.judge().unwrap().steps.as_deref(),
            Some(
                &[
                    "Check the city.".to_string(),
                    "Check the temperature.".to_string()
                ][..]
            )
        );
    }
    let prompts = judge.prompts();
    assert_eq!(prompts.len(), 4);
    assert!(
        prompts[0].contains("The answer is right.")
            && prompts[0].contains("Input, Actual Output, Expected Output and Tool Calls")
    );
    let scoring = &prompts[1];
    assert!(
        scoring.contains("1. Check the city.\n2. Check the temperature."),
        "{scoring}"
    );
    assert!(
        scoring.contains("Input:\nWhat's the weather in Paris?"),
        "{scoring}"
    );
    assert!(
        scoring.contains("Expected Output:\nSunny, 25 degrees."),
        "{scoring}"
    );

    // Steps from the config are used as they are.
    let given = metric(
        "g_eval",
        json!({"threshold": 0.5, "evaluation_steps": ["Is it polite?"], "evaluation_params": ["actual_output"]}),
    );
    let judge = g_eval_judge(r#"{"score": 10, "reason": "Polite."}"#);
    assert_eq!(
        block_on(evaluate_judge_metric(&given, &input(), &judge)).score,
        Some(1.0)
    );
    assert_eq!(judge.prompts().len(), 1);
}

#[test]
fn g_eval_says_why_it_could_not_score() {
    let judged = metric(
        "clear",
        json!({"threshold": 0.5, "criteria": "Clear.", "evaluation_params": ["expected_output"]}),
    );
    // No steps in the reply: NOT_EVALUATED quoting it, and the next turn asks again.
    let judge = replies_in_turn(&[
        "I think it is fine",
        r#"{"steps": ["Read it."]}"#,
        r#"{"score": 11}"#,
    ]);
    let first = block_on(evaluate_judge_metric(&judged, &input(), &judge));
    assert_eq!(first.score, None);
    assert!(first.reason.unwrap().contains("replied `I think it is fine`"));
    let second = block_on(evaluate_judge_metric(&judged, &input(), &judge));
    assert_eq!(
        second.reason.as_deref(),
        Some("the judge's score 11 is outside 1 to 10")
    );
    // A part the turn does not have.
    let mut no_reference = input();
    no_reference.reference = None;
    let third = block_on(evaluate_judge_metric(&judged, &no_reference, &g_eval_judge("{}")));
    assert!(third.reason.unwrap().contains("has no expected final response"));
}

#[test]
fn g_eval_settings_are_checked() {
    assert_eq!(
        config_error("g_eval", json!({"threshold": 0.5})),
        "criteria.g_eval.criteria: missing; G-Eval needs the criterion in plain words (or evaluation_steps)"
    );
    assert!(config_error(
        "x",
        json!({"criteria": "c", "evaluation_params": ["input", "mood"]})
    )
    .starts_with("criteria.x.evaluation_params[1]: \"mood\" is not one of input, actual_output"));
    assert!(
        config_error("x", json!({"criteria": "c", "judge_prompt": "p {response}"}))
            .contains("give either judge_prompt or criteria")
    );
    assert!(
        config_error("x", json!({"criteria": "c", "evaluation_steps": []}))
            .contains("expected a list of steps")
    );
    assert!(config_error("x", json!({"criteria": "c", "rubric": "r"}))
        .contains("criteria, evaluation_params, evaluation_steps"));
}
