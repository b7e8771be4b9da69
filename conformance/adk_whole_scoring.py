"""google-adk's own evaluators as a whole process, for scripts/bench-whole-score to time beside
`evalstudio score`: reads an expected and an actual evalset, scores every case with
TrajectoryEvaluator (tool_trajectory_avg_score, threshold 1.0) and RougeEvaluator
(response_match_score, threshold 0.8), and writes each case's overall scores as JSON
({eval_id: {metric: score}}), the verdicts CI needs.

Usage: python adk_whole_scoring.py EXPECTED.evalset.json ACTUAL.evalset.json OUT.json
"""

import json
import sys
import warnings

warnings.simplefilter("ignore")

from google.adk.evaluation.eval_metrics import EvalMetric  # noqa: E402
from google.adk.evaluation.eval_set import EvalSet  # noqa: E402
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator  # noqa: E402
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator  # noqa: E402


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as file:
        expected = EvalSet.model_validate_json(file.read())
    with open(sys.argv[2], encoding="utf-8") as file:
        actual = {case.eval_id: case for case in EvalSet.model_validate_json(file.read()).eval_cases}
    evaluators = {
        "tool_trajectory_avg_score": TrajectoryEvaluator(
            eval_metric=EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0)
        ),
        "response_match_score": RougeEvaluator(
            EvalMetric(metric_name="response_match_score", threshold=0.8)
        ),
    }
    scores = {}
    for case in expected.eval_cases:
        got = actual[case.eval_id].conversation
        scores[case.eval_id] = {
            name: evaluator.evaluate_invocations(got, case.conversation).overall_score
            for name, evaluator in evaluators.items()
        }
    with open(sys.argv[3], "w", encoding="utf-8") as file:
        json.dump(scores, file)


if __name__ == "__main__":
    main()
