"""Checks that `evalstudio score` gives the scores and statuses google-adk's own evaluators give.

It generates test data from a fixed seed: text pairs (the whole `english-words` web2 list and
suffixed forms of its words, to exercise every rule of NLTK's Porter stemmer, plus sentences
mixing punctuation, numbers, CJK, Thai and other scripts, NFKC-sensitive characters, emoji and
empty strings), tool trajectories in both intermediate-data forms (every match type, with and
without ignore_args, 1 vs 1.0, true vs 1, nested args, key order, ids, null vs empty args), and
the ADK fixtures that hold expected data. Each scenario (an expected eval set, one or more
actual runs, an eval config) is scored twice:

- by ADK: `LocalEvalService.evaluate` with the metrics of ADK's own `EvalConfig`, which runs
  `TrajectoryEvaluator` and `RougeEvaluator` and derives each case's status; across runs,
  `AgentEvaluator._process_metrics_and_get_failures`, which pools the runs' scores;
- by `evalstudio score EXPECTED ACTUAL... [--config] --json OUT`.

Every per-invocation and overall score must agree to 1e-9 and every status exactly; the result
must also load as ADK's `EvalSetResult`.

ADK's metric registry imports its Vertex AI facade, which needs pandas and the Vertex AI SDK
(the `google-adk[eval]` extra, several hundred MB). No metric compared here uses it, so a stub
module stands in for it.

Usage: python adk_metrics.py EVALSTUDIO_BIN FIXTURES_DIR
"""

import asyncio
import copy
import json
import logging
import pathlib
import random
import subprocess
import sys
import tempfile
import types
import warnings

warnings.simplefilter("ignore")  # ADK marks the eval service "experimental" on every use.
logging.getLogger("google_adk").setLevel(logging.CRITICAL)  # evaluators that raise are logged


def _stub_vertex_ai_facade() -> None:
    name = "google.adk.evaluation.vertex_ai_eval_facade"
    stub = types.ModuleType(name)

    class Unavailable:
        def __init__(self, *args, **kwargs):
            raise RuntimeError("Vertex AI metrics are not part of this check")

    stub._SingleTurnVertexAiEvalFacade = Unavailable
    stub._MultiTurnVertexiAiEvalFacade = Unavailable
    sys.modules[name] = stub


_stub_vertex_ai_facade()

from english_words import get_english_words_set  # noqa: E402
from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.evaluation.agent_evaluator import AgentEvaluator  # noqa: E402
from google.adk.evaluation.base_eval_service import (  # noqa: E402
    EvaluateConfig,
    EvaluateRequest,
    InferenceResult,
    InferenceStatus,
)
from google.adk.evaluation.eval_case import get_all_tool_calls  # noqa: E402
from google.adk.evaluation.eval_config import (  # noqa: E402
    _DEFAULT_EVAL_CONFIG,
    EvalConfig,
    get_eval_metrics_from_config,
)
from google.adk.evaluation.eval_result import EvalSetResult  # noqa: E402
from google.adk.evaluation.eval_set import EvalSet  # noqa: E402
from google.adk.evaluation.evaluator import EvalStatus  # noqa: E402
from google.adk.evaluation.in_memory_eval_sets_manager import InMemoryEvalSetsManager  # noqa: E402
from google.adk.evaluation.local_eval_service import LocalEvalService  # noqa: E402
from nltk.stem.porter import PorterStemmer  # noqa: E402

SEED = 20240611
TOLERANCE = 1e-9
APP = "conformance"

# ---------------------------------------------------------------- data generation

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


# ---------------------------------------------------------------- scenarios

class Scenario:
    """An expected eval set, one actual eval set per run, and an eval config (None: ADK's default)."""

    def __init__(self, name: str, expected: dict, runs: list[dict], config: dict | None, kind: str):
        self.name, self.expected, self.runs, self.config, self.kind = name, expected, runs, config, kind


VOCABULARY = "stemmer vocabulary"
VOCABULARY_CHUNK = 200  # words per invocation
VOCABULARY_CASE = 50  # invocations per case


