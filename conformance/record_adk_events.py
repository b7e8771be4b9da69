"""Records what a real ADK api_server streams from /run_sse, for the `adk` agent's tests.

google-adk's own FastAPI app (the one `adk api_server` serves) runs agents whose model is
scripted (a BaseLlm that replays fixed replies), so the recording is deterministic and needs no
API key. Each scenario becomes tests/fixtures/adk_run_sse/<name>.sse: the exact response bodies
of the scenario's /run_sse requests, one file per request (suffix -<turn>), which
src/agent/adk_tests.rs serves back from a local HTTP server.

    python conformance/record_adk_events.py tests/fixtures/adk_run_sse

Timestamps and ids in ADK's events are random; they are rewritten to stable values so that
re-recording with the same google-adk version gives the same files.
"""

import json
import pathlib
import sys
import tempfile
import textwrap

from fastapi.testclient import TestClient
from google.adk.cli.fast_api import get_fast_api_app

AGENT_CODE = textwrap.dedent(
    '''
    import re
    from typing import AsyncGenerator

    from google.adk.agents import LlmAgent
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.genai import types

    # Replies per model call, in order, for each scenario (the agent's name picks the list).
    SCRIPTS = {SCRIPTS}


    def get_weather(city: str) -> dict:
        """Current weather for a city."""
        table = {"Paris": (18, "sunny"), "London": (12, "rainy")}
        if city not in table:
            raise ValueError(f"unknown city {city}")
        temperature, condition = table[city]
        return {"city": city, "temperature_c": temperature, "condition": condition}


    def get_order_status(order_id: str) -> dict:
        """Status of an order."""
        return {"order_id": order_id, "status": "shipped"}


    class ScriptedLlm(BaseLlm):
        script: str
        calls: int = 0

        async def generate_content_async(
            self, llm_request: LlmRequest, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            reply = SCRIPTS[self.script][self.calls]
            self.calls += 1
            parts = []
            for part in reply["parts"]:
                if "text" in part:
                    parts.append(types.Part(text=part["text"]))
                else:
                    call = part["call"]
                    parts.append(types.Part(function_call=types.FunctionCall(
                        id=call.get("id"), name=call["name"], args=call["args"])))
            usage = types.GenerateContentResponseUsageMetadata(
                prompt_token_count=reply.get("prompt", 10),
                candidates_token_count=reply.get("completion", 5),
                total_token_count=reply.get("prompt", 10) + reply.get("completion", 5))
            text = "".join(p.get("text", "") for p in reply["parts"])
            if stream and text and len(reply["parts"]) == 1:
                # Token by token, as Gemini streams: partial chunks, then the whole reply.
                for chunk in re.findall(r"\\S+\\s*", text):
                    yield LlmResponse(
                        content=types.Content(role="model", parts=[types.Part(text=chunk)]),
                        partial=True)
            yield LlmResponse(content=types.Content(role="model", parts=parts),
                              usage_metadata=usage)


    def scripted(name, script, **kwargs):
        return LlmAgent(name=name, model=ScriptedLlm(model="scripted", script=script),
                        instruction="Answer with the tools.", **kwargs)
    '''
)

