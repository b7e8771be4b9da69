"""An Evalstudio command evaluator: the agent's last answer must mention each word of the
criterion's `must_mention`. It reads the request on stdin and prints the reply on stdout."""
import json
import sys

request = json.load(sys.stdin)
last = request["actual_invocations"][-1].get("final_response") or {}
answer = " ".join(part.get("text") or "" for part in last.get("parts", [])).lower()
words = request["criterion"].get("must_mention", [])
missing = [word for word in words if word.lower() not in answer]
reason = "missing: " + ", ".join(missing) if missing else "mentions every word"
print(json.dumps({"score": 1 - len(missing) / max(len(words), 1), "reason": reason}))
