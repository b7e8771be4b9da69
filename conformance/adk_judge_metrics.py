"""Checks that `evalstudio score` gives the scores and statuses google-adk's judge metrics give
when both ask the same scripted judge: `hallucinations_v1`, `rubric_based_tool_use_quality_v1`,
`rubric_based_multi_turn_trajectory_quality_v1` and `per_turn_user_simulator_quality_v1`.

The judge is a script: its reply to a prompt is drawn from a seeded generator keyed on the
prompt and on how many times that prompt was asked before, so both sides get the same replies
to the same prompts. ADK asks it as a `BaseLlm` registered in its `LLMRegistry` for the model
`scripted-judge`; Evalstudio asks it over HTTP, as the OpenAI chat-completions endpoint of its
`[judge]`. The replies are well formed or malformed as real judges' are (labels in other cases
or unknown, keys missing, blocks left out, tags unclosed, empty replies, verdicts neither yes nor
no), so the parsers are compared as well as the aggregation.

For each metric, at least 200 generated cases (both intermediate-data forms, app details,
grounding metadata, rubrics from the criterion, the case and the invocations, scenarios with and
without a persona, num_samples 1 to 5, thresholds) are scored by ADK's `LocalEvalService` and by
`evalstudio score` (`adk_metrics.run_scenario`): every per-invocation and overall score must
agree to 1e-9 and every status exactly. The prompts each side sent must be the same, prompt for
prompt.

Usage: python adk_judge_metrics.py EVALSTUDIO_BIN
"""

import collections
import difflib
import hashlib
import http.server
import json
import pathlib
import random
import re
import sys
import tempfile
import threading

import adk_metrics  # noqa: F401  (stubs ADK's Vertex AI facade before ADK is imported)
from adk_metrics import Comparison, Scenario, run_scenario
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry
from google.genai import types as genai_types

SEED = 20261124
CASES_PER_METRIC = 210
MODEL = "scripted-judge"

# ---------------------------------------------------------------- the scripted judge


class Script:
    """The judge's replies, and the prompts each side asked."""

    def __init__(self):
        self.lock = threading.Lock()
        self.asked = {"adk": collections.Counter(), "evalstudio": collections.Counter()}

    def reply(self, prompt: str, side: str) -> str:
        with self.lock:
            times = self.asked[side][prompt]
            self.asked[side][prompt] += 1
        rng = random.Random(hashlib.sha256(f"{times}\0{prompt}".encode()).digest())
        for marker, write in REPLIES:
            if marker in prompt:
                return write(rng, prompt)
        return "I do not know this prompt."

    def take_prompts(self) -> tuple[collections.Counter, collections.Counter]:
        with self.lock:
            adk, ours = self.asked["adk"], self.asked["evalstudio"]
            self.asked = {"adk": collections.Counter(), "evalstudio": collections.Counter()}
        return adk, ours


SCRIPT = Script()


