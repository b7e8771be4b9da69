//! Tests of Porter stemming, tokenizing and ROUGE-1 (response_match_score) against NLTK and ADK.

use super::*;
use pure_metrics::porter::stem;
use pure_metrics::rouge::{response_text, rouge1_fmeasure, tokenize};

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
