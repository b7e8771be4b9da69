use super::*;
use crate::evalset::{parse_evalset_file, EvalSet, Invocation, LegacyDefaults};
use futures::executor::block_on;
use serde_json::{json, Value};

// ---- Porter stemmer ----

/// (word, stem) pairs printed by NLTK 3.10.4's `PorterStemmer().stem` (NLTK_EXTENSIONS): every
/// step and rule of the paper, NLTK's irregular forms and special cases, short words, digits.
const NLTK_STEMS: &[(&str, &str)] = &[
    ("caresses", "caress"),
    ("ponies", "poni"),
    ("ties", "tie"),
    ("dies", "die"),
    ("flies", "fli"),
    ("caress", "caress"),
    ("cats", "cat"),
    ("feed", "feed"),
    ("agreed", "agre"),
    ("plastered", "plaster"),
    ("bled", "bled"),
    ("motoring", "motor"),
    ("sing", "sing"),
    ("conflated", "conflat"),
    ("troubled", "troubl"),
    ("sized", "size"),
    ("hopping", "hop"),
    ("tanned", "tan"),
    ("falling", "fall"),
    ("hissing", "hiss"),
    ("fizzed", "fizz"),
    ("failing", "fail"),
    ("filing", "file"),
    ("happy", "happi"),
    ("sky", "sky"),
    ("enjoy", "enjoy"),
    ("spy", "spi"),
    ("spied", "spi"),
    ("died", "die"),
    ("cried", "cri"),
    ("relational", "relat"),
    ("conditional", "condit"),
    ("rational", "ration"),
    ("valenci", "valenc"),
    ("hesitanci", "hesit"),
    ("digitizer", "digit"),
    ("conformabli", "conform"),
    ("radicalli", "radic"),
    ("differentli", "differ"),
    ("vileli", "vile"),
    ("analogousli", "analog"),
    ("vietnamization", "vietnam"),
    ("predication", "predic"),
    ("operator", "oper"),
    ("feudalism", "feudal"),
    ("decisiveness", "decis"),
    ("hopefulness", "hope"),
    ("callousness", "callous"),
    ("formaliti", "formal"),
    ("sensitiviti", "sensit"),
    ("sensibiliti", "sensibl"),
    ("fulli", "fulli"),
    ("geology", "geolog"),
    ("archaeology", "archaeolog"),
    ("triplicate", "triplic"),
    ("formative", "form"),
    ("formalize", "formal"),
    ("electriciti", "electr"),
    ("electrical", "electr"),
    ("hopeful", "hope"),
    ("goodness", "good"),
    ("revival", "reviv"),
    ("allowance", "allow"),
    ("inference", "infer"),
    ("airliner", "airlin"),
    ("gyroscopic", "gyroscop"),
    ("adjustable", "adjust"),
    ("defensible", "defens"),
    ("irritant", "irrit"),
    ("replacement", "replac"),
    ("adjustment", "adjust"),
    ("dependent", "depend"),
    ("adoption", "adopt"),
    ("homologou", "homolog"),
    ("communism", "commun"),
    ("activate", "activ"),
    ("angulariti", "angular"),
    ("homologous", "homolog"),
    ("effective", "effect"),
    ("bowdlerize", "bowdler"),
    ("probate", "probat"),
    ("rate", "rate"),
    ("cease", "ceas"),
    ("controll", "control"),
    ("roll", "roll"),
    ("dying", "die"),
    ("lying", "lie"),
    ("tying", "tie"),
    ("skies", "sky"),
    ("news", "news"),
    ("innings", "inning"),
    ("inning", "inning"),
    ("outings", "outing"),
    ("outing", "outing"),
    ("cannings", "canning"),
    ("canning", "canning"),
    ("howe", "howe"),
    ("proceed", "proceed"),
    ("exceed", "exceed"),
    ("succeed", "succeed"),
    ("proceeding", "proceed"),
    ("exceeded", "exceed"),
    ("quickly", "quickli"),
    ("happily", "happili"),
    ("generously", "gener"),
    ("friendliness", "friendli"),
    ("kindness", "kind"),
    ("sensational", "sensat"),
    ("national", "nation"),
    ("operational", "oper"),
    ("international", "intern"),
    ("generalization", "gener"),
    ("organizational", "organiz"),
    ("a", "a"),
    ("at", "at"),
    ("is", "is"),
    ("be", "be"),
    ("by", "by"),
    ("was", "wa"),
    ("yes", "ye"),
    ("the", "the"),
    ("sunny", "sunni"),
    ("degrees", "degre"),
    ("temperatures", "temperatur"),
    ("weather", "weather"),
    ("paris", "pari"),
    ("device", "devic"),
    ("eed", "eed"),
    ("ied", "i"),
    ("ies", "i"),
    ("ly", "ly"),
    ("ness", "ness"),
    ("yyyy", "yyyi"),
    ("syzygy", "syzygi"),
    ("toy", "toy"),
    ("trees", "tree"),
    ("ivy", "ivi"),
    ("troubles", "troubl"),
    ("private", "privat"),
    ("oaten", "oaten"),
    ("orrery", "orreri"),
    ("oats", "oat"),
    ("tree", "tree"),
    ("y", "y"),
    ("tr", "tr"),
    ("ee", "ee"),
    ("abilities", "abil"),
    ("ability", "abil"),
    ("running", "run"),
    ("runs", "run"),
    ("ran", "ran"),
    ("connection", "connect"),
    ("connections", "connect"),
    ("connective", "connect"),
    ("connected", "connect"),
    ("connecting", "connect"),
    ("connectivity", "connect"),
    ("agreement", "agreement"),
    ("agreements", "agreement"),
    ("multiplication", "multipl"),
    ("1990s", "1990"),
    ("2nd", "2nd"),
    ("x25", "x25"),
    ("abc1", "abc1"),
    ("caring", "care"),
    ("cared", "care"),
    ("size", "size"),
    ("sizes", "size"),
    ("fly", "fli"),
    ("flying", "fli"),
];

