"""google-adk's own `adk` command with its Vertex AI eval facade stubbed, so `adk eval` runs
without the `google-adk[eval]` extra (pandas, vertexai): the tests run ADK's evaluators, never
Vertex AI's. Usage: python conformance/adk_cli.py eval AGENT_DIR EVALSET_FILE."""

import sys
import types

_NAME = "google.adk.evaluation.vertex_ai_eval_facade"


class _Unavailable:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("Vertex AI metrics need google-adk[eval]")


_stub = types.ModuleType(_NAME)
_stub._SingleTurnVertexAiEvalFacade = _Unavailable
_stub._MultiTurnVertexiAiEvalFacade = _Unavailable
sys.modules[_NAME] = _stub

from google.adk.cli.cli_tools_click import main  # noqa: E402

sys.argv[0] = "adk"
sys.exit(main())
