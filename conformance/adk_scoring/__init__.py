"""What adk_metrics.py scores both with ADK and with evalstudio: `data` (random test data),
`scenarios` (the eval sets and configs) and `compare` (scoring each both ways and comparing).

Importing the package quiets ADK and stubs its Vertex AI facade (see adk_metrics.py), before
any of its modules imports ADK."""

import logging
import sys
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
