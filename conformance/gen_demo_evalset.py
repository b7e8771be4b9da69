"""Writes an evalset of N cases for the offline `demo` agent (weather, currency and order
questions, one or two turns each, with the tool calls the demo agent makes), for measuring
`evalstudio eval` at different sizes.

Usage: python gen_demo_evalset.py OUT N
"""

import json
import sys

CITIES = ["Paris", "London", "Tokyo", "Berlin", "Madrid", "Rome"]


def turn(n, text, tool, args, answer):
    return {
        "invocation_id": f"inv-{n}",
        "user_content": {"role": "user", "parts": [{"text": text}]},
        "final_response": {"role": "model", "parts": [{"text": answer}]},
        "intermediate_data": {"tool_uses": [{"name": tool, "args": args}], "intermediate_responses": []},
        "creation_timestamp": 0.0,
    }


def case(i):
    city = CITIES[i % len(CITIES)]
    turns = [turn(f"{i}-0", f"What is the weather in {city}?", "get_weather", {"city": city},
                  f"It is sunny in {city}.")]
    if i % 2:
        turns.append(turn(f"{i}-1", f"Convert {i % 90 + 10} EUR to USD", "convert_currency",
                          {"amount": i % 90 + 10, "from": "EUR", "to": "USD"}, "That is about right."))
    return {"eval_id": f"case_{i:06d}", "conversation": turns,
            "session_input": {"app_name": "demo", "user_id": "user", "state": {}}, "creation_timestamp": 0.0}


def main():
    out, count = sys.argv[1], int(sys.argv[2])
    evalset = {"eval_set_id": f"demo_{count}", "name": f"demo {count}",
               "eval_cases": [case(i) for i in range(count)], "creation_timestamp": 0.0}
    with open(out, "w") as f:
        json.dump(evalset, f)


if __name__ == "__main__":
    main()