def vocabulary_scenario(words: list[str]) -> Scenario:
    """Each invocation: many words against their NLTK stems, so any word we stem differently
    changes the overlap and the score."""
    stemmer = PorterStemmer()
    expected, actual = [], []
    for start in range(0, len(words), VOCABULARY_CHUNK):
        group = words[start:start + VOCABULARY_CHUNK]
        expected.append(invocation("stem", response(" ".join(stemmer.stem(w) for w in group)), None))
        actual.append(invocation("stem", response(" ".join(group)), None))

    def cases(turns):
        return [(f"vocab-{i // VOCABULARY_CASE}", turns[i:i + VOCABULARY_CASE])
                for i in range(0, len(turns), VOCABULARY_CASE)]

    return Scenario(VOCABULARY, eval_set("vocabulary", cases(expected)), [eval_set("vocabulary", cases(actual))],
                    {"criteria": {"response_match_score": 0.8}}, "text")


def text_scenario(rng: random.Random, pairs: list[tuple[str, str]], runs: int, config: dict | None) -> Scenario:
    cases, i = [], 0
    while i < len(pairs):
        size = rng.randint(1, 5)
        cases.append(pairs[i:i + size])
        i += size
    expected = eval_set("texts", [(f"text-{n}", [invocation("q", text_response(rng, ref), None) for _, ref in group])
                                  for n, group in enumerate(cases)])
    actual_runs = []
    for run in range(runs):
        turns = []
        for n, group in enumerate(cases):
            candidates = [cand if run == 0 else rng.choice([cand, ref]) for cand, ref in group]
            turns.append((f"text-{n}", [invocation("q", text_response(rng, c), None) for c in candidates]))
        actual_runs.append(eval_set("texts", turns))
    return Scenario(f"text pairs, {runs} run(s)", expected, actual_runs, config, "text")


def trajectory_scenario(rng: random.Random, name: str, config: dict | None, cases: int, runs: int) -> Scenario:
    expected_cases, calls_per_case = [], []
    for n in range(cases):
        turns, calls_list = [], []
        for _ in range(rng.randint(1, 3)):
            calls = [random_call(rng) for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4]))]
            calls_list.append(calls)
            turns.append(invocation("q", response("done"), intermediate_data(rng, calls)))
        if rng.random() < 0.05:
            turns[0].pop("intermediate_data")
            calls_list[0] = []
        expected_cases.append((f"traj-{n}", turns))
        calls_per_case.append(calls_list)
    actual_runs = []
    for _ in range(runs):
        actual_cases = []
        for n, calls_list in enumerate(calls_per_case):
            turns = []
            for calls in calls_list:
                data = None if rng.random() < 0.03 else intermediate_data(rng, mutate_calls(rng, calls))
                turns.append(invocation("q", response(rng.choice(["done", "done!", "not done"])), data))
            actual_cases.append((f"traj-{n}", turns))
        actual_runs.append(eval_set("trajectories", actual_cases))
    return Scenario(name, eval_set("trajectories", expected_cases), actual_runs, config, "trajectory")


def random_usage(rng: random.Random) -> dict:
    """A model call's usage metadata with a random subset of the counts, in either key case."""
    counts = {}
    for snake, camel in (("prompt_token_count", "promptTokenCount"), ("candidates_token_count", "candidatesTokenCount"),
                         ("thoughts_token_count", "thoughtsTokenCount"),
                         ("cached_content_token_count", "cachedContentTokenCount"),
                         ("tool_use_prompt_token_count", "toolUsePromptTokenCount")):
        if rng.random() < 0.6:
            counts[rng.choice([snake, camel])] = rng.randrange(0, 5000)
    return counts


def efficiency_invocation(rng: random.Random) -> dict:
    """A turn with model calls (usage, model version), tool calls, and timings, each sometimes missing."""
    calls = [random_call(rng) for _ in range(rng.choice([0, 1, 2, 3]))]
    if rng.random() < 0.25:
        data = {"tool_uses": calls}
    else:
        events = []
        for _ in range(rng.randint(0, 3)):
            event = {"author": "agent"}
            if rng.random() < 0.8:
                event["usage_metadata"] = random_usage(rng)
            if rng.random() < 0.4:
                event["model_version"] = "gemini-2.5-flash"
            events.append(event)
        events += [{"author": "agent", "content": {"role": "model", "parts": [{"function_call": c}]}} for c in calls]
        data = {"invocation_events": events} if events else {"tool_uses": calls}
    turn = invocation("q", response("done"), data)
    roll = rng.random()
    if roll < 0.7:
        turn["duration"] = round(rng.uniform(0, 5), 3)
    if roll < 0.5:
        # Model and tool time can overshoot the total a little, which ADK clamps to zero.
        turn["model_duration"] = round(rng.uniform(0, 4), 3)
        turn["tool_duration"] = round(rng.uniform(0, 2), 3)
    return turn