#[test]
fn stems_as_nltk_does() {
    let wrong: Vec<String> = NLTK_STEMS
        .iter()
        .filter(|(word, nltk)| stem(word) != *nltk)
        .map(|(word, nltk)| format!("{word}: nltk {nltk}, ours {}", stem(word)))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

// ---- ROUGE-1 (response_match_score) ----

fn assert_close(actual: f64, expected: f64) {
    assert!((actual - expected).abs() < 1e-9, "{actual} != {expected}");
}

#[test]
fn rouge_design_vectors() {
    let f = rouge1_fmeasure(
        "The weather in Paris is sunny and 25 degrees.",
        "It is sunny in Paris with temperatures of 25 degrees.",
    );
    let four_places = |x: f64| (x * 1e4).round() / 1e4;
    assert_eq!(four_places(f), 0.6316);
    assert_eq!(f, 0.631578947368421); // bit-identical to ADK's
    let cjk = rouge1_fmeasure("你好世界", "你好");
    assert_eq!((four_places(cjk), cjk), (0.6667, 0.6666666666666666));
    assert_eq!(rouge1_fmeasure("device 2", "device_2"), 1.0);
}

#[test]
fn rouge_values_from_adk() {
    // (candidate, reference, ADK's F-measure) from google-adk 2.13 `_calculate_rouge_1_scores`.
    let cases = [
        ("", "", 0.0),
        ("hello", "", 0.0),
        ("Ｈｅｌｌｏ ① ﬁne", "hello 1 fine", 1.0),
        ("café naïve Straße", "CAFÉ NAÏVE STRASSE", 0.6666666666666666),
        ("สวัสดีครับ", "สวัสดี", 0.7272727272727273),
        ("ΟΔΟΣ οδός", "οδος", 0.6666666666666666),
        ("running runs ran", "run", 0.5),
        ("Σ🅐 x", "σ a x", 0.8),
    ];
    for (candidate, reference, adk) in cases {
        assert_eq!(
            rouge1_fmeasure(candidate, reference),
            adk,
            "{candidate:?} vs {reference:?}"
        );
    }
}

#[test]
fn tokenizes_as_adk() {
    // From ADK's `_UnicodeAwareTokenizer(use_stemmer=True).tokenize`.
    let cases: [(&str, &[&str]); 6] = [
        (
            "The weather in Paris is sunny and 25 degrees.",
            &[
                "the", "weather", "in", "pari", "is", "sunni", "and", "25", "degre",
            ],
        ),
        ("你好世界", &["你", "好", "世", "界"]),
        ("device_2", &["devic", "2"]),
        ("สวัสดีครับ", &["ส", "วั", "ส", "ดี", "ค", "รั", "บ"]),
        // Final sigma lowercases to ς; the negative circled A is a symbol, not a letter.
        ("ΟΔΟΣ Σ🅐 x", &["οδος", "σ", "x"]),
        ("café STRASSE Straße", &["café", "strass", "straße"]),
    ];
    for (text, tokens) in cases {
        assert_eq!(tokenize(text), tokens, "{text:?}");
    }
    assert_eq!(tokenize("ΟΔΟΣ")[0].chars().last(), Some('ς'));
}

#[test]
fn response_text_keeps_thoughts_and_skips_empty_parts() {
    let content: crate::evalset::Content = serde_json::from_value(json!({
        "parts": [{"text": "a"}, {"text": ""}, {"thought": true, "text": "b"}, {"function_call": {"name": "f"}}]
    }))
    .unwrap();
    assert_eq!(response_text(Some(&content)), "a\nb");
    assert_eq!(response_text(None), "");
}

// ---- tool trajectories ----

fn invocation(calls: Value) -> Invocation {
    serde_json::from_value(json!({
        "user_content": {"parts": [{"text": "q"}]},
        "intermediate_data": {"tool_uses": calls},
    }))
    .unwrap()
}

fn call(name: &str, args: Value) -> Value {
    json!({"name": name, "args": args})
}

fn trajectory(actual: Value, expected: Value, match_type: MatchType, ignore_args: bool) -> f64 {
    let criterion = TrajectoryCriterion {
        match_type,
        ignore_args,
    };
    tool_trajectory_score(&invocation(actual), &invocation(expected), criterion)
}

#[test]
fn exact_match_needs_same_calls_in_same_order() {
    let (a, b, c) = (
        call("a", json!({})),
        call("b", json!({"x": 1})),
        call("c", json!({})),
    );
    let exact = |actual, expected| trajectory(actual, expected, MatchType::Exact, false);
    assert_eq!(exact(json!([a, b]), json!([a, b])), 1.0);
    assert_eq!(exact(json!([b, a]), json!([a, b])), 0.0);
    assert_eq!(exact(json!([a, b, c]), json!([a, b])), 0.0);
    assert_eq!(exact(json!([]), json!([])), 1.0);
    assert_eq!(exact(json!([a]), json!([])), 0.0);
}

#[test]
fn in_order_match_allows_extra_calls_between() {
    let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| call(n, json!({})));
    let in_order = |actual, expected| trajectory(actual, expected, MatchType::InOrder, false);
    assert_eq!(in_order(json!([a, d, b, d, c]), json!([a, b, c])), 1.0);
    assert_eq!(in_order(json!([a, c, b]), json!([a, b, c])), 0.0);
    assert_eq!(in_order(json!([a, b]), json!([a, b, c])), 0.0);
    assert_eq!(in_order(json!([]), json!([])), 1.0);
    assert_eq!(in_order(json!([a]), json!([])), 1.0);
    assert_eq!(in_order(json!([]), json!([a])), 0.0);
    assert_eq!(in_order(json!([a, a]), json!([a, a])), 1.0);
    assert_eq!(in_order(json!([a]), json!([a, a])), 0.0);
}

