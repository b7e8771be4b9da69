"""ADK's web server for Evalstudio's folder mode: the app `adk web --no-reload AGENTS_DIR` serves,
built by ADK's own get_fast_api_app, behind one check: every request carries the secret
Evalstudio wrote on this process's stdin (never in argv or the environment, which other local
users and the agents' code can read). So no other process on the machine reaches the agents
through this loopback port past Evalstudio's sign-in.

Run by the `adk` executable's own Python: python -c <this> AGENTS_DIR PORT
"""

import hmac
import sys

HEADER = "x-evalstudio-adk-secret"

secret = sys.stdin.readline().strip()
if len(secret) < 32:
    sys.exit("evalstudio's ADK launcher: no secret on stdin")
agents_dir, port = sys.argv[1], int(sys.argv[2])

import uvicorn
from fastapi.responses import JSONResponse
from google.adk.cli.fast_api import get_fast_api_app

app = get_fast_api_app(agents_dir=agents_dir, web=True, host="127.0.0.1", port=port)


@app.middleware("http")
async def only_evalstudio(request, call_next):
    sent = request.headers.get(HEADER, "")
    if not hmac.compare_digest(sent.encode(), secret.encode()):
        return JSONResponse({"detail": "this ADK server answers only the Evalstudio that started it"}, status_code=403)
    return await call_next(request)


uvicorn.run(app, host="127.0.0.1", port=port, reload=False, log_level="warning")
