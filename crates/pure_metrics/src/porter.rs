//! NLTK's `PorterStemmer` in its default `NLTK_EXTENSIONS` mode (nltk 3.10, `nltk/stem/porter.py`),
//! the stemmer rouge-score runs on every token longer than three characters.
//!
//! It differs from Porter's published algorithm and from Porter2/Snowball: a pool of irregular
//! forms, `ies`/`ied` on four-letter words, `y -> i` only after a consonant, `alli`, `bli`,
//! `fulli` and `logi` in step 2, and a two-letter `*o` condition. Each step below mirrors the
//! NLTK method of the same name, including which rule wins when several suffixes match.

/// Words NLTK maps straight to a stem, skipping the steps.
const IRREGULAR_FORMS: [(&str, &str); 16] = [
    ("sky", "sky"),
    ("skies", "sky"),
    ("dying", "die"),
    ("lying", "lie"),
    ("tying", "tie"),
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
];

/// Stems one word. rouge-score only hands it lowercase ASCII tokens (`[a-z0-9]+`); other
/// ASCII is lowercased first, as NLTK does.
pub fn stem(word: &str) -> String {
    let word = word.to_ascii_lowercase();
    if let Some((_, stem)) = IRREGULAR_FORMS.iter().find(|(form, _)| *form == word) {
        return stem.to_string();
    }
    // NLTK leaves words of one or two letters alone (the paper does not say so).
    if word.len() <= 2 {
        return word;
    }
    let word = step1a(word);
    let word = step1b(word);
    let word = step1c(word);
    let word = step2(word);
    let word = step3(word);
    let word = step4(word);
    let word = step5a(word);
    step5b(word)
}

/// For each letter, whether it is a consonant: not a vowel, and a `y` only when the letter
/// before it is a vowel (or it starts the word).
fn consonant_flags(word: &str) -> Vec<bool> {
    let mut flags: Vec<bool> = Vec::with_capacity(word.len());
    for (i, letter) in word.bytes().enumerate() {
        let consonant = match letter {
            b'a' | b'e' | b'i' | b'o' | b'u' => false,
            b'y' => i == 0 || !flags[i - 1],
            _ => true,
        };
        flags.push(consonant);
    }
    flags
}

fn is_consonant(word: &str, i: usize) -> bool {
    consonant_flags(&word[..=i])[i]
}

/// Porter's m: the number of vowel-consonant sequences in `[C](VC){m}[V]`.
fn measure(stem: &str) -> usize {
    consonant_flags(stem)
        .windows(2)
        .filter(|pair| !pair[0] && pair[1])
        .count()
}

fn has_positive_measure(stem: &str) -> bool {
    measure(stem) > 0
}

fn measure_gt_1(stem: &str) -> bool {
    measure(stem) > 1
}

fn contains_vowel(stem: &str) -> bool {
    consonant_flags(stem).contains(&false)
}

/// Condition *d: the word ends with a double consonant.
fn ends_double_consonant(word: &str) -> bool {
    let bytes = word.as_bytes();
    let n = bytes.len();
    n >= 2 && bytes[n - 1] == bytes[n - 2] && is_consonant(word, n - 1)
}

/// Condition *o: the word ends consonant-vowel-consonant and the last is not w, x or y; NLTK
/// also counts a two-letter vowel-consonant word (with no w/x/y exception).
fn ends_cvc(word: &str) -> bool {
    let n = word.len();
    let flags = consonant_flags(word);
    (n >= 3 && flags[n - 3] && !flags[n - 2] && flags[n - 1] && !word.ends_with(['w', 'x', 'y']))
        || (n == 2 && !flags[0] && flags[1])
}

fn replace_suffix(word: &str, suffix: &str, replacement: &str) -> String {
    format!("{}{replacement}", &word[..word.len() - suffix.len()])
}

type Condition<'a> = &'a dyn Fn(&str) -> bool;

/// NLTK's `_apply_rule_list`: the first rule whose suffix the word ends with decides. If its
/// condition (on the word without the suffix) fails, the word is returned unchanged.
fn apply_rules(word: String, rules: &[(&str, &str, Option<Condition>)]) -> String {
    for (suffix, replacement, condition) in rules {
        if let Some(stem) = word.strip_suffix(suffix) {
            return match condition {
                Some(condition) if !condition(stem) => word,
                _ => format!("{stem}{replacement}"),
            };
        }
    }
    word
}

fn step1a(word: String) -> String {
    // NLTK: "dies" -> "die" rather than "di" ("flies" still gives "fli").
    if word.len() == 4 && word.ends_with("ies") {
        return replace_suffix(&word, "ies", "ie");
    }
    apply_rules(
        word,
        &[
            ("sses", "ss", None),
            ("ies", "i", None),
            ("ss", "ss", None),
            ("s", "", None),
        ],
    )
}

