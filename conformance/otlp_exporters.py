"""Checks Evalstudio's OTLP receiver (issue 28) against real exporters: ADK 2.13's own telemetry
(`google-adk[otel]`: opentelemetry-exporter-otlp-proto-http, protobuf) while the deterministic
weather agent answers a turn, under the default span schema (2) and the legacy one (1, sent
gzip-compressed), and with OpenInference's ADK instrumentation recording the content instead of
ADK (each must read back as the same turn); and the OpenTelemetry JS SDK's OTLP/HTTP exporter,
which writes OTLP/JSON.
Each run's spans must be stored whole: names, parents, session, content, status, resource.
Then a conversation through Evalstudio's folder mode (ADK's api_server, exporting to Evalstudio
itself): "Add to evalset" of its recorded spans must give the same case as Add current session of
the chat, once what differs by nature is set aside (NORMALISED).

Usage: python otlp_exporters.py EVALSTUDIO_BIN AGENTS_DIR NODE_MODULES
"""

import json
import os
import pathlib
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import shutil
import urllib.error
import urllib.request

HERE = pathlib.Path(__file__).parent

# One turn of an ADK agent in this process's environment (the OTEL_* variables), then a flush.
AGENT_TURN = """
import asyncio, os, sys
sys.path.insert(0, sys.argv[1])
from google.adk.telemetry.setup import maybe_set_otel_providers
maybe_set_otel_providers()
from opentelemetry import trace
from google.adk.runners import InMemoryRunner
from google.genai import types
from weather.agent import root_agent
if os.environ.get("OPENINFERENCE"):
    from openinference.instrumentation.google_adk import GoogleADKInstrumentor
    GoogleADKInstrumentor().instrument()

async def turn(session):
    runner = InMemoryRunner(agent=root_agent, app_name="weather")
    await runner.session_service.create_session(app_name="weather", user_id="u", session_id=session)
    message = types.Content(role="user", parts=[types.Part(text="What's the weather in Paris?")])
    async for _ in runner.run_async(user_id="u", session_id=session, new_message=message):
        pass

asyncio.run(turn(os.environ["SESSION"]))
trace.get_tracer_provider().force_flush()
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(binary, folder):
    """`evalstudio serve` with an [otlp] table; answers its process and endpoint."""
    (folder / "evalstudio.toml").write_text("[otlp]\nquiet_period_secs = 0\n")
    port = free_port()
    process = subprocess.Popen(
        [binary, "serve", "--addr", f"127.0.0.1:{port}", "--db", str(folder / "spans.db"),
         "--config", str(folder / "evalstudio.toml")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"{endpoint}/list-apps", timeout=5)
            return process, endpoint
        except OSError:
            time.sleep(0.2)
    raise SystemExit("evalstudio serve did not start")


def adk_turn(endpoint, agents, session, schema):
    """One turn of the weather agent exporting to `endpoint`: ADK's span schema 1 or 2, or
    "openinference": schema 2 without ADK's content capture, OpenInference's ADK
    instrumentation recording what was said instead."""
    env = dict(os.environ, SESSION=session, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
               OTEL_SERVICE_NAME="weather-prod",
               OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="SPAN_ONLY")
    if schema == 1:
        env.update(ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN="1", OTEL_EXPORTER_OTLP_COMPRESSION="gzip")
    if schema == "openinference":
        del env["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"]
        env["OPENINFERENCE"] = "1"
    subprocess.run([sys.executable, "-c", AGENT_TURN, str(agents)], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def js_trace(endpoint, node_modules, session):
    env = dict(os.environ, NODE_PATH=str(node_modules))
    subprocess.run(["node", str(HERE / "otlp_js_exporter.cjs"), endpoint, session], env=env, check=True)


def spans_of_session(db, session):
    """The spans of every trace that has a span of `session`, as dicts."""
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    rows = connection.execute(
        "SELECT * FROM trace_spans WHERE trace_id IN "
        "(SELECT trace_id FROM trace_spans WHERE session_id = ?) ORDER BY start_unix_nano",
        (session,),
    ).fetchall()
    connection.close()
    return [dict(row) for row in rows]


def check(name, spans, expectations):
    """Prints and counts each expectation that does not hold."""
    failed = 0
    for description, holds in expectations:
        try:
            held = holds(spans)
        except (TypeError, KeyError, IndexError, ValueError):  # a span or attribute missing
            held = False
        if not held:
            failed += 1
            print(f"FAIL {name}: {description}")
            for span in spans:
                print(f"  {span['name']}: {span['attributes_json'][:200]}")
    if not failed:
        print(f"ok   {name}: {len(spans)} spans")
    return failed


def named(spans, name):
    return next((s for s in spans if s["name"] == name), None)


def tool_call(spans, key):
    """An attribute of the `execute_tool get_weather` span."""
    tool = named(spans, "execute_tool get_weather")
    return tool and json.loads(tool["attributes_json"]).get(key)


def parent_is(spans, child, parent):
    child, parent = named(spans, child), named(spans, parent)
    return bool(child and parent and child["parent_span_id"] == parent["span_id"])


ADK_EXPECTATIONS = [
    ("one trace", lambda s: len({x["trace_id"] for x in s}) == 1),
    ("the agent's span", lambda s: named(s, "invoke_agent weather_agent") is not None),
    ("the tool call under the agent", lambda s: parent_is(s, "execute_tool get_weather", "invoke_agent weather_agent")),
    ("the service name", lambda s: all(x["service_name"] == "weather-prod" for x in s)),
    ("ADK's scope", lambda s: all(x["scope"] == "gcp.vertex.agent" for x in s)),
]

def tool_content(arguments, result):
    """The tool call's arguments and result, under the attribute names of a schema."""
    return [
        (f"the tool's arguments ({arguments})",
         lambda s: json.loads(tool_call(s, arguments) or "null") == {"city": "Paris"}),
        (f"the tool's result ({result})",
         lambda s: json.loads(tool_call(s, result) or "{}").get("forecast") == "sunny"),
    ]