#[test]
fn any_order_match_is_multiset_containment() {
    let [a, b, c] = ["a", "b", "c"].map(|n| call(n, json!({})));
    let any_order = |actual, expected| trajectory(actual, expected, MatchType::AnyOrder, false);
    assert_eq!(any_order(json!([c, b, a]), json!([a, b])), 1.0);
    assert_eq!(any_order(json!([a, b]), json!([a, a])), 0.0);
    assert_eq!(any_order(json!([a, c, a]), json!([a, a])), 1.0);
    assert_eq!(any_order(json!([b]), json!([])), 1.0);
    assert_eq!(any_order(json!([]), json!([a])), 0.0);
}

#[test]
fn ignore_args_compares_names_only() {
    let actual = json!([call("get_weather", json!({"city": "Paris"}))]);
    let expected = json!([call("get_weather", json!({"city": "Rome"}))]);
    for match_type in MatchType::ALL {
        assert_eq!(
            trajectory(actual.clone(), expected.clone(), match_type, false),
            0.0
        );
        assert_eq!(
            trajectory(actual.clone(), expected.clone(), match_type, true),
            1.0
        );
    }
    let other_tool = json!([call("get_time", json!({"city": "Rome"}))]);
    assert_eq!(trajectory(other_tool, expected, MatchType::Exact, true), 0.0);
}

#[test]
fn args_compare_as_python_compares_parsed_json() {
    let same = |a: Value, b: Value| {
        trajectory(
            json!([call("f", a)]),
            json!([call("f", b)]),
            MatchType::Exact,
            false,
        ) == 1.0
    };
    assert!(same(json!({"n": 1}), json!({"n": 1.0})));
    assert!(same(json!({"n": 0}), json!({"n": -0.0})));
    assert!(same(json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1})));
    assert!(same(
        json!({"q": {"z": [1, {"y": null}], "a": true}}),
        json!({"q": {"a": true, "z": [1.0, {"y": null}]}})
    ));
    // Python's bool is an int: True == 1 == 1.0.
    assert!(same(json!({"flag": true}), json!({"flag": 1.0})));
    assert!(!same(json!({"flag": true}), json!({"flag": 2})));
    assert!(!same(json!({"n": 1}), json!({"n": 1.5})));
    assert!(!same(json!({"n": "1"}), json!({"n": 1})));
    assert!(!same(json!({"l": [1, 2]}), json!({"l": [2, 1]})));
    assert!(!same(json!({"a": 1}), json!({"a": 1, "b": null})));
    assert!(!same(
        json!({"n": 9007199254740993u64}),
        json!({"n": 9007199254740992.0})
    ));
    assert!(same(
        json!({"n": 9007199254740992u64}),
        json!({"n": 9007199254740992.0})
    ));
}

#[test]
fn call_ids_are_ignored_and_null_args_differ_from_empty() {
    let with_id = json!([{"id": "call-1", "name": "f", "args": {"a": 1}}]);
    let without = json!([{"name": "f", "args": {"a": 1}}]);
    assert_eq!(trajectory(with_id, without, MatchType::Exact, false), 1.0);
    let no_args = json!([{"name": "f"}]);
    let null_args = json!([{"name": "f", "args": null}]);
    let empty_args = json!([{"name": "f", "args": {}}]);
    assert_eq!(
        trajectory(no_args.clone(), null_args, MatchType::Exact, false),
        1.0
    );
    assert_eq!(
        trajectory(no_args.clone(), empty_args.clone(), MatchType::Exact, false),
        0.0
    );
    assert_eq!(trajectory(no_args, empty_args, MatchType::Exact, true), 1.0);
}

#[test]
fn tool_calls_come_from_invocation_events_too() {
    let events: Invocation = serde_json::from_value(json!({
        "user_content": {"parts": [{"text": "q"}]},
        "intermediate_data": {"invocation_events": [
            {"author": "agent", "content": {"parts": [
                {"text": "let me look"}, {"function_call": {"name": "a", "args": {"x": 1}}}]}},
            {"author": "agent", "content": {"parts": [{"function_response": {"name": "a", "response": {}}}]}},
            {"author": "agent"},
            {"author": "agent", "content": {"parts": [{"function_call": {"id": "7", "name": "b", "args": {}}}]}},
        ]},
    }))
    .unwrap();
    let uses = invocation(json!([call("a", json!({"x": 1.0})), call("b", json!({}))]));
    let exact = TrajectoryCriterion::default();
    assert_eq!(tool_trajectory_score(&events, &uses, exact), 1.0);
    let no_data: Invocation = serde_json::from_value(json!({"user_content": {"parts": []}})).unwrap();
    assert_eq!(
        tool_trajectory_score(&no_data, &invocation(json!([])), exact),
        1.0
    );
    assert_eq!(tool_trajectory_score(&no_data, &uses, exact), 0.0);
}

// ---- eval config ----

#[test]
fn default_config_is_adks() {
    let config = EvalConfig::default();
    let metrics: Vec<(&str, Option<f64>)> = config
        .metrics
        .iter()
        .map(|m| (m.name.as_str(), (!m.is_informational()).then_some(m.threshold)))
        .collect();
    // The thresholds of ADK's default, then its informational metrics, appended to every eval.
    assert_eq!(
        metrics,
        [
            (TOOL_TRAJECTORY_AVG_SCORE, Some(1.0)),
            (RESPONSE_MATCH_SCORE, Some(0.8)),
            (TOOL_CALL_COUNT_V1, None),
            (INFERENCE_CALL_COUNT_V1, None),
            (TOKEN_USAGE_V1, None),
            (INVOCATION_DURATION_V1, None),
        ]
    );
    // They are implied, so a config written out does not name them.
    assert_eq!(EvalConfig::parse(&config.to_json().to_string()).unwrap(), config);
    assert!(!config.to_json().to_string().contains("_v1"));
}