def efficiency_scenario(rng: random.Random, cases: int, runs: int) -> Scenario:
    expected = eval_set("efficiency", [(f"eff-{n}", [invocation("q", response("done"), None)] * turns)
                                       for n, turns in enumerate(rng.randint(1, 4) for _ in range(cases))])
    actual_runs = [eval_set("efficiency", [(case["eval_id"], [efficiency_invocation(rng) for _ in case["conversation"]])
                                           for case in expected["eval_cases"]]) for _ in range(runs)]
    return Scenario("informational metrics", expected, actual_runs, {"criteria": {}}, "efficiency")


def threshold_edge_scenario() -> Scenario:
    """ROUGE scores of 0.7, 0.8 and 0.9 over three runs against 0.8: a running sum gives
    0.7999999999999999, ADK's statistics.mean gives 0.8."""
    reference = " ".join(f"w{i}" for i in range(10))
    expected = eval_set("edge", [("edge", [invocation("q", response(reference), None)])])
    runs = []
    for overlap in (7, 8, 9):
        candidate = " ".join([f"w{i}" for i in range(overlap)] + [f"x{i}" for i in range(10 - overlap)])
        runs.append(eval_set("edge", [("edge", [invocation("q", response(candidate), None)])]))
    return Scenario("threshold edge", expected, runs, {"criteria": {"response_match_score": 0.8}}, "text")


def fixture_scenarios(rng: random.Random, fixtures: pathlib.Path, vocabulary: list[str]) -> list[Scenario]:
    """The fixtures with expected invocations, against themselves and against perturbed copies."""
    scenarios = []
    home_config = json.loads((fixtures / "home_automation__test_config.json").read_text())
    for path in sorted(fixtures.glob("*.json")):
        if path.name.endswith("_test_config.json"):
            continue
        text = path.read_text(encoding="utf-8")
        if text.lstrip().startswith("["):
            adk_set = AgentEvaluator._get_eval_set_from_old_format(str(path), _DEFAULT_EVAL_CONFIG, {})
            adk_set.eval_set_id = path.name.split(".")[0]
            expected = json.loads(adk_set.model_dump_json(exclude_none=True))
        else:
            expected = json.loads(text)
        cases = expected["eval_cases"]
        perturbed = copy.deepcopy(expected)
        for case in perturbed["eval_cases"]:
            if case.get("conversation_scenario"):
                case.pop("conversation_scenario")
                case["conversation"] = [invocation("hello", response("hi there"), None)]
            for turn in case.get("conversation") or []:
                final = turn.get("final_response")
                if final and final.get("parts") and rng.random() < 0.8:
                    texts = "\n".join(p.get("text") or "" for p in final["parts"])
                    turn["final_response"] = response(mutate_text(rng, texts, vocabulary))
                data = turn.get("intermediate_data")
                if data and data.get("tool_uses") is not None:
                    turn["intermediate_data"] = intermediate_data(rng, mutate_calls(rng, data["tool_uses"]))
        identical = copy.deepcopy(perturbed)
        for case, original in zip(identical["eval_cases"], cases):
            if original.get("conversation") is not None:
                case["conversation"] = copy.deepcopy(original["conversation"])
        if not any(c.get("conversation") for c in cases):
            continue  # nothing expected to compare with
        for config_name, config in (("default config", None), ("home_automation config", home_config)):
            scenarios.append(Scenario(f"fixture {path.name}, {config_name}", expected, [identical, perturbed],
                                      config, "fixture"))
    return scenarios


# ---------------------------------------------------------------- scoring with ADK

def adk_metrics(config: dict | None):
    eval_config = _DEFAULT_EVAL_CONFIG if config is None else EvalConfig.model_validate(config)
    # Including the informational efficiency metrics ADK appends to every eval.
    return get_eval_metrics_from_config(eval_config)


