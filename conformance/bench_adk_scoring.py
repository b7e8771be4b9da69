"""Times google-adk's own evaluators (tool_trajectory_avg_score and response_match_score) on an
expected and an actual evalset, for `cargo bench --bench scoring` to compare with Evalstudio.
Only the evaluation is timed, not reading the files.

Usage: python bench_adk_scoring.py EXPECTED.evalset.json ACTUAL.evalset.json
Prints one JSON line: {"seconds": ..., "invocations": ...}.
"""

import json
import sys
import time
import warnings

warnings.simplefilter("ignore")

from google.adk.evaluation.eval_metrics import EvalMetric  # noqa: E402
from google.adk.evaluation.eval_set import EvalSet  # noqa: E402
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator  # noqa: E402
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator  # noqa: E402


def main() -> None:
    expected = EvalSet.model_validate_json(open(sys.argv[1], encoding="utf-8").read())
    actual = EvalSet.model_validate_json(open(sys.argv[2], encoding="utf-8").read())
    pairs = list(zip(expected.eval_cases, actual.eval_cases))
    trajectory = TrajectoryEvaluator(
        eval_metric=EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0)
    )
    rouge = RougeEvaluator(EvalMetric(metric_name="response_match_score", threshold=0.8))
    started = time.perf_counter()
    for expected_case, actual_case in pairs:
        trajectory.evaluate_invocations(actual_case.conversation, expected_case.conversation)
        rouge.evaluate_invocations(actual_case.conversation, expected_case.conversation)
    seconds = time.perf_counter() - started
    invocations = sum(len(case.conversation) for _, case in pairs)
    print(json.dumps({"seconds": seconds, "invocations": invocations}))


if __name__ == "__main__":
    main()