#[test]
fn informational_metrics_cannot_be_configured() {
    let error = |text: &str| EvalConfig::parse(text).unwrap_err().to_string();
    assert!(error(r#"{"criteria": {"token_usage_v1": 100}}"#)
        .starts_with("criteria.token_usage_v1: `token_usage_v1` does not support a threshold"));
    assert!(error(r#"{"criteria": {"latency_ms": 2000}}"#)
        .contains("`latency_ms` is reported on every eval as `invocation_duration_v1`"));
}

#[test]
fn parses_thresholds_and_criteria() {
    let config = EvalConfig::parse(
        r#"{"criteria": {
            "response_match_score": 0.5,
            "tool_trajectory_avg_score": {"threshold": 1, "matchType": "in-order", "ignore_args": true, "note": "x"}
        }, "user_simulator_config": {"model": "m"}}"#,
    )
    .unwrap();
    assert_eq!(config.metrics[0].name, RESPONSE_MATCH_SCORE);
    assert_eq!(config.metrics[0].kind, MetricKind::ResponseMatch);
    assert_eq!(
        Value::Object(config.metrics[0].criterion.clone()),
        json!({"threshold": 0.5, "include_intermediate_responses_in_final": false})
    );
    let trajectory = &config.metrics[1];
    assert_eq!(trajectory.threshold, 1.0);
    assert_eq!(
        trajectory.kind,
        MetricKind::ToolTrajectory(TrajectoryCriterion {
            match_type: MatchType::InOrder,
            ignore_args: true
        })
    );
    // As ADK's BaseCriterion dumps it: known fields first, then the others as written.
    assert_eq!(
        serde_json::to_string(&trajectory.criterion).unwrap(),
        r#"{"threshold":1.0,"include_intermediate_responses_in_final":false,"matchType":"in-order","ignore_args":true,"note":"x"}"#
    );
    for (written, match_type) in [
        ("\" any order \"", MatchType::AnyOrder),
        ("2", MatchType::AnyOrder),
        ("0", MatchType::Exact),
    ] {
        let text = format!(
            r#"{{"criteria": {{"tool_trajectory_avg_score": {{"threshold": 1, "match_type": {written}}}}}}}"#
        );
        let kind = EvalConfig::parse(&text).unwrap().metrics.remove(0).kind;
        assert_eq!(
            kind,
            MetricKind::ToolTrajectory(TrajectoryCriterion {
                match_type,
                ignore_args: false
            })
        );
    }
    assert!(EvalConfig::parse("{}")
        .unwrap()
        .metrics
        .iter()
        .all(|m| m.is_informational()));
}