async def adk_case_results(scenario: Scenario, metrics) -> list[dict]:
    """One {eval_id: EvalCaseResult} per run, from ADK's LocalEvalService."""
    expected = EvalSet.model_validate(scenario.expected)
    manager = InMemoryEvalSetsManager()
    manager.create_eval_set(APP, expected.eval_set_id)
    for case in expected.eval_cases:
        manager.add_eval_case(APP, expected.eval_set_id, case)
    service = LocalEvalService(root_agent=LlmAgent(name="unused", model="gemini-2.5-flash"), eval_sets_manager=manager)
    per_run = []
    for run in scenario.runs:
        actual = EvalSet.model_validate(run)
        inferences = [InferenceResult(app_name=APP, eval_set_id=expected.eval_set_id, eval_case_id=case.eval_id,
                                      inferences=case.conversation, session_id=None,
                                      status=InferenceStatus.SUCCESS)
                      for case in actual.eval_cases]
        request = EvaluateRequest(inference_results=inferences, evaluate_config=EvaluateConfig(eval_metrics=metrics))
        results = {}
        async for result in service.evaluate(request):
            results[result.eval_id] = result
        per_run.append(results)
    return per_run


def adk_summary(case_results: list) -> dict:
    """{metric_name: (score, status)} pooled over runs by AgentEvaluator."""
    pooled = {}

    def capture(eval_metric_result_with_invocations, overall_eval_status, overall_score, metric_name, threshold):
        pooled[metric_name] = (overall_score, overall_eval_status)

    original = AgentEvaluator._print_details
    AgentEvaluator._print_details = staticmethod(capture)
    try:
        by_metric = AgentEvaluator._get_eval_metric_results_with_invocation(case_results)
        AgentEvaluator._process_metrics_and_get_failures(by_metric, print_detailed_results=True, agent_module="m")
    finally:
        AgentEvaluator._print_details = original
    return pooled


# ---------------------------------------------------------------- comparing

class Comparison:
    def __init__(self):
        self.scores = self.statuses = 0
        self.mismatches: list[str] = []
        # (scenario, eval_id, invocation index) of each per-invocation score that differs.
        self.locations: list[tuple[str, str, int]] = []

    def score(self, where: str, ours, theirs, inputs: str = "") -> bool:
        self.scores += 1
        same = (ours is None and theirs is None) or (
            ours is not None and theirs is not None and abs(ours - theirs) <= TOLERANCE)
        if not same:
            self.mismatches.append(f"{where}: score evalstudio {ours!r}, adk {theirs!r}{inputs}")
        return same

    def breakdowns(self, where: str, ours: dict, theirs) -> None:
        """The token and duration breakdowns of the informational metrics, field by field."""
        for key in ("token_usage_details", "duration_details"):
            adk = getattr(theirs, key)
            if adk is None:
                if ours.get(key) is not None:
                    self.mismatches.append(f"{where}: {key} evalstudio {ours[key]!r}, adk None")
                continue
            for field, value in adk.model_dump().items():
                self.score(f"{where}, {key}.{field}", (ours.get(key) or {}).get(field), value)

    def status(self, where: str, ours: int, theirs: EvalStatus, inputs: str = "") -> None:
        self.statuses += 1
        if ours != theirs.value:
            self.mismatches.append(f"{where}: status evalstudio {ours}, adk {theirs.value} ({theirs.name}){inputs}")


def describe(invocation_result) -> str:
    def text(inv):
        content = inv.final_response if inv else None
        return "\n".join(p.text for p in (content.parts or []) if p.text) if content else ""

    def calls(inv):
        return [c.model_dump(exclude_none=True) for c in get_all_tool_calls(inv.intermediate_data if inv else None)]

    actual, expected = invocation_result.actual_invocation, invocation_result.expected_invocation
    return (f"\n    actual response {text(actual)[:300]!r}\n    expected response {text(expected)[:300]!r}"
            f"\n    actual calls {json.dumps(calls(actual), ensure_ascii=False)[:500]}"
            f"\n    expected calls {json.dumps(calls(expected), ensure_ascii=False)[:500]}")


