"""Writes tests/fixtures/agents/weather/smoke.evalset.json by running the `weather` agent in ADK.

The `weather` app (tests/fixtures/agents/weather) has a scripted model, so it runs offline and
always gives the same conversation. This script does what `adk web`'s "add session to eval set"
does (google.adk.cli.dev_server's add_session_to_eval_set): run the agent with ADK's Runner,
convert the session to eval invocations with ADK's own converter, and let ADK's
LocalEvalSetsManager write the eval set, so the file's bytes are ADK's.

    ~/.cache/evalstudio/venv/bin/python conformance/record_weather_evalset.py

It works in a temporary copy of the agents folder, so no .adk/ or __pycache__ is left in the
fixture. Ids and timestamps in the file are ADK's, hence new on every run.
"""

import asyncio
import pathlib
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True

from google.adk.cli.utils import evals  # noqa: E402
from google.adk.cli.utils.agent_loader import AgentLoader  # noqa: E402
from google.adk.cli.utils.state import create_empty_state  # noqa: E402
from google.adk.evaluation.eval_case import EvalCase  # noqa: E402
from google.adk.evaluation.eval_case import SessionInput  # noqa: E402
from google.adk.evaluation.local_eval_sets_manager import LocalEvalSetsManager  # noqa: E402
from google.adk.runners import Runner  # noqa: E402
from google.adk.sessions.in_memory_session_service import InMemorySessionService  # noqa: E402
from google.genai import types  # noqa: E402

FIXTURE = pathlib.Path(__file__).resolve().parent.parent / "tests/fixtures/agents/weather"
APP, USER, EVAL_SET, CASES = "weather", "user", "smoke", {"paris": ["What is the weather in Paris?"]}


async def record(agents_dir: pathlib.Path) -> None:
  root_agent = AgentLoader(str(agents_dir)).load_agent(APP)
  sessions = InMemorySessionService()
  runner = Runner(app_name=APP, agent=root_agent, session_service=sessions)
  manager = LocalEvalSetsManager(agents_dir=str(agents_dir))
  manager.create_eval_set(APP, EVAL_SET)
  for eval_id, turns in CASES.items():
    session = await sessions.create_session(app_name=APP, user_id=USER)
    for text in turns:
      async for _ in runner.run_async(
          user_id=USER,
          session_id=session.id,
          new_message=types.Content(role="user", parts=[types.Part(text=text)]),
      ):
        pass
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=session.id)
    manager.add_eval_case(
        APP,
        EVAL_SET,
        EvalCase(
            eval_id=eval_id,
            conversation=evals.convert_session_to_eval_invocations(session),
            session_input=SessionInput(
                app_name=APP, user_id=USER, state=create_empty_state(root_agent)
            ),
            creation_timestamp=time.time(),
        ),
    )


def main() -> None:
  with tempfile.TemporaryDirectory() as tmp:
    agents_dir = pathlib.Path(tmp)
    shutil.copytree(FIXTURE, agents_dir / APP, ignore=shutil.ignore_patterns(".adk", "__pycache__"))
    (agents_dir / APP / f"{EVAL_SET}.evalset.json").unlink(missing_ok=True)
    asyncio.run(record(agents_dir))
    shutil.copyfile(agents_dir / APP / f"{EVAL_SET}.evalset.json", FIXTURE / f"{EVAL_SET}.evalset.json")
  print(f"wrote {FIXTURE / f'{EVAL_SET}.evalset.json'}")


if __name__ == "__main__":
  main()
