"""Writes how google-adk's judge-reply parsers read a few hundred replies, well formed and
malformed, for Evalstudio's unit tests to compare its own parsers with (`eval::judge` tests):
`per_turn_user_simulator_quality_v1`'s `"is_valid"` label, `hallucinations_v1`'s sentences and
sentence labels, and the rubric-based metrics' ID/Property/Rationale/Verdict blocks. The
replies come from `adk_judge_metrics.py`'s scripted judge and from a list of edge cases.

Usage: python adk_judge_replies.py OUT_JSON
"""

import json
import random
import sys
import warnings

warnings.simplefilter("ignore")  # ADK marks the evaluators "experimental" on every use.

from adk_judge_metrics import segmentation, simulator_quality_reply, validation, rubric_reply  # noqa: E402
from google.adk.evaluation.hallucinations_v1 import _parse_sentences, _parse_validation_results  # noqa: E402
from google.adk.evaluation.rubric_based_evaluator import DefaultAutoRaterResponseParser  # noqa: E402
from google.adk.evaluation.simulation.per_turn_user_simulator_quality_v1 import _parse_llm_response  # noqa: E402

SEED = 7

IS_VALID_EDGES = [
    '"is_valid": True,', '"is_valid": True', '"is_valid":true}', '"is_valid": ["valid", "x"],', '"is_valid": "ok"\n',
    '"is_valid"  : true,', '"is_valid":\n\n  "VALID"\n}', '"is_valid": "partially valid",', '"is_valid": "}valid}",',
    '"is_valid": tr,ue,', '"is_valid": ", true,', '"is_valid": True "x": 1}', '"is_valid": [[[ "invalid" ]]]\n',
    'no label here', '', '"is_valid": False, "is_valid": True,', '"is_valid":\u2003true\u3000,', '"is_valid": "a]b",',
]

RUBRIC_EDGES = [
    "ID: r1\nProperty: The answer is short.\nRationale: ok\nVerdict: yes",
    "Property: a\nRationale: b\nVerdict: no\n\nProperty: c\nVerdict: yes",
    "  ID: r2\n\n  Property: p\nRationale: x\nVerdict: Nope",
    "Property: p\nRationale: x\nVerdict: maybe\nID: late",
    "ID:\nProperty: p\nRationale: x\nVerdict: YES\nID: r3\nID: r4\nProperty: q\nRationale: y\nVerdict: no",
    "**Property:** p\nRationale: x\nVerdict: yes",
]

SENTENCE_EDGES = ["<sentence>a</sentence><sentence>b", "<sentence>\n</sentence>", "<sentence>a<sentence>b</sentence>",
                  "no tags", "</sentence><sentence>x</sentence>"]

VALIDATION_EDGES = [
    "sentence: a\nlabel: supported\nrationale: r\nsupporting_excerpt: null\ncontradicting_excerpt: null",
    "Sentence: a\nLABEL: Disputed\nrationale: r\nsupporting_excerpt: x\ncontradicting_excerpt: y\nsentence: b\nlabel: "
    "unsupported\nrationale: r2\nsupporting_excerpt: null\ncontradicting_excerpt: null\n",
    "sentence: a\nlabel: supported\nsupporting_excerpt: null\ncontradicting_excerpt: null\n\nsentence: b\nlabel: x\n"
    "rationale: r\nsupporting_excerpt: null\ncontradicting_excerpt: null",
    "  \n sentence: the sentence: is here\nlabel:not_applicable\nrationale:\nsupporting_excerpt:\ncontradicting_excerpt:",
]


def sentences_prompt(sentences: list[str]) -> str:
    listed = "\n".join(f"<sentence>{s}</sentence>" for s in sentences)
    return f"**Sentences Begin**\n{listed}\n**Sentences End**"


def main() -> None:
    rng = random.Random(SEED)
    texts = ["Paris is sunny. It is 25 °C!", "It has three criteria: * aaa. * bbb.\n1. one\n2. two",
             "Zürich: rain tomorrow? Maybe.", "Short"]
    is_valid = IS_VALID_EDGES + [simulator_quality_reply(rng, "") for _ in range(150)]
    segmentations = SENTENCE_EDGES + [
        segmentation(rng, f"**Response Begin**\n{rng.choice(texts)}\n**Response End**") for _ in range(60)]
    validations = VALIDATION_EDGES + [
        validation(rng, sentences_prompt(rng.sample(texts, rng.randint(1, 4)))) for _ in range(100)]
    rubrics = [("r1", "The answer is short."), ("r2", "It names the city."), ("r3", "Temperatures say °C.")]
    rubric_replies = RUBRIC_EDGES + [rubric_reply(rng, rubrics) for _ in range(100)]
    parser = DefaultAutoRaterResponseParser()
    out = {
        "is_valid": [{"reply": r, "label": _parse_llm_response(r).name} for r in is_valid],
        "sentences": [{"reply": r, "sentences": _parse_sentences(r)} for r in segmentations],
        "labels": [{"reply": r, "labels": [[v["sentence"], v["label"], v["rationale"]]
                                           for v in _parse_validation_results(r)]} for r in validations],
        "rubrics": [{"reply": r, "verdicts": [[v.rubric_id, v.property_text, v.rationale, v.score]
                                              for v in parser.parse(r)]} for r in rubric_replies],
    }
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
