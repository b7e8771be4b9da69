"""Checks that `evalstudio score --json-summary` gave every case the overall scores google-adk's
evaluators gave (conformance/adk_whole_scoring.py), to 1e-9.

Usage: python compare_whole_scores.py ADK_SCORES.json EVALSTUDIO_SUMMARY.json
Prints one line; exits 1 on any difference.
"""

import json
import math
import sys


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as file:
        adk = json.load(file)
    with open(sys.argv[2], encoding="utf-8") as file:
        ours = {run["eval_id"]: run for run in json.load(file)["case_runs"]}
    compared, differences = 0, []
    for eval_id, scores in adk.items():
        metrics = {m["metric_name"]: m["score"] for m in ours[eval_id]["metrics"]}
        for metric, score in scores.items():
            compared += 1
            mine = metrics.get(metric)
            same = (mine is None and score is None) or (
                mine is not None and score is not None and math.isclose(mine, score, abs_tol=1e-9)
            )
            if not same:
                differences.append(f"{eval_id} {metric}: ADK {score}, Evalstudio {mine}")
    if len(ours) != len(adk):
        differences.append(f"{len(adk)} cases scored by ADK, {len(ours)} by Evalstudio")
    print(f"scores compared: {compared}, different: {len(differences)}")
    for line in differences[:10]:
        print(f"  {line}")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
