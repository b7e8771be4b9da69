"""Random test data from a seed: texts, words for the stemmer, tool calls, invocations, eval sets."""

import copy
import random

from english_words import get_english_words_set

SUFFIXES = [
    "s", "es", "ies", "sses", "ss", "ed", "eed", "ied", "ing", "y", "ly", "ily", "ness", "ful", "fulness",
    "ational", "tional", "enci", "anci", "izer", "bli", "abli", "alli", "entli", "eli", "ousli",
    "ization", "ation", "ator", "alism", "iveness", "ousness", "aliti", "iviti", "biliti", "fulli",
    "logi", "logy", "icate", "ative", "alize", "iciti", "ical", "al", "ance", "ence", "er", "ic",
    "able", "ible", "ant", "ement", "ment", "ent", "sion", "tion", "ou", "ism", "ate", "iti", "ous",
    "ive", "ize", "e", "ll", "at", "bl", "iz", "ated", "izing", "bling",
]

SCRIPT_SAMPLES = [
    "สวัสดีครับ", "ภาษาไทย", "กรุงเทพมหานคร", "น้ำ", "ไม่เป็นไร", "ສະບາຍດີ", "សួស្តី", "မင်္ဂလာပါ",
    "नमस्ते दुनिया", "مرحبا بالعالم", "שלום עולם", "Привет МИР", "ΟΔΟΣ Σοφία ΣΟΦΟΣ", "İstanbul ıi",
    "Straße STRASSE ẞ", "Tiếng Việt", "cafe\u0301", "café", "naïve", "Ærøskøbing", "ﬁne ﬀ ﬃ",
    "ＡＢＣ１２３", "①②⑳", "x²", "½", "Ⅻ", "㎏", "℃", "™", "ſ", "µ", "Ǆ", "㍻", "ｶﾀｶﾅ", "ﾊﾟ",
    "😀", "👍🏽", "👨\u200d👩\u200d👧", "🅐🅑", "Ⓐⓑ", "\u200b", "\u200d", "\ufeff", "\u00ad",
    "naïve123", "café_au_lait", "日本語abc", "abc日本", "e-mail", "don't", "C++", "node.js",
    "user@example.com", "https://example.com/a_b?c=1", "device_2", "snake_case_name", "東京タワー",
    "こんにちは世界", "카타카나 한국어", "你好，世界！", "２５度", "25°C", "３．１４",
]

PUNCTUATION = list(".,!?;:'\"()[]{}-_/\\@#$%^&*+=<>|~`…—–«»¿¡、。「」")
SEPARATORS = [" ", " ", " ", "", ", ", "\n", "\t", "\u00a0", "\u3000", "\u2028", "  "]


def english_vocabulary() -> list[str]:
    return sorted(w for w in get_english_words_set(["web2"], lower=True) if w.isascii() and w.isalpha())


def random_cjk(rng: random.Random) -> str:
    low, high = rng.choice([(0x4E00, 0x9FFC), (0x3041, 0x3096), (0x30A1, 0x30FA), (0xAC00, 0xD7A3)])
    return "".join(chr(rng.randint(low, high)) for _ in range(rng.randint(1, 4)))


def random_segment(rng: random.Random, vocabulary: list[str]) -> str:
    kind = rng.random()
    if kind < 0.45:
        word = rng.choice(vocabulary)
        if rng.random() < 0.4:
            word += rng.choice(SUFFIXES)
        return rng.choice([word, word, word.title(), word.upper()])
    if kind < 0.55:
        return rng.choice([str(rng.randint(0, 3000)), f"{rng.uniform(0, 100):.2f}", "1,000", "3.14",
                           "2nd", "1990s", "-5", "v2.0", "x86", "mp3s", "0", "007"])
    if kind < 0.65:
        return "".join(rng.choice(PUNCTUATION) for _ in range(rng.randint(1, 3)))
    if kind < 0.78:
        return random_cjk(rng)
    return rng.choice(SCRIPT_SAMPLES)


def random_text(rng: random.Random, vocabulary: list[str]) -> str:
    if rng.random() < 0.04:
        return rng.choice(["", " ", "\n", "...", "\u200b"])
    parts = [random_segment(rng, vocabulary) for _ in range(rng.randint(1, 14))]
    text = parts[0]
    for part in parts[1:]:
        text += rng.choice(SEPARATORS) + part
    return text


def mutate_text(rng: random.Random, text: str, vocabulary: list[str]) -> str:
    words = text.split(" ")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        i = rng.randrange(len(words)) if words else 0
        if op == 0 and words:
            del words[i]
        elif op == 1 and words:
            words.insert(i, words[i])
        elif op == 2 and len(words) > 1:
            j = rng.randrange(len(words))
            words[i], words[j] = words[j], words[i]
        elif op == 3 and words:
            words[i] = words[i].upper() if rng.random() < 0.5 else words[i] + rng.choice(SUFFIXES)
        elif op == 4:
            words.insert(i, random_segment(rng, vocabulary))
        elif op == 5 and words:
            words[i] = words[i] + rng.choice(PUNCTUATION)
        elif op == 6 and words:
            words[i] = rng.choice(vocabulary)
    return " ".join(words)


def text_pairs(rng: random.Random, vocabulary: list[str], count: int) -> list[tuple[str, str]]:
    """(candidate, reference) pairs: the design vectors, then random ones, mostly near misses."""
    pairs = [
        ("The weather in Paris is sunny and 25 degrees.", "It is sunny in Paris with temperatures of 25 degrees."),
        ("你好世界", "你好"),
        ("device 2", "device_2"),
        ("", ""),
        ("", "reference only"),
        ("candidate only", ""),
    ]
    while len(pairs) < count:
        reference = random_text(rng, vocabulary)
        roll = rng.random()
        if roll < 0.1:
            candidate = reference
        elif roll < 0.75:
            candidate = mutate_text(rng, reference, vocabulary)
        else:
            candidate = random_text(rng, vocabulary)
        pairs.append((candidate, reference))
    return pairs