fn step1b(word: String) -> String {
    // NLTK: "died" -> "die", "spied" -> "spi", with no condition and nothing more in this step.
    if word.ends_with("ied") {
        let replacement = if word.len() == 4 { "ie" } else { "i" };
        return replace_suffix(&word, "ied", replacement);
    }
    if let Some(stem) = word.strip_suffix("eed") {
        return if measure(stem) > 0 {
            format!("{stem}ee")
        } else {
            word
        };
    }
    let Some(stem) = ["ed", "ing"]
        .iter()
        .filter_map(|suffix| word.strip_suffix(suffix))
        .find(|stem| contains_vowel(stem))
    else {
        return word;
    };
    for (suffix, replacement) in [("at", "ate"), ("bl", "ble"), ("iz", "ize")] {
        if stem.ends_with(suffix) {
            return format!("{stem}{}", &replacement[suffix.len()..]);
        }
    }
    if ends_double_consonant(stem) {
        // (*d and not (*L or *S or *Z)) -> single letter; otherwise no later rule is tried.
        return if stem.ends_with(['l', 's', 'z']) {
            stem.to_string()
        } else {
            stem[..stem.len() - 1].to_string()
        };
    }
    if measure(stem) == 1 && ends_cvc(stem) {
        format!("{stem}e")
    } else {
        stem.to_string()
    }
}

fn step1c(word: String) -> String {
    // NLTK: y -> i only after a consonant that is not the whole stem ("happy", "spy"; not "enjoy").
    let condition = |stem: &str| stem.len() > 1 && is_consonant(stem, stem.len() - 1);
    apply_rules(word, &[("y", "i", Some(&condition))])
}

fn step2(word: String) -> String {
    // NLTK applies ALLI -> AL first and then runs step 2 again on the result.
    if let Some(stem) = word.strip_suffix("alli") {
        if has_positive_measure(stem) {
            return step2(format!("{stem}al"));
        }
    }
    let m: Condition = &has_positive_measure;
    // The `l` of "logi" stays with the stem for the condition, so "geology" -> "geolog".
    let logi_condition = |_: &str| has_positive_measure(&word[..word.len() - 3]);
    let rules: [(&str, &str, Option<Condition>); 22] = [
        ("ational", "ate", Some(m)),
        ("tional", "tion", Some(m)),
        ("enci", "ence", Some(m)),
        ("anci", "ance", Some(m)),
        ("izer", "ize", Some(m)),
        ("bli", "ble", Some(m)),
        ("alli", "al", Some(m)),
        ("entli", "ent", Some(m)),
        ("eli", "e", Some(m)),
        ("ousli", "ous", Some(m)),
        ("ization", "ize", Some(m)),
        ("ation", "ate", Some(m)),
        ("ator", "ate", Some(m)),
        ("alism", "al", Some(m)),
        ("iveness", "ive", Some(m)),
        ("fulness", "ful", Some(m)),
        ("ousness", "ous", Some(m)),
        ("aliti", "al", Some(m)),
        ("iviti", "ive", Some(m)),
        ("biliti", "ble", Some(m)),
        ("fulli", "ful", Some(m)),
        ("logi", "log", Some(&logi_condition)),
    ];
    apply_rules(word.clone(), &rules)
}

fn step3(word: String) -> String {
    let m: Condition = &has_positive_measure;
    apply_rules(
        word,
        &[
            ("icate", "ic", Some(m)),
            ("ative", "", Some(m)),
            ("alize", "al", Some(m)),
            ("iciti", "ic", Some(m)),
            ("ical", "ic", Some(m)),
            ("ful", "", Some(m)),
            ("ness", "", Some(m)),
        ],
    )
}

fn step4(word: String) -> String {
    let m: Condition = &measure_gt_1;
    let ion_condition = |stem: &str| measure(stem) > 1 && stem.ends_with(['s', 't']);
    apply_rules(
        word,
        &[
            ("al", "", Some(m)),
            ("ance", "", Some(m)),
            ("ence", "", Some(m)),
            ("er", "", Some(m)),
            ("ic", "", Some(m)),
            ("able", "", Some(m)),
            ("ible", "", Some(m)),
            ("ant", "", Some(m)),
            ("ement", "", Some(m)),
            ("ment", "", Some(m)),
            ("ent", "", Some(m)),
            ("ion", "", Some(&ion_condition)),
            ("ou", "", Some(m)),
            ("ism", "", Some(m)),
            ("ate", "", Some(m)),
            ("iti", "", Some(m)),
            ("ous", "", Some(m)),
            ("ive", "", Some(m)),
            ("ize", "", Some(m)),
        ],
    )
}

fn step5a(word: String) -> String {
    // Both rules on -E are tried, unlike elsewhere: (m>1) E -> ; (m=1 and not *o) E -> .
    if let Some(stem) = word.strip_suffix('e') {
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            return stem.to_string();
        }
    }
    word
}

fn step5b(word: String) -> String {
    // (m>1 and *d and *L) -> single letter, the measure taken on the word less one `l`.
    if word.ends_with("ll") && measure_gt_1(&word[..word.len() - 1]) {
        return word[..word.len() - 1].to_string();
    }
    word
}
