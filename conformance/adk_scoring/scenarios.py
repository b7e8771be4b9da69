"""The scenarios scored both ways: an expected eval set, one actual eval set per run, an eval config."""

import copy
import json
import pathlib
import random

from google.adk.evaluation.agent_evaluator import AgentEvaluator
from google.adk.evaluation.eval_config import _DEFAULT_EVAL_CONFIG
from nltk.stem.porter import PorterStemmer

from .data import (
    eval_set,
    intermediate_data,
    invocation,
    mutate_calls,
    mutate_text,
    random_call,
    response,
    text_response,
)


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
