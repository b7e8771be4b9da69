"""Writes a deterministic pair of ADK evalsets for whole-process scoring benchmarks: an expected
set and an actual one with the same eval ids and turn counts, where about a third of the actual
turns call a tool with other arguments or answer in other words. Also writes the eval config
(tool_trajectory_avg_score and ROUGE-1's response_match_score).

Usage: python gen_scoring_pair.py OUT_DIR INVOCATIONS [SEED]
Writes OUT_DIR/expected.evalset.json, OUT_DIR/actual.evalset.json and OUT_DIR/config.json, and
prints one JSON line: {"cases": ..., "invocations": ..., "bytes": ...}.
"""

import json
import pathlib
import random
import sys

WORDS = (
    "weather sunny degrees Paris running connection orders shipped tomorrow converted currency "
    "euros dollars the is and with temperatures of 25 device bedroom turned off rain light"
).split()
TOOLS = {
    "get_weather": lambda r: {"city": r.choice(["Paris", "Oslo", "Rome", "Lima"])},
    "convert_currency": lambda r: {"amount": r.randint(1, 500), "from": "EUR", "to": "USD"},
    "get_order_status": lambda r: {"order_id": f"A-{r.randint(1000, 9999)}"},
}


def sentence(r, n):
    return " ".join(r.choice(WORDS) for _ in range(n))


def content(role, text):
    return {"parts": [{"text": text}], "role": role}


def invocation(r, case, turn, call):
    name, args = call
    return {
        "invocation_id": f"e-{case}-{turn}",
        "user_content": content("user", sentence(r, 8)),
        "final_response": content("model", sentence(r, 14)),
        "intermediate_data": {
            "tool_uses": [{"id": f"call-{case}-{turn}", "args": args, "name": name}],
            "tool_responses": [],
            "intermediate_responses": [],
        },
        "creation_timestamp": 1700000000.0 + case,
    }


def main():
    out, invocations = pathlib.Path(sys.argv[1]), int(sys.argv[2])
    r = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    expected, actual, made = [], [], 0
    while made < invocations:
        case = len(expected)
        turns = min(r.choice([1, 2, 2, 3]), invocations - made)
        want, got = [], []
        for turn in range(turns):
            name = r.choice(sorted(TOOLS))
            call, other_call, other = (name, TOOLS[name](r)), (name, TOOLS[name](r)), r.random()
            state = r.getstate()
            want.append(invocation(r, case, turn, call))
            r.setstate(state)
            got.append(invocation(r, case, turn, other_call if other < 0.15 else call))
            if other > 0.8:
                got[-1]["final_response"] = content("model", sentence(r, 14))
        made += turns
        for side, conversation in ((expected, want), (actual, got)):
            side.append({"eval_id": f"case_{case:06d}", "conversation": conversation,
                         "session_input": {"app_name": "bench", "user_id": "u", "state": {}},
                         "creation_timestamp": 1700000000.0})
    out.mkdir(parents=True, exist_ok=True)
    size = 0
    for name, cases in (("expected", expected), ("actual", actual)):
        text = json.dumps({"eval_set_id": "bench", "name": "bench", "eval_cases": cases,
                           "creation_timestamp": 1700000000.0}, separators=(",", ":"))
        (out / f"{name}.evalset.json").write_text(text, encoding="utf-8")
        size = len(text.encode())
    config = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}
    (out / "config.json").write_text(json.dumps(config), encoding="utf-8")
    print(json.dumps({"cases": len(expected), "invocations": made, "bytes": size}))


if __name__ == "__main__":
    main()
