"""Writes google-adk's user-simulator data for Evalstudio's simulator to be checked against:
its built-in personas (EXPERT, NOVICE, EVALUATOR), and the prompts its LlmBackedUserSimulator
sends for sample conversations: the default instructions, each persona, custom instructions
with and without a persona, and conversation histories with and without function calls.

Usage: python adk_simulator_prompts.py PERSONAS_JSON PROMPTS_JSON
"""

import json
import sys
import warnings

warnings.simplefilter("ignore")  # ADK marks the simulator "experimental" on every use.

from google.adk.evaluation.simulation.llm_backed_user_simulator import (  # noqa: E402
    LlmBackedUserSimulator,
)
from google.adk.evaluation.simulation.llm_backed_user_simulator_prompts import (  # noqa: E402
    get_llm_backed_user_simulator_prompt,
)
from google.adk.evaluation.simulation.pre_built_personas import (  # noqa: E402
    get_default_persona_registry,
)
from google.adk.events.event import Event  # noqa: E402
from google.genai import types  # noqa: E402

STOP_SIGNAL = "</finished>"

PLAN = (
    "First, ask for the weather in Paris. If the agent answers, ask whether you need an"
    " umbrella tomorrow. Then say thanks."
)

CUSTOM = (
    "Play a hurried user. Plan: {{ conversation_plan }}\n"
    "So far:\n{{ conversation_history }}\nSay {{stop_signal}} when done."
)

CUSTOM_WITH_PERSONA = (
    "You are {{ persona.id }}: {{ persona.description }}\n"
    "Plan: {{ conversation_plan }}\nHistory:\n{{ conversation_history }}\n"
    "Finish with {{ stop_signal }}."
)


def text_event(author, text, thought=False):
    return Event(
        author=author,
        content=types.Content(
            role="user" if author == "user" else "model",
            parts=[types.Part(text=text, thought=thought or None)],
        ),
    )


def events():
    """A conversation of two turns with a tool call, a thought and an agent's text between."""
    return [
        text_event("user", "What's the weather in Paris?"),
        text_event("weather_agent", "I should call the tool.", thought=True),
        text_event("weather_agent", "Let me check."),
        Event(
            author="weather_agent",
            content=types.Content(
                role="model",
                parts=[
                    types.Part(
                        function_call=types.FunctionCall(
                            id="c1",
                            name="get_weather",
                            args={"city": "Paris", "days": 1, "metric": True, "note": None, "tags": ["a", "it's"]},
                        )
                    )
                ],
            ),
        ),
        Event(
            author="weather_agent",
            content=types.Content(
                role="user",
                parts=[
                    types.Part(
                        function_response=types.FunctionResponse(
                            id="c1",
                            name="get_weather",
                            response={"temp_c": 21.5, "sky": "sunny", "nested": {"wind": [3, 4.0]}},
                        )
                    )
                ],
            ),
        ),
        text_event("weather_agent", "It is sunny, 21.5 °C."),
        text_event("user", "Thanks!"),
        text_event("weather_agent", "You're welcome."),
    ]


def main():
    personas_path, prompts_path = sys.argv[1], sys.argv[2]
    registry = get_default_persona_registry()
    personas = [p.model_dump(mode="json") for p in registry.get_registered_personas()]
    with open(personas_path, "w", encoding="utf-8") as out:
        json.dump(personas, out, indent=2, ensure_ascii=False)
        out.write("\n")

    cases = []
    for include in (False, True):
        history = LlmBackedUserSimulator._summarize_conversation(events(), include)
        cases.append({"name": f"history_calls_{include}", "include_function_calls": include, "history": history})
    history = LlmBackedUserSimulator._summarize_conversation(events(), True)
    prompts = []
    variants = [("default", None, None), ("custom", CUSTOM, None)]
    variants += [(f"persona_{p.id}", None, p.id) for p in registry.get_registered_personas()]
    variants += [("custom_persona_NOVICE", CUSTOM_WITH_PERSONA, "NOVICE")]
    variants += [("custom_persona_repr", CUSTOM_WITH_PERSONA + "\n{{persona}}\n", "EVALUATOR")]
    for name, custom, persona_id in variants:
        persona = registry.get_persona(persona_id) if persona_id else None
        prompt = get_llm_backed_user_simulator_prompt(
            conversation_plan=PLAN,
            conversation_history=history,
            stop_signal=STOP_SIGNAL,
            custom_instructions=custom,
            user_persona=persona,
        )
        prompts.append(
            {"name": name, "custom_instructions": custom, "persona": persona_id, "prompt": prompt}
        )
    with open(prompts_path, "w", encoding="utf-8") as out:
        json.dump({"plan": PLAN, "histories": cases, "prompts": prompts}, out, indent=2, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main()
