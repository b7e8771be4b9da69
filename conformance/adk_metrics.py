"""Checks that `evalstudio score` gives the scores and statuses google-adk's own evaluators give.

It generates test data from a fixed seed: text pairs (the whole `english-words` web2 list and
suffixed forms of its words, to exercise every rule of NLTK's Porter stemmer, plus sentences
mixing punctuation, numbers, CJK, Thai and other scripts, NFKC-sensitive characters, emoji and
empty strings), tool trajectories in both intermediate-data forms (every match type, with and
without ignore_args, 1 vs 1.0, true vs 1, nested args, key order, ids, null vs empty args), and
the ADK fixtures that hold expected data. Each scenario (an expected eval set, one or more
actual runs, an eval config) is scored twice:

- by ADK: `LocalEvalService.evaluate` with the metrics of ADK's own `EvalConfig`, which runs
  `TrajectoryEvaluator` and `RougeEvaluator` and derives each case's status; across runs,
  `AgentEvaluator._process_metrics_and_get_failures`, which pools the runs' scores;
- by `evalstudio score EXPECTED ACTUAL... [--config] --json OUT`.

Every per-invocation and overall score must agree to 1e-9 and every status exactly; the result
must also load as ADK's `EvalSetResult`.

ADK's metric registry imports its Vertex AI facade, which needs pandas and the Vertex AI SDK
(the `google-adk[eval]` extra, several hundred MB). No metric compared here uses it, so a stub
module stands in for it.

Usage: python adk_metrics.py EVALSTUDIO_BIN FIXTURES_DIR
"""

import pathlib
import random
import subprocess
import sys
import tempfile

# The package comes first: importing it quiets ADK and stubs its Vertex AI facade.
from adk_scoring.compare import Comparison, run_scenario
from adk_scoring.data import english_vocabulary, eval_set, invocation, response, stemmer_words, text_pairs
from adk_scoring.scenarios import (
    VOCABULARY,
    VOCABULARY_CASE,
    VOCABULARY_CHUNK,
    Scenario,
    efficiency_scenario,
    fixture_scenarios,
    text_scenario,
    threshold_edge_scenario,
    trajectory_scenario,
    vocabulary_scenario,
)
from nltk.stem.porter import PorterStemmer

SEED = 20240611


def words_stemmed_unlike_nltk(binary: str, words: list[str], tmp: pathlib.Path) -> list[str]:
    """Scores each word alone against its NLTK stem; a differing score shows which words we stem
    differently."""
    stemmer = PorterStemmer()
    scenario = Scenario("single words",
                        eval_set("words", [(w, [invocation("q", response(stemmer.stem(w)), None)]) for w in words]),
                        [eval_set("words", [(w, [invocation("q", response(w), None)]) for w in words])],
                        {"criteria": {"response_match_score": 0.8}}, "text")
    comparison = Comparison()
    run_scenario(binary, scenario, tmp, comparison)
    return sorted({eval_id for _, eval_id, _ in comparison.locations})


def config_error_checks(binary: str, fixtures: pathlib.Path, tmp: pathlib.Path, comparison: Comparison) -> None:
    """Configs we cannot honour yet must fail loudly (exit 2), not score silently."""
    expected = fixtures / "simple_test.test.json"
    vertex_only = tmp / "vertex_only_config.json"
    vertex_only.write_text('{"criteria": {"safety_v1": 0.8}}')
    bad = tmp / "bad_config.json"
    bad.write_text('{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "exactly"}}}')
    checks = [(vertex_only, "`safety_v1`"), (bad, "match_type")]
    for config, message in checks:
        process = subprocess.run([binary, "score", str(expected), str(expected), "--config", str(config)],
                                 capture_output=True, text=True)
        comparison.statuses += 1
        if process.returncode != 2 or message not in process.stderr:
            comparison.mismatches.append(f"config {config.name}: exit {process.returncode}, {process.stderr!r}")


def main() -> int:
    binary, fixtures = sys.argv[1], pathlib.Path(sys.argv[2])
    rng = random.Random(SEED)
    vocabulary = english_vocabulary()
    words = stemmer_words(rng, vocabulary)
    pairs = text_pairs(rng, vocabulary, 1500)
    trajectory_configs = []
    for match_type in ("EXACT", "IN_ORDER", "ANY_ORDER"):
        for ignore_args in (False, True):
            trajectory_configs.append((f"{match_type}, ignore_args={ignore_args}", {"criteria": {
                "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": match_type, "ignore_args": ignore_args}}}))
    trajectory_configs += [
        ("in-order spelled as ADK normalises it, threshold 0.5",
         {"criteria": {"tool_trajectory_avg_score": {"threshold": 0.5, "matchType": " in-order "}}}),
        ("match type 2, both metrics", {"criteria": {"tool_trajectory_avg_score": {"threshold": 0.6, "match_type": 2},
                                                     "response_match_score": 0.4}}),
    ]
    scenarios = [vocabulary_scenario(words), threshold_edge_scenario(),
                 text_scenario(rng, pairs[:1000], 1, {"criteria": {"response_match_score": 0.5}}),
                 text_scenario(rng, pairs[1000:], 3, None)]
    for name, config in trajectory_configs:
        scenarios.append(trajectory_scenario(rng, f"trajectories {name}", config, 120, rng.choice([1, 2, 3])))
    scenarios.append(trajectory_scenario(rng, "trajectories, default config", None, 120, 2))
    scenarios += fixture_scenarios(rng, fixtures, vocabulary)
    scenarios.append(efficiency_scenario(rng, 300, 2))

    comparison = Comparison()
    counted = {"text": 0, "trajectory": 0, "fixture": 0, "efficiency": 0}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for scenario in scenarios:
            run_scenario(binary, scenario, tmp, comparison)
            counted[scenario.kind] += sum(len(c["conversation"]) for run in scenario.runs for c in run["eval_cases"])
        chunks = {(int(eval_id.split("-")[1]) * VOCABULARY_CASE + index)
                  for name, eval_id, index in comparison.locations if name == VOCABULARY}
        if chunks:
            suspects = [w for chunk in sorted(chunks) for w in words[chunk * VOCABULARY_CHUNK:][:VOCABULARY_CHUNK]]
            wrong = words_stemmed_unlike_nltk(binary, suspects, tmp)
            comparison.mismatches.append(f"stemmer: words stemmed unlike NLTK: {wrong[:100]}")
        config_error_checks(binary, fixtures, tmp, comparison)

    shown: dict[str, int] = {}
    for mismatch in comparison.mismatches:
        scenario = mismatch.split(",")[0].split(":")[0]
        shown[scenario] = shown.get(scenario, 0) + 1
        if shown[scenario] <= 5:
            print(f"MISMATCH {mismatch}", file=sys.stderr)
    for scenario, count in shown.items():
        print(f"{count} mismatches in {scenario}", file=sys.stderr)
    print(f"adk metrics: {len(scenarios)} scenarios; {len(words)} words through the stemmer; "
          f"{counted['text']} text invocations ({len(pairs)} random pairs), {counted['trajectory']} trajectory "
          f"invocations, {counted['fixture']} fixture invocations, {counted['efficiency']} invocations with usage "
          f"and timings scored; "
          f"{comparison.scores} scores and {comparison.statuses} statuses compared; "
          f"{len(comparison.mismatches)} mismatches")
    compared = comparison.scores + comparison.statuses
    print(f"conformance: {compared - len(comparison.mismatches)} passed, {len(comparison.mismatches)} failed")
    return 1 if comparison.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