class ScriptedJudge(BaseLlm):
    """ADK's side of the scripted judge."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return [MODEL]

    async def generate_content_async(self, llm_request, stream=False):
        prompt = llm_request.contents[-1].parts[0].text
        text = SCRIPT.reply(prompt, "adk")
        yield LlmResponse(content=genai_types.Content(role="model", parts=[genai_types.Part(text=text)]))


LLMRegistry.register(ScriptedJudge)


class OpenAiHandler(http.server.BaseHTTPRequestHandler):
    """Evalstudio's side: `POST /v1/chat/completions`, on kept-alive connections."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        text = SCRIPT.reply(body["messages"][-1]["content"], "evalstudio")
        reply = json.dumps({
            "id": "scripted", "object": "chat.completion", "model": body.get("model", MODEL),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


# ---------------------------------------------------------------- replies


def between(prompt: str, start: str, end: str) -> str:
    at = prompt.rindex(start) + len(start)
    return prompt[at:prompt.index(end, at)]


def segmentation(rng: random.Random, prompt: str) -> str:
    response = between(prompt, "**Response Begin**\n", "\n**Response End**")
    roll = rng.random()
    if roll < 0.06:
        return ""
    if roll < 0.10:
        return response  # no tags at all
    pieces = [p for p in re.split(r"(?<=[.!?:])\s+|\n+", response) if p.strip()] or [response]
    tagged = [f"<sentence>{p}</sentence>" for p in pieces]
    if roll < 0.16:
        tagged[-1] = tagged[-1].replace("</sentence>", "")  # the last one unclosed
    elif roll < 0.22:
        tagged = [t.replace("<sentence>", "<sentence>  ").replace("</sentence>", "\n</sentence>") for t in tagged]
    elif roll < 0.26 and len(tagged) > 1:
        tagged = ["\n".join(tagged[:2]).replace("</sentence>\n<sentence>", "\n", 1)] + tagged[2:]
    separator = rng.choice(["\n", "\n\n", " ", ""])
    return rng.choice(["", "Here you go:\n"]) + separator.join(tagged)


LABELS = ["supported", "unsupported", "contradictory", "disputed", "not_applicable"]
ODD_LABELS = ["Supported", " NOT_APPLICABLE ", "Contradictory", "maybe", "", "supported.", "n/a", "DISPUTED"]


def validation(rng: random.Random, prompt: str) -> str:
    sentences = re.findall(r"<sentence>(.*?)</sentence>",
                           between(prompt, "**Sentences Begin**\n", "\n**Sentences End**"), re.DOTALL)
    if rng.random() < 0.05:
        return ""
    keys = ["sentence", "label", "rationale", "supporting_excerpt", "contradicting_excerpt"]
    if rng.random() < 0.15:
        keys = [rng.choice([k, k.upper(), k.capitalize()]) for k in keys]
    blocks = []
    for sentence in sentences:
        if rng.random() < 0.08:
            continue  # left out
        label = rng.choice(LABELS) if rng.random() < 0.8 else rng.choice(ODD_LABELS)
        values = [sentence.strip(), label,
                  rng.choice(["The context says so.", "Nothing in the context.\nIt is a guess.", "sentence: quoted"]),
                  rng.choice(["null", "Null", "Paris is sunny."]), rng.choice(["null", "It rains."])]
        lines = [f"{key}: {value}" if rng.random() < 0.9 else f"{key}:{value}" for key, value in zip(keys, values)]
        if rng.random() < 0.04:
            del lines[rng.randrange(1, 5)]  # a field missing
        blocks.append("\n".join(lines))
    separator = rng.choice(["\n\n", "\n", "\n\n\n"])
    return rng.choice(["", "  ", "**Output:**\n"]) + separator.join(blocks) + rng.choice(["", "\n", "\n\nDone."])


def rubric_reply(rng: random.Random, rubrics: list[tuple[str, str]]) -> str:
    if rng.random() < 0.05:
        return ""
    blocks = []
    for rubric_id, text in rng.sample(rubrics, len(rubrics)):
        if rng.random() < 0.07:
            continue
        verdict = rng.choice(["yes", "no", "Yes.", "NO", "yes", "no"]) if rng.random() < 0.9 else rng.choice(
            ["maybe", "", "not sure"])
        shown = rng.choice([text, text, text.upper(), f"“{text}”", f"*{text}*", text + "  "])
        lines = [f"STEP 1: {text}", "STEP 5: done"]
        if rng.random() < 0.8:
            lines.append(f"ID: {rubric_id if rng.random() < 0.9 else 'unknown-id'}")
        lines.append(f"Property: {shown}")
        if rng.random() < 0.97:
            lines.append("Rationale: " + rng.choice(["It does.", "It does not.", ""]))
        lines.append(f"Verdict: {verdict}")
        blocks.append("\n".join(lines))
    if rng.random() < 0.05:
        blocks.append("Property: a property that is not a rubric\nRationale: r\nVerdict: yes")
    return "\n\n".join(blocks)


def tool_use_reply(rng: random.Random, prompt: str) -> str:
    listed = between(prompt, "<properties>\n", "\n</properties>")
    rubrics = re.findall(r"^\*  \[id: (.*?)\] (.*)$", listed, re.MULTILINE)
    return rubric_reply(rng, rubrics)


def multi_turn_reply(rng: random.Random, prompt: str) -> str:
    properties = json.loads(between(prompt, "<properties>\n", "\n</properties>"))
    return rubric_reply(rng, [(p["id"], p["property"] or "None") for p in properties])


VERDICTS = ["True", "False", '"valid"', '"invalid"', '"VALID"', '["true"]', '[\n "invalid"\n]', '"almost"',
            '"partially valid"', '"Partially_Valid"', '"maybe"', "true", "false", '"False"']


def simulator_quality_reply(rng: random.Random, prompt: str) -> str:
    roll = rng.random()
    if roll < 0.05:
        return ""
    if roll < 0.09:
        return "The response looks fine to me."
    verdict = rng.choice(VERDICTS[:4]) if rng.random() < 0.6 else rng.choice(VERDICTS)
    criteria = '    "criteria": [\n        {"name": "RESPONSIVENESS", "reasoning": "ok", "passes": True},\n    ],\n'
    ending = rng.choice([f'    "is_valid": {verdict},\n}}', f'    "is_valid": {verdict}\n}}', f'"is_valid":{verdict}}}',
                         f'    "is_valid": {verdict}  ,\n}}', f'    "is_valid": {verdict}'])
    return "```json\n{\n" + criteria + ending + rng.choice(["\n```", ""])


REPLIES = [
    ("Your task is to segment the provided response sentence by sentence", segmentation),
    ("Your task is to analyze sentence by sentence and classify each sentence", validation),
    ("You will be presented with a user prompt (<user_prompt>), the agent's response", tool_use_reply),
    ("evaluate the quality of responses generated by an AI agent in a multi-turn conversation", multi_turn_reply),
    ("evaluating the quality of a User Simulator", simulator_quality_reply),
]

# ---------------------------------------------------------------- cases

WORDS = ("weather Paris Tokyo sunny rain forecast degrees tomorrow booking flight hotel price cheap "
         "Zürich café naïve 東京 señor cost ticket train seat window refund order parcel status").split()


def words(rng: random.Random, low: int = 2, high: int = 8) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def sentence(rng: random.Random) -> str:
    return words(rng).capitalize() + rng.choice([".", "!", "?", ":", "."])


def paragraph(rng: random.Random, token: str) -> str:
    shape = rng.random()
    if shape < 0.2:
        return f"{sentence(rng)} ({token})\n" + "\n".join(f"* {sentence(rng)}" for _ in range(rng.randint(1, 3)))
    if shape < 0.3:
        return f"{token}: " + "\n".join(f"{i}. {sentence(rng)}" for i in range(1, rng.randint(2, 4)))
    return " ".join(sentence(rng) for _ in range(rng.randint(1, 3))) + f" [{token}]"


def text_content(role: str, *texts: str) -> dict:
    return {"role": role, "parts": [{"text": t} for t in texts]}


def random_args(rng: random.Random) -> dict:
    args = {}
    for key in rng.sample(["city", "days", "unit", "query", "date", "nested", "ok"], rng.randint(0, 3)):
        args[key] = rng.choice([words(rng, 1, 2), rng.randint(0, 30), 2.5, 1.0, True, None, ["a", "ü"],
                                {"inner": "Zürich", "n": 3}])
    return args


def call_and_response(rng: random.Random, index: int) -> tuple[dict, dict]:
    name = rng.choice(["get_weather", "book_flight", "find_hotel", "search"])
    call = {"id": f"call-{index}", "name": name, "args": random_args(rng)}
    if rng.random() < 0.1:
        del call["id"]
    response = {"id": call.get("id"), "name": name, "response": {"result": words(rng, 1, 5), "code": rng.randint(0, 9)}}
    if response["id"] is None:
        del response["id"]
    return call, response


def grounding(rng: random.Random) -> dict:
    return {"web_search_queries": [words(rng, 1, 3)]}


def events_data(rng: random.Random, agent: str, token: str) -> tuple[dict, list[str]]:
    """Invocation events: texts, tool calls and responses, some grounding metadata."""
    events = []
    authors = [agent, agent, "helper_agent", "user"]
    for index in range(rng.randint(0, 4)):
        author = rng.choice(authors)
        parts = []
        if rng.random() < 0.6:
            parts.append({"text": paragraph(rng, f"{token}-e{index}")})
        if rng.random() < 0.2:
            parts.append({"text": ""})
        if rng.random() < 0.6:
            call, response = call_and_response(rng, index)
            parts.append({"function_call": call})
            if rng.random() < 0.8:
                parts.append({"function_response": response})
        if rng.random() < 0.15:
            parts.append({"text": sentence(rng), "thought": True})
        event = {"author": author, "content": {"role": "model", "parts": parts} if parts or rng.random() < 0.5 else None}
        if event["content"] is None:
            del event["content"]
        if rng.random() < 0.15:
            event["grounding_metadata"] = grounding(rng)
        events.append(event)
    return {"invocation_events": events}, [agent]


def tool_uses_data(rng: random.Random, token: str) -> dict:
    calls, responses = [], []
    for index in range(rng.randint(0, 3)):
        call, response = call_and_response(rng, index)
        calls.append(call)
        if rng.random() < 0.8:
            responses.append(response)
    texts = [["weather_agent", [{"text": paragraph(rng, f"{token}-i")}]]] if rng.random() < 0.5 else []
    return {"tool_uses": calls, "tool_responses": responses, "intermediate_responses": texts}


def app_details(rng: random.Random, agent: str, with_tools: bool) -> dict:
    agents = {}
    for name in [agent] + (["helper_agent"] if rng.random() < 0.4 else []):
        tools = []
        if with_tools and rng.random() < 0.7:
            tools = [{"function_declarations": [
                {"name": f"get_{w}", "description": sentence(rng)} for w in rng.sample(WORDS[:6], rng.randint(1, 2))]}]
        agents[name] = {"name": name, "instructions": rng.choice(["", sentence(rng), f"{sentence(rng)}\n{sentence(rng)}"]),
                        "tool_declarations": tools}
    return {"agent_details": agents}


def rubric(rubric_id: str, text: str | None, kind: str | None) -> dict:
    value = {"rubric_id": rubric_id, "rubric_content": {"text_property": text}}
    if kind:
        value["type"] = kind
    return value


def rubric_text(rng: random.Random) -> str:
    return rng.choice(["The agent ", "The response ", "Each answer "]) + words(rng, 2, 5) + rng.choice([".", "", "?"])


class Ids:
    def __init__(self):
        self.next = 0

    def __call__(self, prefix: str) -> str:
        self.next += 1
        return f"{prefix}{self.next}"


def invocation(rng: random.Random, token: str, user: str, events_form: bool, tools_in_details: bool) -> dict:
    agent = "weather_agent"
    if events_form:
        data, _ = events_data(rng, agent, token)
    else:
        data = tool_uses_data(rng, token)
    final = rng.random()
    if final < 0.08:
        final_response = None
    elif final < 0.12:
        final_response = {"role": "model", "parts": []}
    else:
        final_response = text_content("model", paragraph(rng, token))
        if rng.random() < 0.15:
            final_response["parts"].append({"text": sentence(rng)})
    value = {"invocation_id": token, "user_content": text_content("user", user), "intermediate_data": data}
    if final_response is not None:
        value["final_response"] = final_response
    if rng.random() < 0.6:
        value["app_details"] = app_details(rng, agent, tools_in_details)
    return value


def judge_options(rng: random.Random, samples: int | None) -> dict:
    options = {"judge_model": MODEL}
    if samples is not None:
        options["num_samples"] = samples
    return options


def rubric_scenario(rng: random.Random, metric: str, kind: str, name: str, cases: int, samples: int | None,
                    threshold: float, multi_turn: bool, criterion_rubrics: int) -> Scenario:
    ids = Ids()
    criterion_rubrics = [rubric(ids("c"), rubric_text(rng), None) for _ in range(criterion_rubrics)]
    expected_cases, actual_cases = [], []
    for case_index in range(cases):
        eval_id = f"{name}-{case_index}"
        turns = rng.randint(1, 4) if multi_turn else rng.randint(1, 3)
        expected_turns, actual_turns = [], []
        for turn in range(turns):
            token = f"{eval_id}-t{turn}"
            user = f"{words(rng)} ({token})?"
            actual = invocation(rng, token, user, rng.random() < 0.75, tools_in_details=not multi_turn)
            expected = {"invocation_id": token, "user_content": text_content("user", user),
                        "final_response": text_content("model", sentence(rng))}
            # Invocation rubrics on the last turn only: ADK reads every turn's replies against the
            # rubrics of the last turn it wrote a prompt for (its evaluator keeps one list).
            last = turn == turns - 1
            if last and rng.random() < 0.4:
                expected["rubrics"] = [rubric(ids("e"), rubric_text(rng), rng.choice([kind, kind, "OTHER_TYPE", None]))]
            if last and rng.random() < 0.3:
                actual["rubrics"] = [rubric(ids("a"), rubric_text(rng) if rng.random() < 0.95 else None,
                                            rng.choice([kind, None]))]
            expected_turns.append(expected)
            actual_turns.append(actual)
        case = {"eval_id": eval_id, "conversation": expected_turns}
        if rng.random() < 0.3:
            case["rubrics"] = [rubric(ids("k"), rubric_text(rng), rng.choice([kind, "OTHER_TYPE"]))]
        expected_cases.append(case)
        actual_cases.append({"eval_id": eval_id, "conversation": actual_turns})
    criterion = {"threshold": threshold, "judge_model_options": judge_options(rng, samples),
                 "rubrics": criterion_rubrics}
    config = {"criteria": {metric: criterion}}
    return Scenario(f"{metric} {name}", {"eval_set_id": name, "eval_cases": expected_cases},
                    [{"eval_set_id": name, "eval_cases": actual_cases}], config, metric)


def hallucination_scenario(rng: random.Random, name: str, cases: int, intermediate: bool,
                           threshold: float) -> Scenario:
    expected_cases, actual_cases = [], []
    for case_index in range(cases):
        eval_id = f"{name}-{case_index}"
        expected_turns, actual_turns = [], []
        for turn in range(rng.randint(1, 3)):
            token = f"{eval_id}-t{turn}"
            user = f"{words(rng)} ({token})?"
            actual_turns.append(invocation(rng, token, user, rng.random() < 0.8, tools_in_details=True))
            expected_turns.append({"invocation_id": token, "user_content": text_content("user", user)})
        expected_cases.append({"eval_id": eval_id, "conversation": expected_turns})
        actual_cases.append({"eval_id": eval_id, "conversation": actual_turns})
    criterion = {"threshold": threshold, "judge_model_options": {"judge_model": MODEL},
                 "evaluate_intermediate_nl_responses": intermediate}
    return Scenario(f"hallucinations_v1 {name}", {"eval_set_id": name, "eval_cases": expected_cases},
                    [{"eval_set_id": name, "eval_cases": actual_cases}],
                    {"criteria": {"hallucinations_v1": criterion}}, "hallucinations_v1")


PERSONA = {"id": "TERSE", "description": "A user who writes few words and stops with {{ stop_signal }}.",
           "behaviors": [{"name": "Terse", "description": "Writes short messages; ends with {{ stop_signal }}.",
                          "behavior_instructions": ["Use five words or fewer."],
                          "violation_rubrics": ["The message is longer than five words.",
                                                "The user does not say {{ stop_signal }} when done."]}]}


def simulator_scenario(rng: random.Random, name: str, cases: int, samples: int | None, threshold: float,
                       stop_signal: str | None) -> Scenario:
    expected_cases, actual_cases = [], []
    for case_index in range(cases):
        eval_id = f"{name}-{case_index}"
        starting_prompt = f"{words(rng)} ({eval_id})"
        scenario = {"starting_prompt": starting_prompt,
                    "conversation_plan": f"Ask about {words(rng)}. Then {words(rng)}.\nStop when done."}
        persona = rng.random()
        if persona < 0.25:
            scenario["user_persona"] = rng.choice(["EXPERT", "NOVICE", "EVALUATOR"])
        elif persona < 0.35:
            scenario["user_persona"] = PERSONA
        turns = []
        for turn in range(rng.randint(1, 4)):
            token = f"{eval_id}-t{turn}"
            if turn == 0:
                roll = rng.random()
                user = starting_prompt if roll < 0.7 else (f"  {starting_prompt}\n" if roll < 0.85 else words(rng))
            else:
                user = f"{words(rng)} ({token})"
            value = {"invocation_id": token, "user_content": text_content("user", user)}
            final = rng.random()
            if final < 0.1:
                pass
            elif final < 0.15:
                value["final_response"] = {"parts": [{"text": sentence(rng)}]}  # no role
            elif final < 0.2:
                value["final_response"] = {"role": "model", "parts": []}
            else:
                value["final_response"] = text_content("model", paragraph(rng, token))
            turns.append(value)
        expected_cases.append({"eval_id": eval_id, "conversation_scenario": scenario})
        actual_cases.append({"eval_id": eval_id, "conversation": turns})
    criterion = {"threshold": threshold, "judge_model_options": judge_options(rng, samples)}
    if stop_signal is not None:
        criterion["stop_signal"] = stop_signal
    metric = "per_turn_user_simulator_quality_v1"
    return Scenario(f"{metric} {name}", {"eval_set_id": name, "eval_cases": expected_cases},
                    [{"eval_set_id": name, "eval_cases": actual_cases}], {"criteria": {metric: criterion}}, metric)


def scenarios(rng: random.Random) -> list[Scenario]:
    third = CASES_PER_METRIC // 3 + 1
    half = CASES_PER_METRIC // 2 + 1
    return [
        hallucination_scenario(rng, "final", half, False, 0.7),
        hallucination_scenario(rng, "intermediate", half, True, 1.0),
        rubric_scenario(rng, "rubric_based_tool_use_quality_v1", "TOOL_USE_QUALITY", "tool-default", third, None,
                        0.5, False, 2),
        rubric_scenario(rng, "rubric_based_tool_use_quality_v1", "TOOL_USE_QUALITY", "tool-one", third, 1, 0.8, False,
                        0),
        rubric_scenario(rng, "rubric_based_tool_use_quality_v1", "TOOL_USE_QUALITY", "tool-four", third, 4, 0.6,
                        False, 3),
        rubric_scenario(rng, "rubric_based_multi_turn_trajectory_quality_v1", "TRAJECTORY_QUALITY", "multi-default",
                        third, None, 0.5, True, 1),
        rubric_scenario(rng, "rubric_based_multi_turn_trajectory_quality_v1", "TRAJECTORY_QUALITY", "multi-one", third,
                        1, 0.7, True, 0),
        rubric_scenario(rng, "rubric_based_multi_turn_trajectory_quality_v1", "TRAJECTORY_QUALITY", "multi-two", third,
                        2, 1.0, True, 3),
        simulator_scenario(rng, "sim-default", third, None, 0.5, None),
        simulator_scenario(rng, "sim-one", third, 1, 1.0, None),
        simulator_scenario(rng, "sim-three", third, 3, 0.0, "[[DONE]]"),
    ]


# ---------------------------------------------------------------- comparing the prompts


def compare_prompts(name: str, adk: collections.Counter, ours: collections.Counter, comparison: Comparison) -> None:
    comparison.statuses += 1
    if adk == ours:
        return
    only_adk, only_ours = list((adk - ours).elements()), list((ours - adk).elements())
    detail = ""
    if only_adk and only_ours:
        closest = max(only_ours, key=lambda p: difflib.SequenceMatcher(None, only_adk[0], p).quick_ratio())
        diff = difflib.unified_diff(only_adk[0].splitlines(), closest.splitlines(), "adk", "evalstudio", lineterm="",
                                    n=1)
        detail = "\n" + "\n".join(list(diff)[:40])
    comparison.mismatches.append(f"{name}: prompts differ: {len(only_adk)} only ADK asked, {len(only_ours)} only "
                                 f"Evalstudio asked{detail}")


def main() -> int:
    binary = sys.argv[1]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), OpenAiHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    rng = random.Random(SEED)
    comparison = Comparison()
    cases = collections.Counter()
    prompts = 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        profiles = tmp / "evalstudio.toml"
        profiles.write_text(f'[judge]\nbase_url = "http://127.0.0.1:{server.server_port}/v1"\nmodel = "{MODEL}"\n')
        for scenario in scenarios(rng):
            before = len(comparison.mismatches)
            run_scenario(binary, scenario, tmp, comparison, ["--profiles", str(profiles)])
            adk, ours = SCRIPT.take_prompts()
            compare_prompts(scenario.name, adk, ours, comparison)
            if len(comparison.mismatches) > before and "prompts differ" in comparison.mismatches[-1]:
                # The prompts first: when they differ, so do the replies and the scores.
                comparison.mismatches.insert(before, comparison.mismatches.pop())
            prompts += sum(adk.values())
            cases[scenario.kind] += len(scenario.expected["eval_cases"])
            for mismatch in comparison.mismatches[before:before + 5]:
                print(f"MISMATCH {mismatch}", file=sys.stderr)
            if len(comparison.mismatches) - before > 5:
                print(f"... {len(comparison.mismatches) - before} mismatches in {scenario.name}", file=sys.stderr)
    server.shutdown()
    print("adk judge metrics: " + ", ".join(f"{metric} {count} cases" for metric, count in cases.items()) +
          f"; {prompts} judge prompts each side; {comparison.scores} scores and {comparison.statuses} statuses and "
          f"prompt sets compared; {len(comparison.mismatches)} mismatches")
    compared = comparison.scores + comparison.statuses
    print(f"conformance: {compared - len(comparison.mismatches)} passed, {len(comparison.mismatches)} failed")
    return 1 if comparison.mismatches or min(cases.values()) < 200 else 0


if __name__ == "__main__":
    sys.exit(main())