SCENARIOS = {
    # Two parallel calls, then a streamed answer.
    "parallel_calls": {
        "script": [
            {"parts": [
                {"call": {"name": "get_weather", "args": {"city": "Paris"}}},
                {"call": {"name": "get_order_status", "args": {"order_id": "A1001"}}},
            ], "prompt": 120, "completion": 20},
            {"parts": [{"text": "It is 18 °C and sunny in Paris. Order A1001 has shipped."}],
             "prompt": 180, "completion": 16},
        ],
        "agent": "root_agent = scripted('assistant', 'parallel_calls', tools=[get_weather, get_order_status])",
        "turns": ["Weather in Paris, and where is order A1001?"],
        "streaming": True,
    },
    # Text before a tool call in the same reply; a second turn; no streaming.
    "multi_turn": {
        "script": [
            {"parts": [
                {"text": "Let me check the weather."},
                {"call": {"name": "get_weather", "args": {"city": "Paris"}}},
            ]},
            {"parts": [{"text": "Sunny, 18 °C in Paris."}]},
            {"parts": [{"call": {"name": "get_weather", "args": {"city": "London"}}}]},
            {"parts": [{"text": "Rainy, 12 °C in London."}]},
        ],
        "agent": "root_agent = scripted('assistant', 'multi_turn', tools=[get_weather])",
        "turns": ["Weather in Paris?", "And in London?"],
        "streaming": False,
    },
    # A tool that raises: ADK ends the run with an error.
    "tool_error": {
        "script": [
            {"parts": [{"call": {"name": "get_weather", "args": {"city": "Atlantis"}}}]},
        ],
        "agent": "root_agent = scripted('assistant', 'tool_error', tools=[get_weather])",
        "turns": ["Weather in Atlantis?"],
        "streaming": False,
    },
    # The root agent hands over to a sub-agent, which calls a tool and answers.
    "sub_agent": {
        "script": [
            {"parts": [{"call": {"name": "transfer_to_agent", "args": {"agent_name": "orders"}}}]},
            {"parts": [{"text": "Looking up A1001."},
                       {"call": {"name": "get_order_status", "args": {"order_id": "A1001"}}}]},
            {"parts": [{"text": "Order A1001 has shipped."}]},
        ],
        "agent": textwrap.dedent(
            """
            orders = scripted('orders', 'sub_agent', tools=[get_order_status])
            root_agent = scripted('assistant', 'sub_agent', sub_agents=[orders])
            # Both agents share one script: one model object answers every call in order.
            orders.model = root_agent.model
            """
        ),
        "turns": ["Where is order A1001?"],
        "streaming": False,
    },
}


def stabilise(body: str) -> str:
    """Replaces ADK's random ids and clock times with stable ones (consistently per body)."""
    names: dict[str, str] = {}

    def stable(kind: str, value: str) -> str:
        key = f"{kind}:{value}"
        if key not in names:
            names[key] = f"{kind}-{sum(k.startswith(kind + ':') for k in names) + 1}"
        return names[key]

    lines = []
    start = None
    for line in body.split("\n"):
        if line.startswith("data:"):
            event = json.loads(line[5:])
            if "timestamp" in event:
                start = start if start is not None else event["timestamp"]
                # Keep the spacing between events (tool durations), rounded to milliseconds.
                event["timestamp"] = round(1_700_000_000 + (event["timestamp"] - start), 3)
            for key in ("id", "invocationId"):
                if key in event:
                    event[key] = stable(key, event[key])
            for part in (event.get("content") or {}).get("parts", []):
                for kind in ("functionCall", "functionResponse"):
                    if kind in part and "id" in part[kind]:
                        part[kind]["id"] = stable("call", part[kind]["id"])
            if "error_details" in event:
                event["error_details"].pop("timestamp", None)
            line = "data: " + json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        lines.append(line)
    return "\n".join(lines)


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    scripts = {name: s["script"] for name, s in SCENARIOS.items()}
    with tempfile.TemporaryDirectory() as agents_dir:
        for name, scenario in SCENARIOS.items():
            app_dir = pathlib.Path(agents_dir, name)
            app_dir.mkdir()
            (app_dir / "__init__.py").write_text("from . import agent\n")
            code = AGENT_CODE.replace("{SCRIPTS}", repr(scripts)) + "\n" + scenario["agent"] + "\n"
            (app_dir / "agent.py").write_text(code)
        app = get_fast_api_app(agents_dir=agents_dir, web=False)
        with TestClient(app) as client:
            for name, scenario in SCENARIOS.items():
                session = client.post(f"/apps/{name}/users/u1/sessions/s1", json={"tier": "gold"})
                session.raise_for_status()
                for turn, message in enumerate(scenario["turns"], start=1):
                    response = client.post("/run_sse", json={
                        "app_name": name, "user_id": "u1", "session_id": "s1",
                        "new_message": {"role": "user", "parts": [{"text": message}]},
                        "streaming": scenario["streaming"],
                    })
                    response.raise_for_status()
                    path = out / f"{name}-{turn}.sse"
                    path.write_text(stabilise(response.text), encoding="utf-8")
                    print(f"recorded {path} ({response.text.count('data:')} events)")


if __name__ == "__main__":
    main()