def stemmer_words(rng: random.Random, vocabulary: list[str]) -> list[str]:
    """Every web2 word, suffixed forms of a sample of them, and odd ASCII tokens."""
    words = list(vocabulary)
    for stem in rng.sample(vocabulary, 6000):
        words.extend(stem + suffix for suffix in rng.sample(SUFFIXES, 12))
    words += ["yyyy", "syzygy", "yyy", "ay", "ye", "abc123ing", "x86ed", "1990s", "mp3s", "ies", "ied",
              "eed", "sses", "ll", "y", "a", "is", "as", "bbbb", "ssss", "eeee", "iiii"]
    return words


def response(text: str) -> dict:
    return {"role": "model", "parts": [{"text": text}]}


def text_response(rng: random.Random, text: str) -> dict:
    """Mostly one text part; sometimes split into parts, with thoughts and empty or non-text parts."""
    if rng.random() < 0.8 or "\n" in text:
        return response(text)
    words = text.split(" ")
    cut = rng.randint(0, len(words))
    parts = [{"text": " ".join(words[:cut])}, {"text": ""}, {"function_call": {"name": "f", "args": {}}},
             {"text": " ".join(words[cut:]), "thought": rng.random() < 0.5}]
    return {"role": "model", "parts": parts}


TOOLS = ["get_weather", "convert_currency", "order_status", "search_kb", "calc"]
ARG_NAMES = ["city", "amount", "n", "flag", "q", "opts"]


def random_value(rng: random.Random, depth: int = 0):
    choices = [1, 1.0, 2, 2.5, True, False, 0, 0.0, -0.0, None, "Paris", "巴黎", "", 1e21, 10**20, 2**53 + 1,
               [1, 2], [1.0, 2.0], [], {}]
    if depth < 2 and rng.random() < 0.2:
        return {k: random_value(rng, depth + 1) for k in rng.sample(["z", "a", "m", "b"], rng.randint(1, 3))}
    if depth < 2 and rng.random() < 0.1:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return rng.choice(choices)


def random_call(rng: random.Random) -> dict:
    call = {"name": rng.choice(TOOLS)}
    roll = rng.random()
    if roll < 0.85:
        call["args"] = {k: random_value(rng) for k in rng.sample(ARG_NAMES, rng.randint(0, 3))}
    elif roll < 0.92:
        call["args"] = None
    if rng.random() < 0.3:
        call["id"] = f"call-{rng.randrange(1000)}"
    return call


def equivalent(rng: random.Random, value):
    """A value Python compares equal: int <-> float, bool -> int, keys reordered."""
    if isinstance(value, bool):
        return int(value) if rng.random() < 0.5 else value
    if isinstance(value, int) and abs(value) < 2**53:
        return float(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: equivalent(rng, value[k]) for k in keys}
    if isinstance(value, list):
        return [equivalent(rng, v) for v in value]
    return value


def mutate_calls(rng: random.Random, calls: list[dict]) -> list[dict]:
    calls = copy.deepcopy(calls)
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        op = rng.randrange(10)
        i = rng.randrange(len(calls)) if calls else 0
        if op == 0 and len(calls) > 1:
            rng.shuffle(calls)
        elif op == 1:
            calls.insert(rng.randint(0, len(calls)), random_call(rng))
        elif op == 2 and calls:
            del calls[i]
        elif op == 3 and calls:
            calls.insert(i, copy.deepcopy(calls[i]))
        elif op == 4 and calls:
            calls[i]["name"] = rng.choice(TOOLS)
        elif op == 5 and calls and calls[i].get("args"):
            key = rng.choice(list(calls[i]["args"]))
            calls[i]["args"][key] = random_value(rng)
        elif op in (6, 7) and calls:
            calls[i] = equivalent(rng, calls[i])
        elif op == 8 and calls:
            args = calls[i].get("args")
            if args is None:
                calls[i]["args"] = {}
            elif not args:
                calls[i].pop("args")
        elif op == 9 and calls:
            calls[i]["id"] = f"other-{rng.randrange(1000)}"
    return calls


def intermediate_data(rng: random.Random, calls: list[dict]) -> dict:
    """The calls as tool_uses, or as function_call parts spread over invocation events."""
    if rng.random() < 0.6:
        return {"tool_uses": calls}
    events, i = [], 0
    while i < len(calls):
        take = rng.randint(1, 2)
        parts = [{"function_call": c} for c in calls[i:i + take]]
        if rng.random() < 0.3:
            parts.insert(0, {"text": "let me check"})
        events.append({"author": "agent", "content": {"role": "model", "parts": parts}})
        for c in calls[i:i + take]:
            if rng.random() < 0.5:
                events.append({"author": "agent", "content": {"role": "user", "parts": [
                    {"function_response": {"name": c["name"], "response": {"result": 1}}}]}})
        if rng.random() < 0.2:
            events.append({"author": "agent"})
        i += take
    return {"invocation_events": events}


def invocation(user: str, final_response: dict | None, data: dict | None) -> dict:
    result = {"user_content": {"role": "user", "parts": [{"text": user}]}}
    if final_response is not None:
        result["final_response"] = final_response
    if data is not None:
        result["intermediate_data"] = data
    return result


def eval_set(eval_set_id: str, cases: list[tuple[str, list[dict]]]) -> dict:
    return {"eval_set_id": eval_set_id,
            "eval_cases": [{"eval_id": eval_id, "conversation": turns} for eval_id, turns in cases]}