SCHEMA_1_EXPECTATIONS = ADK_EXPECTATIONS + tool_content("gcp.vertex.agent.tool_call_args", "gcp.vertex.agent.tool_response") + [
    ("call_llm spans with the LLM request",
     lambda s: any(x["name"] == "call_llm" and "gcp.vertex.agent.llm_request" in x["attributes_json"] for x in s)),
]

SCHEMA_2_EXPECTATIONS = ADK_EXPECTATIONS + tool_content("gen_ai.tool.call.arguments", "gen_ai.tool.call.result") + [
    ("the user's message on a generate_content span",
     lambda s: any("What's the weather in Paris?" in x["attributes_json"] for x in s
                   if x["name"].startswith("generate_content"))),
]

JS_EXPECTATIONS = [
    ("two spans, the tool under the agent", lambda s: parent_is(s, "execute_tool lookup", "invoke_agent js_agent")),
    ("typed attributes", lambda s: json.loads(named(s, "execute_tool lookup")["attributes_json"]) == {"gen_ai.tool.name": "lookup", "gen_ai.tool.call.arguments": "{\"query\":\"Paris\"}",
              "retries": 2, "ratio": 0.25, "cached": False, "tags": ["a", "b"]}),
    ("the event", lambda s: json.loads(named(s, "execute_tool lookup")["events_json"])[0]["attributes"] == {"rows": 3}),
    ("the error status", lambda s: (named(s, "execute_tool lookup")["status"],
                                    named(s, "execute_tool lookup")["status_message"]) == ("error", "upstream timeout")),
    ("the SDK's resource", lambda s: json.loads(s[0]["resource_json"])["telemetry.sdk.language"] == "nodejs"),
]


# Fields a recorded session's case may differ in from the chat's: times, the evalset version, the
# app (the root agent's name, not the folder's), and invocation ids (ADK's spans carry the
# workflow's, its events the node's). The user id, which ADK sends on log records only, must agree.
NORMALISED = ["creation_timestamp", "version", "session_input.app_name",
              "conversation[].creation_timestamp", "conversation[].invocation_id"]


def normalised(case):
    case = json.loads(json.dumps(case))
    for field in NORMALISED:
        if field.startswith("conversation[]."):
            for invocation in case["conversation"]:
                invocation.pop(field.split(".", 1)[1], None)
        elif "." in field:
            outer, inner = field.split(".")
            case[outer].pop(inner, None)
        else:
            case.pop(field, None)
    return case


def invocations(endpoint, session):
    """A recorded session's invocations, without what differs from run to run (ids, times)."""
    status, view = call(endpoint, "GET", f"/apps/weather_agent/trace_sessions/{session}")
    assert status == 200, view
    for invocation in view["invocations"]:
        for key in ("invocation_id", "creation_timestamp"):
            invocation.pop(key, None)
        data = invocation.get("intermediate_data") or {}
        for call_or_response in data.get("tool_uses", []) + data.get("tool_responses", []):
            call_or_response.pop("id", None)
    return view["invocations"]


