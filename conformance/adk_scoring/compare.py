"""Scoring a scenario with ADK's evaluators and with `evalstudio score`, and comparing the two."""

import asyncio
import json
import pathlib
import subprocess
import types

from google.adk.agents import LlmAgent
from google.adk.evaluation.agent_evaluator import AgentEvaluator
from google.adk.evaluation.base_eval_service import (
    EvaluateConfig,
    EvaluateRequest,
    InferenceResult,
    InferenceStatus,
)
from google.adk.evaluation.eval_case import get_all_tool_calls
from google.adk.evaluation.eval_config import (
    _DEFAULT_EVAL_CONFIG,
    EvalConfig,
    get_eval_metrics_from_config,
)
from google.adk.evaluation.eval_result import EvalSetResult
from google.adk.evaluation.eval_set import EvalSet
from google.adk.evaluation.evaluator import EvalStatus
from google.adk.evaluation.in_memory_eval_sets_manager import InMemoryEvalSetsManager
from google.adk.evaluation.local_eval_service import LocalEvalService

from .scenarios import Scenario

TOLERANCE = 1e-9
APP = "conformance"


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