def run_scenario(binary: str, scenario: Scenario, tmp: pathlib.Path, comparison: Comparison,
                 extra_args: list[str] = ()) -> None:
    expected_path = tmp / "expected.evalset.json"
    expected_path.write_text(json.dumps(scenario.expected, ensure_ascii=False), encoding="utf-8")
    command = [binary, "score", str(expected_path)]
    for index, run in enumerate(scenario.runs):
        path = tmp / f"actual{index}.evalset.json"
        path.write_text(json.dumps(run, ensure_ascii=False), encoding="utf-8")
        command.append(str(path))
    if scenario.config is not None:
        config_path = tmp / "test_config.json"
        config_path.write_text(json.dumps(scenario.config), encoding="utf-8")
        command += ["--config", str(config_path)]
    out = tmp / "result.json"
    command += ["--json", str(out), *extra_args]
    process = subprocess.run(command, capture_output=True, text=True)
    if process.returncode not in (0, 1):
        comparison.mismatches.append(f"{scenario.name}: evalstudio exited {process.returncode}: {process.stderr}")
        return
    ours = json.loads(out.read_text(encoding="utf-8"))
    EvalSetResult.model_validate(ours)  # must load in ADK

    metrics = adk_metrics(scenario.config)
    theirs = asyncio.run(adk_case_results(scenario, metrics))
    eval_ids = [case["eval_id"] for case in scenario.expected["eval_cases"]]
    ours_cases = ours["eval_case_results"]
    if len(ours_cases) != len(eval_ids) * len(scenario.runs):
        comparison.mismatches.append(f"{scenario.name}: {len(ours_cases)} case results")
        return
    for run_index, adk_run in enumerate(theirs):
        for case_index, eval_id in enumerate(eval_ids):
            our_case = ours_cases[run_index * len(eval_ids) + case_index]
            adk_case = adk_run[eval_id]
            where = f"{scenario.name}, run {run_index}, case {eval_id}"
            comparison.status(where, our_case["final_eval_status"], adk_case.final_eval_status)
            for ours_metric, adk_metric in zip(our_case["overall_eval_metric_results"],
                                               adk_case.overall_eval_metric_results, strict=True):
                at = f"{where}, {adk_metric.metric_name} overall"
                comparison.score(at, ours_metric["score"], adk_metric.score)
                comparison.status(at, ours_metric["eval_status"], adk_metric.eval_status)
                comparison.breakdowns(at, ours_metric["details"], adk_metric.details)
            for index, (ours_inv, adk_inv) in enumerate(zip(our_case["eval_metric_result_per_invocation"],
                                                            adk_case.eval_metric_result_per_invocation,
                                                            strict=True)):
                for ours_metric, adk_metric in zip(ours_inv["eval_metric_results"], adk_inv.eval_metric_results,
                                                   strict=True):
                    at = f"{where}, invocation {index}, {adk_metric.metric_name}"
                    inputs = describe(adk_inv)
                    if not comparison.score(at, ours_metric["score"], adk_metric.score, inputs):
                        comparison.locations.append((scenario.name, eval_id, index))
                    comparison.status(at, ours_metric["eval_status"], adk_metric.eval_status, inputs)
                    comparison.breakdowns(at, ours_metric["details"], adk_metric.details)
    all_passed = True
    for summary in ours["case_summaries"]:
        pooled = adk_summary([run[summary["eval_id"]] for run in theirs])
        statuses = []
        for metric in summary["metrics"]:
            # A case without invocations gives ADK nothing to pool: not evaluated.
            score, status = pooled.get(metric["metric_name"], (None, EvalStatus.NOT_EVALUATED))
            at = f"{scenario.name}, case {summary['eval_id']} over {len(scenario.runs)} run(s), {metric['metric_name']}"
            comparison.score(at, metric["score"], score)
            comparison.status(at, metric["eval_status"], status)
            statuses.append(types.SimpleNamespace(eval_status=status))
        case_status = LocalEvalService._generate_final_eval_status(None, statuses)
        comparison.status(f"{scenario.name}, case {summary['eval_id']} over runs", summary["final_eval_status"],
                          case_status)
        all_passed &= case_status == EvalStatus.PASSED
    if process.returncode != (0 if all_passed else 1):
        comparison.mismatches.append(f"{scenario.name}: exit code {process.returncode}, all passed: {all_passed}")


def words_stemmed_unlike_nltk(binary: str, words: list[str], tmp: pathlib.Path) -> list[str]:
    """Scores each word alone against its NLTK stem; a differing score shows which words we stem
    differently."""
    stemmer = PorterStemmer()
    scenario = Scenario("single words",
                        eval_set("words", [(w, [invocation("q", response(stemmer.stem(w)), None)]) for w in words]),
                        [eval_set("words", [(w, [invocation("q", response(w), None)]) for w in words])],
                        {"criteria": {"response_match_score": 0.8}}, "text")
    comparison = Comparison()
    run_scenario(binary, scenario, tmp, comparison)
    return sorted({eval_id for _, eval_id, _ in comparison.locations})


