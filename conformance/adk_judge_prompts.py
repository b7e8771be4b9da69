"""Writes the prompts google-adk's judge metrics send for a few invocations, for Evalstudio's
unit tests to compare its own prompts with byte for byte (`eval::judge` tests).

Scenarios cover both intermediate-data forms, tool calls with and without a response, app
details (developer instructions and tool declarations), grounding metadata, rubrics from the
criterion and from the invocation, and `include_intermediate_responses_in_final`.

Usage: python adk_judge_prompts.py OUT_JSON
"""

import json
import sys
import warnings

warnings.simplefilter("ignore")  # ADK marks the judge evaluators "experimental" on every use.

from google.adk.evaluation.eval_case import Invocation  # noqa: E402
from google.adk.evaluation.eval_metrics import (  # noqa: E402
    EvalMetric,
    LlmAsAJudgeCriterion,
    RubricsBasedCriterion,
)
from google.adk.evaluation.final_response_match_v2 import (  # noqa: E402
    FinalResponseMatchV2Evaluator,
)
from google.adk.evaluation.rubric_based_final_response_quality_v1 import (  # noqa: E402
    RubricBasedFinalResponseQualityV1Evaluator,
)


def text(role, *texts):
    return {"role": role, "parts": [{"text": t} for t in texts]}


RUBRICS = [
    {"rubric_id": "concise", "rubric_content": {"text_property": "The answer is concise."}},
    {"rubric_id": "units", "rubric_content": {"text_property": "Temperatures say °C or °F."}},
]

SCENARIOS = [
    {
        "name": "tool_uses_form",
        "include_intermediate": False,
        "actual": {
            "invocation_id": "a1",
            "user_content": text("user", "What's the weather in Paris?"),
            "final_response": text("model", "It is sunny in Paris, 25 °C."),
            "intermediate_data": {
                "tool_uses": [
                    {"id": "c1", "name": "get_weather", "args": {"city": "Paris", "days": 1}},
                    {"id": "c2", "name": "convert", "args": {"value": 25.0}},
                ],
                "tool_responses": [
                    {"id": "c1", "name": "get_weather", "response": {"temp_c": 25, "sky": "sunny"}}
                ],
                "intermediate_responses": [["weather_agent", [{"text": "Let me check."}]]],
            },
            "app_details": {
                "agent_details": {
                    "weather_agent": {
                        "name": "weather_agent",
                        "instructions": "Answer weather questions with tools.",
                        "tool_declarations": [
                            {"function_declarations": [{"name": "get_weather", "description": "Weather by city."}]}
                        ],
                    }
                }
            },
            "rubrics": [
                {
                    "rubric_id": "cites_tool",
                    "rubric_content": {"text_property": "The answer uses the tool's data."},
                    "type": "FINAL_RESPONSE_QUALITY",
                },
                {
                    "rubric_id": "other_type",
                    "rubric_content": {"text_property": "Not for this metric."},
                    "type": "TOOL_USE_QUALITY",
                },
            ],
        },
        "expected": {
            "invocation_id": "e1",
            "user_content": text("user", "What's the weather in Paris?"),
            "final_response": text("model", "Sunny, 25 degrees."),
        },
    },
    {
        "name": "invocation_events_form",
        "include_intermediate": True,
        "actual": {
            "invocation_id": "a2",
            "user_content": text("user", "Order 42?", "Thanks"),
            "final_response": text("model", "Order 42 has shipped."),
            "intermediate_data": {
                "invocation_events": [
                    {
                        "author": "orders_agent",
                        "content": {
                            "role": "model",
                            "parts": [
                                {"text": "Looking it up."},
                                {"function_call": {"id": "x", "name": "get_order_status", "args": {"order_id": "42"}}},
                            ],
                        },
                    },
                    {
                        "author": "orders_agent",
                        "content": {
                            "role": "user",
                            "parts": [
                                {"function_response": {"id": "x", "name": "get_order_status", "response": {"status": "shipped"}}}
                            ],
                        },
                        "grounding_metadata": {"web_search_queries": ["order 42"]},
                    },
                ]
            },
        },
        "expected": {
            "invocation_id": "e2",
            "user_content": text("user", "Order 42?", "Thanks"),
            "final_response": text("model", "It shipped."),
            "intermediate_data": {"intermediate_responses": [["orders_agent", [{"text": "One moment."}]]]},
        },
    },
]


def main(out_path):
    results = []
    for scenario in SCENARIOS:
        actual = Invocation.model_validate(scenario["actual"])
        expected = Invocation.model_validate(scenario["expected"])
        include = scenario["include_intermediate"]
        v2 = FinalResponseMatchV2Evaluator(
            EvalMetric(
                metric_name="final_response_match_v2",
                threshold=0.5,
                criterion=LlmAsAJudgeCriterion(threshold=0.5, include_intermediate_responses_in_final=include),
            )
        )
        rubric = RubricBasedFinalResponseQualityV1Evaluator(
            EvalMetric(
                metric_name="rubric_based_final_response_quality_v1",
                threshold=0.5,
                criterion=RubricsBasedCriterion(
                    threshold=0.5, rubrics=RUBRICS, include_intermediate_responses_in_final=include
                ),
            )
        )
        results.append(
            {
                "name": scenario["name"],
                "include_intermediate_responses_in_final": include,
                "criterion_rubrics": RUBRICS,
                "actual": scenario["actual"],
                "expected": scenario["expected"],
                "final_response_match_v2": v2.format_auto_rater_prompt(actual, expected),
                "rubric_based_final_response_quality_v1": rubric.format_auto_rater_prompt(actual, None),
            }
        )
    with open(out_path, "w", encoding="utf-8") as out:
        json.dump(results, out, indent=2, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
