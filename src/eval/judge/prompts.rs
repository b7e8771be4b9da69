//! The judge prompts. ADK's are google-adk 2.13's templates byte for byte (Apache-2.0,
//! `final_response_match_v2.py`, `rubric_based_final_response_quality_v1.py` and the other
//! rubric-based, hallucination and simulator-quality evaluators), kept in text files next to
//! this one; the modules of the metrics with several prompts include theirs. The others follow
//! the evaluators the metrics are named after (Spring AI's RelevancyEvaluator and
//! FactCheckingEvaluator, LlamaIndex's faithfulness and relevancy evaluators, Ragas' context
//! precision, context recall and faithfulness), written for replies this module can read: one
//! word, a `{score, feedback}` object, or a JSON list.

/// ADK's `_FINAL_RESPONSE_MATCH_V2_PROMPT`: `{prompt}`, `{response}`, `{golden_response}`.
pub(super) const FINAL_RESPONSE_MATCH_V2: &str = include_str!("final_response_match_v2.txt");

/// ADK's `_RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1_PROMPT`.
pub(super) const RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1: &str =
    include_str!("rubric_based_final_response_quality_v1.txt");

/// ADK's `_RUBRIC_BASED_TOOL_USE_QUALITY_V1_PROMPT`.
pub(super) const RUBRIC_BASED_TOOL_USE_QUALITY_V1: &str =
    include_str!("rubric_based_tool_use_quality_v1.txt");

/// Spring AI's RelevancyEvaluator: is the response in line with the query and the context?
pub(super) const RELEVANCY: &str = "\
Your task is to judge whether the response to the query is in line with the context information provided.
Answer with one word, YES or NO: YES if the response to the query is in line with the context information, otherwise NO.

Query:
{query}

Response:
{response}

Context:
{context}

Answer:
";

/// Spring AI's FactCheckingEvaluator: is the claim supported by the document? Also used to check
/// one statement against the context for `faithfulness` and `context_recall`.
pub(super) const FACT_CHECKING: &str = "\
Decide whether the claim below is supported by the document.
Reply \"yes\" if the document supports the claim, or \"no\" if it does not.

Document:
{document}

Claim:
{claim}
";

pub(super) const ANSWER_CORRECTNESS: &str = "\
Your task is to judge whether the response answers the query correctly, taking the reference answer as the truth.
The response may be worded differently or say more than the reference. It is correct if it agrees with the reference on everything the query asks for; it is incorrect if it contradicts the reference or leaves out something the reference gives as part of the answer.
Answer with one word, YES or NO.

Query:
{query}

Response:
{response}

Reference answer:
{reference}

Answer:
";

pub(super) const ANSWER_FAITHFULNESS: &str = "\
Your task is to rate how faithful the response is to the context information: whether everything the response states is supported by the context, with nothing added that the context does not back up and nothing that contradicts it.
Score from 0 to 1: 1 when every statement of the response is supported by the context, 0 when the response is unsupported by or contradicts the context, and a value in between when it is partly supported.

Query:
{query}

Response:
{response}

Context:
{context}

Reply with a JSON object and nothing else, in this form:
{\"score\": <a number from 0 to 1>, \"feedback\": \"<one or two sentences saying why>\"}
";

pub(super) const ANSWER_RELEVANCY: &str = "\
Your task is to rate how relevant the response is to the query: whether it addresses what the user asked, all of it, without drifting to other topics. Use the context information, if any, only to understand the query; do not judge whether the response is correct.
Score from 0 to 1: 1 when the response fully addresses the query, 0 when it does not address it at all, and a value in between when it addresses it in part.

Query:
{query}

Response:
{response}

Context:
{context}

Reply with a JSON object and nothing else, in this form:
{\"score\": <a number from 0 to 1>, \"feedback\": \"<one or two sentences saying why>\"}
";

/// Ragas' context precision, one context item at a time.
pub(super) const CONTEXT_USEFUL: &str = "\
Your task is to judge whether a piece of context was useful in arriving at the answer to the question.
Answer with one word, YES or NO: YES if the context holds information that the answer uses or needs, otherwise NO.

Question:
{query}

Answer:
{answer}

Context:
{item}

Verdict:
";

/// The statements of a text (the response's claims for `faithfulness`, the reference's
/// statements for `context_recall`).
pub(super) const STATEMENTS: &str = "\
Break the text below into short statements of fact that can each be understood on their own: one fact per statement, pronouns replaced by what they refer to. Leave out greetings, questions and offers of further help.

Question the text answers:
{query}

Text:
{text}

Reply with a JSON array of strings and nothing else, for example [\"Paris is the capital of France.\", \"Paris has about 2.1 million inhabitants.\"]. Reply [] if the text states no facts.
";

/// What `{context}` shows when the invocation made no tool calls.
pub(super) const NO_CONTEXT: &str = "(none: the agent called no tools)";