def config_error_checks(binary: str, fixtures: pathlib.Path, tmp: pathlib.Path, comparison: Comparison) -> None:
    """Configs we cannot honour yet must fail loudly (exit 2), not score silently."""
    expected = fixtures / "simple_test.test.json"
    vertex_only = tmp / "vertex_only_config.json"
    vertex_only.write_text('{"criteria": {"safety_v1": 0.8}}')
    bad = tmp / "bad_config.json"
    bad.write_text('{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "exactly"}}}')
    checks = [(vertex_only, "`safety_v1`"), (bad, "match_type")]
    for config, message in checks:
        process = subprocess.run([binary, "score", str(expected), str(expected), "--config", str(config)],
                                 capture_output=True, text=True)
        comparison.statuses += 1
        if process.returncode != 2 or message not in process.stderr:
            comparison.mismatches.append(f"config {config.name}: exit {process.returncode}, {process.stderr!r}")


def main() -> int:
    binary, fixtures = sys.argv[1], pathlib.Path(sys.argv[2])
    rng = random.Random(SEED)
    vocabulary = english_vocabulary()
    words = stemmer_words(rng, vocabulary)
    pairs = text_pairs(rng, vocabulary, 1500)
    trajectory_configs = []
    for match_type in ("EXACT", "IN_ORDER", "ANY_ORDER"):
        for ignore_args in (False, True):
            trajectory_configs.append((f"{match_type}, ignore_args={ignore_args}", {"criteria": {
                "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": match_type, "ignore_args": ignore_args}}}))
    trajectory_configs += [
        ("in-order spelled as ADK normalises it, threshold 0.5",
         {"criteria": {"tool_trajectory_avg_score": {"threshold": 0.5, "matchType": " in-order "}}}),
        ("match type 2, both metrics", {"criteria": {"tool_trajectory_avg_score": {"threshold": 0.6, "match_type": 2},
                                                     "response_match_score": 0.4}}),
    ]
    scenarios = [vocabulary_scenario(words), threshold_edge_scenario(),
                 text_scenario(rng, pairs[:1000], 1, {"criteria": {"response_match_score": 0.5}}),
                 text_scenario(rng, pairs[1000:], 3, None)]
    for name, config in trajectory_configs:
        scenarios.append(trajectory_scenario(rng, f"trajectories {name}", config, 120, rng.choice([1, 2, 3])))
    scenarios.append(trajectory_scenario(rng, "trajectories, default config", None, 120, 2))
    scenarios += fixture_scenarios(rng, fixtures, vocabulary)
    scenarios.append(efficiency_scenario(rng, 300, 2))

    comparison = Comparison()
    counted = {"text": 0, "trajectory": 0, "fixture": 0, "efficiency": 0}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for scenario in scenarios:
            run_scenario(binary, scenario, tmp, comparison)
            counted[scenario.kind] += sum(len(c["conversation"]) for run in scenario.runs for c in run["eval_cases"])
        chunks = {(int(eval_id.split("-")[1]) * VOCABULARY_CASE + index)
                  for name, eval_id, index in comparison.locations if name == VOCABULARY}
        if chunks:
            suspects = [w for chunk in sorted(chunks) for w in words[chunk * VOCABULARY_CHUNK:][:VOCABULARY_CHUNK]]
            wrong = words_stemmed_unlike_nltk(binary, suspects, tmp)
            comparison.mismatches.append(f"stemmer: words stemmed unlike NLTK: {wrong[:100]}")
        config_error_checks(binary, fixtures, tmp, comparison)

    shown: dict[str, int] = {}
    for mismatch in comparison.mismatches:
        scenario = mismatch.split(",")[0].split(":")[0]
        shown[scenario] = shown.get(scenario, 0) + 1
        if shown[scenario] <= 5:
            print(f"MISMATCH {mismatch}", file=sys.stderr)
    for scenario, count in shown.items():
        print(f"{count} mismatches in {scenario}", file=sys.stderr)
    print(f"adk metrics: {len(scenarios)} scenarios; {len(words)} words through the stemmer; "
          f"{counted['text']} text invocations ({len(pairs)} random pairs), {counted['trajectory']} trajectory "
          f"invocations, {counted['fixture']} fixture invocations, {counted['efficiency']} invocations with usage "
          f"and timings scored; "
          f"{comparison.scores} scores and {comparison.statuses} statuses compared; "
          f"{len(comparison.mismatches)} mismatches")
    compared = comparison.scores + comparison.statuses
    print(f"conformance: {compared - len(comparison.mismatches)} passed, {len(comparison.mismatches)} failed")
    return 1 if comparison.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