#[test]
fn config_errors_name_the_field() {
    let error = |text: &str| EvalConfig::parse(text).unwrap_err().to_string();
    assert!(error(r#"{"criteria": {"tool_trajectory_avg_scor": 1}}"#)
        .contains("criteria.tool_trajectory_avg_scor: unknown metric `tool_trajectory_avg_scor`"));
    assert!(error(r#"{"criteria": {"response_match_score": "0.8"}}"#)
        .contains("criteria.response_match_score: expected a threshold (a number)"));
    assert!(
        error(r#"{"criteria": {"response_match_score": {"threshold": true}}}"#)
            .contains("criteria.response_match_score.threshold: the threshold must be a number, found true")
    );
    assert!(
        error(r#"{"criteria": {"response_match_score": {"match_type": "EXACT"}}}"#)
            .contains("criteria.response_match_score.threshold: missing")
    );
    assert!(error(
        r#"{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "exactly"}}}"#
    )
    .contains("criteria.tool_trajectory_avg_score.match_type: \"exactly\" is not a match type"));
    assert!(
        error(r#"{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": 3}}}"#)
            .contains("match_type: 3 is not a match type")
    );
    assert!(
        error(r#"{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "ignore_args": "yes"}}}"#)
            .contains("criteria.tool_trajectory_avg_score.ignore_args: expected true or false")
    );
    assert!(error(r#"{"criteria": {"safety_v1": {"threshold": 0.5}}}"#)
        .contains("ADK's `safety_v1` is scored by Vertex AI's SAFETY on Google Cloud, which Evalstudio does not call; use `safety`"));
    assert!(error(r#"{"criteria": {"multi_turn_task_success_v1": 0.5}}"#).contains("use `task_success`"));
    assert!(error(
        r#"{"criteria": {"mine": 0.5}, "custom_metrics": {"mine": {"code_config": {"name": "m.f"}}}}"#
    )
    .contains("custom_metrics.mine: custom metrics are not supported yet"));
    assert!(error(r#"{"criteria": [1]}"#).contains("criteria: expected an object"));
    assert!(error(r#"[1]"#).contains("expected an object"));
    assert!(error(r#"{"criteria": {"#).contains("not valid JSON"));
}

#[test]
fn adk_fixture_configs_parse_or_say_what_is_missing() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adk");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let home = EvalConfig::parse(&read("home_automation__test_config.json")).unwrap();
    let thresholds: Vec<f64> = home
        .metrics
        .iter()
        .filter(|m| !m.is_informational())
        .map(|m| m.threshold)
        .collect();
    assert_eq!(thresholds, [1.0, 0.5]);
    let scenario = EvalConfig::parse(&read("conversation_scenario__test_config.json")).unwrap();
    assert_eq!(scenario.metrics[0].name, "hallucinations_v1");
    assert_eq!(scenario.metrics[0].threshold, 0.8);
    assert_eq!(scenario.simulator.max_allowed_invocations, 10);
}

// ---- statuses, scoring and runs ----

#[test]
fn case_status_walks_metrics_in_order() {
    use EvalStatus::*;
    assert_eq!(EvalStatus::of_case([]), NotEvaluated);
    assert_eq!(EvalStatus::of_case([NotEvaluated, NotEvaluated]), NotEvaluated);
    assert_eq!(EvalStatus::of_case([NotEvaluated, Passed]), Passed);
    assert_eq!(EvalStatus::of_case([Passed, Failed, Passed]), Failed);
    assert_eq!(EvalStatus::of_case([Informational, Passed]), Passed);
    assert_eq!(EvalStatus::from_score(0.8, 0.8), Passed);
    assert_eq!(EvalStatus::from_score(0.7999999999999999, 0.8), Failed);
}

#[test]
fn exact_mean_rounds_once_like_python_statistics_mean() {
    // statistics.mean gives exactly these; a running sum gives 0.7999999999999999 and 0.8000000000000002.
    assert_eq!(exact_mean(&[0.7, 0.8, 0.9]), Some(0.8));
    assert_eq!(exact_mean(&[0.8, 0.8, 0.8]), Some(0.8));
    assert_eq!(exact_mean(&[0.75, 1.0 / 3.0, 1.0, 1.0]), Some(0.7708333333333334));
    assert_eq!(exact_mean(&[1.0, 0.0, 0.0]), Some(1.0 / 3.0));
    // Values from Python 3.11's statistics.mean, ties going to even at the bottom of the range.
    assert_eq!(exact_mean(&[5e-324, 0.0]), Some(0.0));
    assert_eq!(exact_mean(&[1.5e-323, 0.0]), Some(1e-323));
    assert_eq!(exact_mean(&[5e-324, 5e-324, 5e-324, 0.0]), Some(5e-324));
    assert_eq!(
        exact_mean(&[9007199254740992.0, 9007199254740996.0, 1.0]),
        Some(6004799503160663.0)
    );
    assert_eq!(exact_mean(&[-0.5, 0.25]), Some(-0.125));
    assert_eq!(exact_mean(&[1e300, 1e300]), Some(1e300));
    assert_eq!(exact_mean(&[]), None);
}

fn eval_set(cases: Value) -> EvalSet {
    let text = json!({"eval_set_id": "set", "eval_cases": cases}).to_string();
    let mut new_id = || "inv".to_string();
    let legacy = LegacyDefaults {
        name: "set",
        file_name: "set.json",
        now: 0.0,
        new_invocation_id: &mut new_id,
    };
    parse_evalset_file(&text, legacy).unwrap().0
}

fn turn(response: &str, calls: Value) -> Value {
    json!({
        "user_content": {"parts": [{"text": "q"}]},
        "final_response": {"role": "model", "parts": [{"text": response}]},
        "intermediate_data": {"tool_uses": calls},
    })
}

#[test]
fn scores_runs_into_adk_results() {
    let weather = call("get_weather", json!({"city": "Paris"}));
    let expected = eval_set(json!([
        {"eval_id": "one", "conversation": [turn("It is sunny in Paris.", json!([weather])), turn("Bye", json!([]))],
         "session_input": {"app_name": "demo", "user_id": "ana"}},
        {"eval_id": "two", "conversation": [turn("Done", json!([]))]},
    ]));
    let run1 = eval_set(json!([
        {"eval_id": "two", "conversation": [turn("Done", json!([]))]},
        {"eval_id": "one", "conversation": [turn("It is sunny in Paris.", json!([weather])), turn("Bye", json!([weather]))]},
    ]));
    let run2 = eval_set(json!([
        {"eval_id": "one", "conversation": [turn("Sunny in Paris", json!([weather])), turn("Bye", json!([]))]},
        {"eval_id": "two", "conversation": [turn("Something else", json!([]))]},
    ]));
    let scored = block_on(score_eval_set(
        &expected,
        vec![run1, run2],
        &EvalConfig::default(),
        &ScoringServices::default(),
    ))
    .unwrap();
    assert_eq!(scored.case_results.len(), 4);

    let first = &scored.case_results[0];
    assert_eq!(
        (first.eval_id.as_str(), first.user_id.as_deref()),
        ("one", Some("ana"))
    );
    let overall: Vec<(Option<f64>, EvalStatus)> = first
        .overall_eval_metric_results
        .iter()
        .map(|m| (m.score, m.eval_status))
        .collect();
    // Then the informational metrics: one tool call per turn; no usage or timing recorded.
    assert_eq!(
        overall,
        [
            (Some(0.5), EvalStatus::Failed),
            (Some(1.0), EvalStatus::Passed),
            (Some(1.0), EvalStatus::Informational),
            (None, EvalStatus::Informational),
            (None, EvalStatus::Informational),
            (None, EvalStatus::Informational),
        ]
    );
    assert_eq!(first.final_eval_status, EvalStatus::Failed);
    let per_invocation: Vec<Vec<Option<f64>>> = first
        .eval_metric_result_per_invocation
        .iter()
        .map(|i| i.eval_metric_results.iter().map(|m| m.score).collect())
        .collect();
    assert_eq!(
        per_invocation,
        [
            [Some(1.0), Some(1.0), Some(1.0), None, None, None],
            [Some(0.0), Some(1.0), Some(1.0), None, None, None]
        ]
    );
    assert_eq!(scored.case_results[1].user_id.as_deref(), Some("test_user_id"));
    assert_eq!(scored.case_results[1].final_eval_status, EvalStatus::Passed);

    // Over both runs: trajectory (1 + 0 + 1 + 1) / 4, ROUGE (1 + 1 + F("Sunny in Paris") + 1) / 4.
    let one = &scored.summaries[0];
    assert_eq!((one.eval_id.as_str(), one.num_runs), ("one", 2));
    assert_eq!(one.metrics[0].score, Some(0.75));
    assert_eq!(one.metrics[0].eval_status, EvalStatus::Failed);
    let sunny = rouge1_fmeasure("Sunny in Paris", "It is sunny in Paris.");
    assert_close(one.metrics[1].score.unwrap(), (3.0 + sunny) / 4.0);
    assert_eq!(one.final_eval_status, EvalStatus::Failed);
    let two = &scored.summaries[1];
    assert_eq!(two.metrics[1].score, Some(0.5));
    assert_eq!(two.metrics[1].eval_status, EvalStatus::Failed);
    // Informational over runs: the mean when some turn had a value (tool calls per turn over
    // both runs: 1, 1, 1 and 0), INFORMATIONAL either way.
    let informational: Vec<(Option<f64>, Option<f64>, EvalStatus)> = one.metrics[2..]
        .iter()
        .map(|m| (m.threshold, m.score, m.eval_status))
        .collect();
    assert_eq!(
        informational,
        [
            (None, Some(0.75), EvalStatus::Informational),
            (None, None, EvalStatus::Informational),
            (None, None, EvalStatus::Informational),
            (None, None, EvalStatus::Informational),
        ]
    );
}

#[test]
fn result_json_has_adks_shape() {
    let expected = eval_set(json!([{"eval_id": "c", "conversation": [turn("Hello there", json!([]))]}]));
    let scored = block_on(score_eval_set(
        &expected,
        vec![expected.clone()],
        &EvalConfig::default(),
        &ScoringServices::default(),
    ))
    .unwrap();
    let result = EvalSetResult::new("demo", "set", scored, 1700000000.5);
    let value = serde_json::to_value(&result).unwrap();
    assert_eq!(value["eval_set_result_id"], "demo_set_1700000000.5");
    let case = &value["eval_case_results"][0];
    assert_eq!(case["final_eval_status"], 1);
    assert_eq!(case["eval_set_file"], "set");
    assert_eq!(case["session_id"], "");
    assert!(case["eval_metric_results"].is_null() && case["session_details"].is_null());
    let metric = &case["overall_eval_metric_results"][1];
    assert_eq!(
        metric,
        &json!({
            "metric_name": "response_match_score", "threshold": 0.8,
            "criterion": {"threshold": 0.8, "include_intermediate_responses_in_final": false},
            "custom_function_path": null, "score": 1.0, "eval_status": 1,
            "details": {"rubric_scores": null, "token_usage_details": null, "duration_details": null},
        })
    );
    let invocation = &case["eval_metric_result_per_invocation"][0];
    assert_eq!(
        invocation["actual_invocation"]["final_response"]["parts"][0]["text"],
        "Hello there"
    );
    assert_eq!(invocation["eval_metric_results"][0]["eval_status"], 1);
    assert_eq!(value["case_summaries"][0]["metrics"][0]["score"], 1.0);
}

#[test]
fn cases_without_scores_are_not_evaluated() {
    let expected = eval_set(json!([
        {"eval_id": "empty", "conversation": []},
        {"eval_id": "scenario", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask"}},
    ]));
    let actual = eval_set(json!([
        {"eval_id": "empty", "conversation": []},
        {"eval_id": "scenario", "conversation": [turn("hello", json!([]))]},
    ]));
    let scored = block_on(score_eval_set(
        &expected,
        vec![actual],
        &EvalConfig::default(),
        &ScoringServices::default(),
    ))
    .unwrap();
    for case in &scored.case_results {
        assert_eq!(
            case.final_eval_status,
            EvalStatus::NotEvaluated,
            "{}",
            case.eval_id
        );
        assert!(case
            .overall_eval_metric_results
            .iter()
            .filter(|m| m.threshold.is_some())
            .all(|m| m.score.is_none()));
    }
    let scenario = &scored.case_results[1].eval_metric_result_per_invocation;
    assert_eq!(scenario.len(), 1);
    assert!(scenario[0].expected_invocation.is_none());
    assert_eq!(
        scenario[0].eval_metric_results[0].eval_status,
        EvalStatus::NotEvaluated
    );
    assert_eq!(scored.summaries[1].final_eval_status, EvalStatus::NotEvaluated);
}

#[test]
fn mismatched_runs_are_errors_naming_the_case() {
    let expected = eval_set(json!([{"eval_id": "a", "conversation": [turn("x", json!([]))]}]));
    let score = |actual: Value| {
        block_on(score_eval_set(
            &expected,
            vec![expected.clone(), eval_set(actual)],
            &EvalConfig::default(),
            &ScoringServices::default(),
        ))
        .unwrap_err()
    };
    let missing = score(json!([]));
    assert_eq!(
        (missing.run, missing.problem.as_str()),
        (1, "eval case `a` is missing")
    );
    let extra = score(json!([
        {"eval_id": "a", "conversation": [turn("x", json!([]))]},
        {"eval_id": "b", "conversation": []},
    ]));
    assert_eq!(extra.to_string(), "eval case `b` is not in the expected eval set");
    let turns =
        score(json!([{"eval_id": "a", "conversation": [turn("x", json!([])), turn("y", json!([]))]}]));
    assert_eq!(
        turns.to_string(),
        "eval case `a` has 2 invocations where the expected case has 1"
    );
    let scenario = score(json!([
        {"eval_id": "a", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask"}},
    ]));
    assert!(scenario
        .to_string()
        .contains("eval case `a` has no conversation to score"));
}

#[test]
fn adk_fixtures_score_perfectly_against_themselves() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adk");
    for name in [
        "simple_test.test.json",
        "simple_multi_turn_conversation.test.json",
        "trip_inquiry.test.json",
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let mut new_id = || "inv".to_string();
        let legacy = LegacyDefaults {
            name: "fixture",
            file_name: name,
            now: 0.0,
            new_invocation_id: &mut new_id,
        };
        let (set, _) = parse_evalset_file(&text, legacy).unwrap();
        let scored = block_on(score_eval_set(
            &set,
            vec![set.clone()],
            &EvalConfig::default(),
            &ScoringServices::default(),
        ))
        .unwrap();
        for summary in &scored.summaries {
            assert_eq!(
                summary.final_eval_status,
                EvalStatus::Passed,
                "{name}: {}",
                summary.eval_id
            );
            assert!(
                summary
                    .metrics
                    .iter()
                    .filter(|m| m.threshold.is_some())
                    .all(|m| m.score == Some(1.0)),
                "{name}"
            );
        }
    }
}

// ---- partial credit, pass@k ----

fn calls_invocation(calls: Value) -> Invocation {
    serde_json::from_value(json!({
        "invocation_id": "i",
        "user_content": {"role": "user", "parts": [{"text": "q"}]},
        "intermediate_data": {"tool_uses": calls}
    }))
    .unwrap()
}

#[test]
fn trajectory_shares_count_each_call_once() {
    let expected = calls_invocation(json!([
        {"name": "a", "args": {"x": 1}}, {"name": "a", "args": {"x": 1}}, {"name": "b", "args": {}}
    ]));
    // One `a` matched twice would not count twice; `c` is extra; the args of the other `b` differ.
    let actual = calls_invocation(json!([
        {"name": "a", "args": {"x": 1.0}}, {"name": "c", "args": {}}, {"name": "b", "args": {"y": 2}}
    ]));
    let share = |share, ignore_args| trajectory_share(&actual, &expected, share, ignore_args);
    assert_eq!(share(TrajectoryShare::Precision, false), 1.0 / 3.0);
    assert_eq!(share(TrajectoryShare::Recall, false), 1.0 / 3.0);
    assert!((share(TrajectoryShare::F1, false) - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(share(TrajectoryShare::Precision, true), 2.0 / 3.0);
    assert_eq!(share(TrajectoryShare::Recall, true), 2.0 / 3.0);

    let empty = calls_invocation(json!([]));
    assert_eq!(trajectory_share(&empty, &empty, TrajectoryShare::F1, false), 1.0);
    assert_eq!(
        trajectory_share(&actual, &empty, TrajectoryShare::Precision, false),
        0.0
    );
    assert_eq!(
        trajectory_share(&actual, &empty, TrajectoryShare::Recall, false),
        1.0
    );
    assert_eq!(trajectory_share(&actual, &empty, TrajectoryShare::F1, false), 0.0);
    assert_eq!(
        trajectory_share(&empty, &expected, TrajectoryShare::Recall, false),
        0.0
    );
    assert_eq!(tool_used(&actual, "c"), 1.0);
    assert_eq!(tool_used(&actual, "d"), 0.0);
}

#[test]
fn partial_credit_metrics_parse_and_score() {
    let config = EvalConfig::parse(
        r#"{"criteria": {
            "tool_trajectory_recall": {"threshold": 0.5, "ignore_args": true},
            "tool_single_use": {"threshold": 1, "tool_name": "b"}
        }}"#,
    )
    .unwrap();
    assert_eq!(
        config.metrics[0].kind,
        MetricKind::TrajectoryShare {
            share: TrajectoryShare::Recall,
            ignore_args: true
        }
    );
    let case = |calls: Value| {
        json!({"eval_id": "c", "conversation": [
            {"invocation_id": "1", "user_content": {"role": "user", "parts": [{"text": "q"}]},
             "intermediate_data": {"tool_uses": calls}},
            {"invocation_id": "2", "user_content": {"role": "user", "parts": [{"text": "r"}]},
             "intermediate_data": {"tool_uses": []}}
        ]})
    };
    let expected = eval_set(json!([case(
        json!([{"name": "a", "args": {}}, {"name": "b", "args": {}}])
    )]));
    let actual = eval_set(json!([case(json!([{"name": "b", "args": {"z": 1}}]))]));
    let scored = block_on(score_eval_set(
        &expected,
        vec![actual],
        &config,
        &ScoringServices::default(),
    ))
    .unwrap();
    let result = &scored.case_results[0];
    // Recall: 1/2 on the first turn, 1 on the empty second turn; the mean passes 0.5.
    assert_eq!(result.overall_eval_metric_results[0].score, Some(0.75));
    // The tool was used in one of the two turns: the conversation used it.
    assert_eq!(result.overall_eval_metric_results[1].score, Some(1.0));
    let per_turn: Vec<Option<f64>> = result
        .eval_metric_result_per_invocation
        .iter()
        .map(|i| i.eval_metric_results[1].score)
        .collect();
    assert_eq!(per_turn, [Some(1.0), Some(0.0)]);
    assert_eq!(result.final_eval_status, EvalStatus::Passed);

    let error = EvalConfig::parse(r#"{"criteria": {"tool_single_use": 1}}"#).unwrap_err();
    assert!(error
        .to_string()
        .contains("criteria.tool_single_use.tool_name: missing"));
    let error = EvalConfig::parse(r#"{"criteria": {"tool_single_use": {"threshold": 1, "tool_name": 3}}}"#)
        .unwrap_err();
    assert!(error
        .to_string()
        .contains("criteria.tool_single_use.tool_name: expected the tool's name, found 3"));
}

#[test]
fn pass_at_k_and_pass_hat_k() {
    // 3 runs, 1 passed: pass@1 = 1/3, pass@2 = 1 - C(2,2)/C(3,2) = 2/3, pass@3 = 1;
    // pass^1 = 1/3, pass^2 = C(1,2)/C(3,2) = 0.
    let (at, hat) = pass_at_and_hat_k(3, 1);
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-12);
    assert!(close(&at, &[1.0 / 3.0, 2.0 / 3.0, 1.0]), "{at:?}");
    assert!(close(&hat, &[1.0 / 3.0, 0.0, 0.0]), "{hat:?}");
    assert_eq!(pass_at_and_hat_k(4, 4), (vec![1.0; 4], vec![1.0; 4]));
    assert_eq!(pass_at_and_hat_k(2, 0), (vec![0.0; 2], vec![0.0; 2]));
    // Large run counts do not overflow.
    let (at, hat) = pass_at_and_hat_k(100, 50);
    assert!(at[99] == 1.0 && hat[99] == 0.0 && (at[0] - 0.5).abs() < 1e-12);
}

#[test]
fn a_case_with_an_agent_error_fails_its_summary() {
    let config = EvalConfig::default();
    let run = |status, error| CaseRunScores {
        final_eval_status: status,
        error,
        metric_scores: vec![vec![Some(1.0)], vec![Some(1.0)]],
    };
    let summary = summarize_case(
        "c",
        &[run(EvalStatus::Passed, false), run(EvalStatus::Passed, true)],
        &config,
    );
    assert_eq!(summary.final_eval_status, EvalStatus::Failed);
    assert_eq!((summary.passed_runs, summary.errors), (1, 1));
    assert_eq!(summary.pass_at_k, [0.5, 1.0]);
    assert_eq!(summary.pass_hat_k, [0.5, 0.0]);
}

#[test]
fn configs_round_trip_and_come_from_rest_metric_lists() {
    let text = r#"{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "IN_ORDER"}, "response_match_score": 0.7}}"#;
    let config = EvalConfig::parse(text).unwrap();
    assert_eq!(EvalConfig::parse(&config.to_json().to_string()).unwrap(), config);
    let from_rest = EvalConfig::from_eval_metrics(&[
        json!({"metricName": "tool_trajectory_avg_score", "criterion": {"threshold": 1, "match_type": "IN_ORDER"}}),
        json!({"metric_name": "response_match_score", "threshold": 0.7}),
    ])
    .unwrap();
    assert_eq!(from_rest, config);
    let error = EvalConfig::from_eval_metrics(&[json!({"threshold": 1})]).unwrap_err();
    assert_eq!(error.to_string(), "eval_metrics[0].metric_name: missing");
    let error = EvalConfig::from_eval_metrics(&[json!({"metricName": "response_match_score"})]).unwrap_err();
    assert_eq!(error.to_string(), "eval_metrics[0].threshold: missing");
}

#[test]
fn metrics_picked_in_the_browser_take_their_criterion_options() {
    // Every metric the picker offers runs with its default threshold and prefilled options.
    for info in metric_infos(ServerModels::default()) {
        let picked = [(
            info.metric_name.as_str(),
            info.default_threshold,
            info.criterion_options.as_deref(),
        )];
        let config = EvalConfig::from_picked(picked);
        assert!(config.is_ok(), "{}: {config:?}", info.metric_name);
    }
    let text = r#"{"criteria": {"tool_trajectory_avg_score": {"threshold": 0.5, "match_type": "IN_ORDER"}, "tool_single_use": {"threshold": 1.0, "tool_name": "get_weather"}}}"#;
    let picked = EvalConfig::from_picked([
        (
            "tool_trajectory_avg_score",
            0.5,
            Some(r#"{"match_type": "IN_ORDER", "threshold": 0.9}"#),
        ),
        ("tool_single_use", 1.0, Some(r#" {"tool_name": "get_weather"} "#)),
    ])
    .unwrap();
    assert_eq!(
        picked,
        EvalConfig::parse(text).unwrap(),
        "the threshold field wins"
    );

    let error = |options: &str| {
        EvalConfig::from_picked([("tool_single_use", 1.0, Some(options))])
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error(r#"{"tool_name": }"#),
        "tool_single_use options: not valid JSON: expected value at line 1 column 15"
    );
    assert_eq!(
        error("[]"),
        "tool_single_use options: expected a JSON object of criterion keys, found a list"
    );
    assert!(
        error("{}").starts_with("tool_single_use options.tool_name: missing"),
        "{}",
        error("{}")
    );
    // A prompt on a built-in metric would be ignored, so it is refused.
    let built_in = EvalConfig::from_picked([("response_match_score", 0.8, Some(CUSTOM_JUDGE_EXAMPLE))]);
    assert!(built_in.unwrap_err().to_string().starts_with(
        "response_match_score options.judge_prompt: `response_match_score` is a built-in metric"
    ),);
    let in_a_file = r#"{"criteria": {"final_response_match_v2": {"threshold": 1, "judge_prompt": "{response}", "reply": "yes_no"}}}"#;
    assert!(EvalConfig::parse(in_a_file)
        .unwrap_err()
        .to_string()
        .starts_with("criteria.final_response_match_v2.judge_prompt:"));

    // A custom judge is any other name with a prompt; one name cannot be picked twice.
    let custom = EvalConfig::from_picked([("polite", 1.0, Some(CUSTOM_JUDGE_EXAMPLE))]).unwrap();
    assert!(
        matches!(&custom.metrics[0].kind, MetricKind::Judge(judge) if matches!(judge.kind, JudgeKind::Custom(_)))
    );
    let twice = EvalConfig::from_picked([("polite", 1.0, Some(CUSTOM_JUDGE_EXAMPLE)), ("polite", 0.5, None)]);
    assert_eq!(
        twice.unwrap_err().to_string(),
        "polite: picked twice; give each metric a name of its own"
    );
}

#[test]
fn evaluator_criteria_name_a_url_or_a_declared_evaluator() {
    use crate::eval::evaluators::{EvaluatorTarget, HttpTarget};
    let config = EvalConfig::parse(
        r#"{"criteria": {
            "db": {"threshold": 1, "evaluator": "orders_written", "table": "orders"},
            "style": {"threshold": 0.5, "url": "http://127.0.0.1:9000/score", "timeout_secs": 2.5, "retries": 0}
        }}"#,
    )
    .unwrap();
    assert_eq!(
        config.metrics[0].kind,
        MetricKind::Evaluator(EvaluatorTarget::Named("orders_written".into()))
    );
    assert_eq!(
        config.metrics[0].criterion["table"], "orders",
        "the user's own keys reach the evaluator"
    );
    assert_eq!(
        config.metrics[1].kind,
        MetricKind::Evaluator(EvaluatorTarget::Http(HttpTarget {
            url: "http://127.0.0.1:9000/score".into(),
            timeout: std::time::Duration::from_millis(2500),
            retries: 0,
        }))
    );
    let error = |criteria: &str| {
        EvalConfig::parse(&format!(r#"{{"criteria": {criteria}}}"#))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error(r#"{"x": {"threshold": 1, "url": "file:///etc/passwd"}}"#),
        r#"criteria.x.url: expected an http:// or https:// URL, found "file:///etc/passwd""#
    );
    assert!(error(r#"{"x": {"threshold": 1, "url": "http://h", "evaluator": "e"}}"#).ends_with("not both"));
    assert!(
        error(r#"{"x": {"threshold": 1, "url": "http://h", "retries": 99}}"#)
            .starts_with("criteria.x.retries:")
    );
    assert!(
        error(r#"{"response_match_score": {"threshold": 1, "evaluator": "e"}}"#)
            .contains("is a built-in metric")
    );
    assert!(error(r#"{"x": {"threshold": 1, "command": "rm -rf /"}}"#)
        .starts_with("criteria.x.command: commands run only from evalstudio.toml"));
}
