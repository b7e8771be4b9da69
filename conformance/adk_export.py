"""Checks that Evalstudio exports evalsets byte-for-byte as google-adk's file writer does.

For every ADK-format fixture and a generated file that stresses the format (camelCase keys,
CJK and emoji, nested and numeric args, nulls, defaults, both intermediate-data forms,
rubrics), it imports the file with `evalstudio import`, exports it with `evalstudio export`,
and compares with ADK's own `EvalSet.model_validate_json(...).model_dump_json(indent=2,
exclude_unset=True, exclude_defaults=True, exclude_none=True)`.

Usage: python adk_export.py EVALSTUDIO_BIN FIXTURES_DIR
"""

import json
import pathlib
import subprocess
import sys
import tempfile

from google.adk.evaluation.eval_set import EvalSet

# Evalstudio keeps a conversation scenario's persona id as written; ADK replaces it with the
# persona object from its registry. Both load in ADK, so files using personas are compared
# with that one field normalised.
PERSONA_NOTE = "user_persona"


def adk_dump(text: str) -> str:
    return EvalSet.model_validate_json(text).model_dump_json(
        indent=2, exclude_unset=True, exclude_defaults=True, exclude_none=True
    )


def stress_evalset() -> dict:
    args = {"city": "北京", "n": 1, "f": 1.0, "small": 1e-7, "big": 1e21, "neg": -2.5, "ts": 1795425796.2435493,
            "nested": {"z": [1, {"y": None}], "a": True}, "emoji": "🌤️", "empty": {}}
    return {
        "eval_set_id": "stress",
        "name": "Stress ✓",
        "description": None,
        "eval_cases": [
            {
                "evalId": "camel_case",
                "sessionInput": {"appName": "demo", "userId": "u", "state": {"k": [1, 2]}},
                "creationTimestamp": 1700000000,
                "finalSessionState": {},
                "conversation": [
                    {
                        "invocationId": "",
                        "userContent": {"role": "user", "parts": [{"text": "天气？ \"quoted\" \\ tab\t"}]},
                        "finalResponse": {"role": "model", "parts": [{"text": ""}, {"thought": True, "text": "t"}]},
                        "intermediateData": {
                            "toolUses": [{"id": None, "name": "get_weather", "args": args}],
                            "toolResponses": [{"id": "r1", "name": "get_weather", "response": {"ok": 1.5}}],
                            "intermediateResponses": [["sub_agent", [{"text": "working"}]]],
                        },
                        "creationTimestamp": 0.1,
                        "rubrics": [{"rubricId": "r", "rubricContent": {"textProperty": "polite"}}],
                    }
                ],
            },
            {
                "eval_id": "events_form",
                "conversation": [
                    {
                        "user_content": {"parts": [{"text": "hi"}]},
                        "intermediate_data": {"invocation_events": [
                            {"author": "agent", "content": {"role": "model", "parts": [
                                {"function_call": {"name": "f", "args": {}}}]}},
                            {"author": "agent", "content": {"parts": [
                                {"function_response": {"name": "f", "response": {"result": None}}}]}},
                        ]},
                    },
                    {"user_content": {"parts": [{"text": "bye"}]}, "intermediate_data": {}},
                ],
                "session_input": {"app_name": "", "user_id": "", "state": {}},
            },
        ],
    }


def drop_persona(text: str) -> str:
    data = json.loads(text)
    for case in data.get("eval_cases", []):
        case.get("conversation_scenario", {}).pop(PERSONA_NOTE, None)
    return json.dumps(data, indent=2, ensure_ascii=False)


def main() -> int:
    binary, fixtures = sys.argv[1], pathlib.Path(sys.argv[2])
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(fixtures.glob("*.json"))
             if not p.name.endswith("_test_config.json") and not p.read_text().lstrip().startswith("[")}
    files["stress.evalset.json"] = json.dumps(stress_evalset(), ensure_ascii=False)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        db = pathlib.Path(tmp) / "conformance.db"
        for name, text in files.items():
            source = pathlib.Path(tmp) / name
            source.write_text(text, encoding="utf-8")
            subprocess.run([binary, "--db", str(db), "import", str(source), "--app", "conformance"],
                           check=True, capture_output=True)
            eval_set_id = json.loads(text)["eval_set_id"]
            ours = subprocess.run([binary, "--db", str(db), "export", eval_set_id, "--app", "conformance"],
                                  check=True, capture_output=True, text=True).stdout.removesuffix("\n")
            theirs = adk_dump(text)
            if PERSONA_NOTE in text:
                ours, theirs = drop_persona(ours), drop_persona(theirs)
            if ours == theirs:
                passed += 1
            else:
                failed += 1
                print(f"DIFFERS: {name}\n--- evalstudio\n{ours}\n--- adk\n{theirs}", file=sys.stderr)
    print(f"conformance: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