def same_turns(endpoint, session, like):
    """Whether `session`'s spans read back as the same turn as `like`'s; 0 if so, else 1."""
    got, expected = invocations(endpoint, session), invocations(endpoint, like)
    if got == expected:
        print(f"ok   the {session} spans read back as the same turn as the {like} spans")
        return 0
    print(f"FAIL the {session} spans read back otherwise than the {like} spans:")
    print(json.dumps(got, sort_keys=True))
    print(json.dumps(expected, sort_keys=True))
    return 1


def call(endpoint, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{endpoint}{path}", data=data, method=method)
    request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def folder_mode_case_pair(binary, agents, folder):
    """Chats two turns through `evalstudio web` (its ADK api_server exporting spans to it), then
    saves the session both ways; answers (chat's case, recorded session's case)."""
    copy = folder / "agents"
    shutil.copytree(agents, copy, ignore=shutil.ignore_patterns("__pycache__", "*.evalset.json"))
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    # SPAN_AND_EVENT: the messages on spans, and the log events that name the user.
    env = dict(os.environ, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
               OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="SPAN_AND_EVENT")
    adk = str(pathlib.Path(sys.executable).parent / "adk")
    process = subprocess.Popen(
        [binary, "web", str(copy), "--addr", f"127.0.0.1:{port}", "--db", str(folder / "web.db"),
         "--config", str(folder / "evalstudio.toml"), "--adk", adk],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                call(endpoint, "GET", "/list-apps")
                break
            except OSError:
                time.sleep(0.3)
        call(endpoint, "POST", "/apps/weather/users/u/sessions/chat-1", {})
        for text in ("What's the weather in Paris?", "And in Rome?"):
            message = {"role": "user", "parts": [{"text": text}]}
            status, _ = call(endpoint, "POST", "/run", {"appName": "weather", "userId": "u",
                                                        "sessionId": "chat-1", "newMessage": message})
            assert status == 200, status
        # ADK exports in batches every few seconds: wait for both turns' traces, and the log
        # records that name the user.
        deadline = time.time() + 60
        while time.time() < deadline:
            _, sessions = call(endpoint, "GET", "/apps/weather_agent/trace_sessions")
            if sessions and sessions[0]["turns"] == 2 and sessions[0]["user_id"]:
                break
            time.sleep(0.5)
        for app in ("weather", "weather_agent"):
            call(endpoint, "POST", f"/apps/{app}/eval_sets/compared", {})
        call(endpoint, "POST", "/apps/weather/eval_sets/compared/add_session",
             {"evalId": "paris_rome", "sessionId": "chat-1", "userId": "u"})
        status, answer = call(endpoint, "POST", "/apps/weather_agent/eval_sets/compared/add_trace_session",
                              {"evalId": "paris_rome", "sessionId": "chat-1"})
        assert status == 200, answer
        _, chat = call(endpoint, "GET", "/apps/weather/eval_sets/compared/evals/paris_rome")
        _, recorded = call(endpoint, "GET", "/apps/weather_agent/eval_sets/compared/evals/paris_rome")
        return chat, recorded
    finally:
        process.terminate()
        process.wait()


def main():
    binary, agents, node_modules = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        process, endpoint = serve(binary, folder)
        try:
            adk_turn(endpoint, agents, "schema-2", 2)
            adk_turn(endpoint, agents, "schema-1", 1)
            adk_turn(endpoint, agents, "openinference", "openinference")
            js_trace(endpoint, node_modules, "js-json")
            db = folder / "spans.db"
            failed = check("ADK, schema 2, protobuf", spans_of_session(db, "schema-2"), SCHEMA_2_EXPECTATIONS)
            failed += check("ADK, schema 1, protobuf gzip", spans_of_session(db, "schema-1"), SCHEMA_1_EXPECTATIONS)
            failed += check("OpenTelemetry JS, OTLP/JSON", spans_of_session(db, "js-json"), JS_EXPECTATIONS)
            failed += same_turns(endpoint, "schema-1", "schema-2")
            failed += same_turns(endpoint, "openinference", "schema-2")
        finally:
            process.terminate()
            process.wait()
        chat, recorded = folder_mode_case_pair(binary, agents, folder)
        if normalised(chat) == normalised(recorded):
            print(f"ok   Add to evalset of recorded spans = Add current session (besides {', '.join(NORMALISED)})")
        else:
            failed += 1
            print("FAIL the recorded session's case differs from Add current session's:")
            print(json.dumps(normalised(chat), sort_keys=True))
            print(json.dumps(normalised(recorded), sort_keys=True))
    print(f"otlp exporters: {'all stored' if not failed else f'{failed} failed'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
