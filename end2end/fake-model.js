// A stand-in for a remote LLM that speaks the OpenAI chat-completions wire protocol (streamed
// server-sent events) on 127.0.0.1, so the browser tests can drive the `openai` agent: answers
// in markdown (with hostile HTML in it), streamed slowly enough to watch, and a reply that never
// ends for the Stop button.
//
//   node fake-model.js PORT
//
// The user's last message picks the reply:
//   contains "markdown" -> a markdown answer with <script>/<img onerror> payloads and a javascript: link
//   contains "slow"     -> an answer that streams a word every 400 ms for a minute
//   "sum A and B", with a tool named get-sum offered (an MCP server's) -> a call of it; once
//                          its result is in the conversation, "The tool said: <its text>"
//   otherwise           -> "You said: <message>"
// A request without `"stream": true` (the judge's, or the user simulator's: the judge's model is
// its fallback) gets one JSON completion: for ADK's simulator instructions, the next user turn
// of a scripted two-turn conversation (Paris was asked -> ask for Rome -> stop); for ADK's
// simulator-quality judge, a valid verdict; "YES" when the prompt asks for YES or NO; else
// "You said: <message>".
const http = require('http');

const port = Number(process.argv[2] || 3124);

const MARKDOWN_ANSWER = [
  '**Paris** is sunny today.\n\n',
  '- Temperature: 18 °C\n',
  '- Wind: `3 km/h`\n\n',
  '<img src=x onerror="window.__pwned=1">',
  '<script>window.__pwned=2</script>\n\n',
  '[click me](javascript:window.__pwned=3)',
];

function chunk(content, finish) {
  return {
    id: 'chatcmpl-e2e',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fake',
    choices: [{ index: 0, delta: content == null ? {} : { role: 'assistant', content }, finish_reason: finish || null }],
  };
}

/** A get-sum call for "sum A and B" when that tool is offered and not yet answered. */
function sumCall(body, message) {
  const offered = (body.tools || []).some((t) => t.function && t.function.name === 'get-sum');
  const match = /sum (\d+) and (\d+)/.exec(message);
  const last = (body.messages || [])[body.messages.length - 1];
  if (!offered || !match || last.role !== 'user') return null;
  return { a: Number(match[1]), b: Number(match[2]) };
}

/** The text of the last tool result, as "The tool said: …". */
function toolAnswer(body) {
  const last = (body.messages || [])[body.messages.length - 1];
  if (!last || last.role !== 'tool') return null;
  const response = JSON.parse(last.content);
  const text = (response.content || []).map((c) => c.text || '').join(' ') || response.error;
  return `The tool said: ${text}`;
}

function lastUserMessage(body) {
  const users = (body.messages || []).filter((m) => m.role === 'user');
  return users.length ? String(users[users.length - 1].content) : '';
}

const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (d) => (raw += d));
  req.on('end', async () => {
    if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
      return;
    }
    const body = JSON.parse(raw);
    const message = lastUserMessage(body);
    if (body.stream !== true) {
      let content;
      if (message.includes('You are a Simulated User')) {
        const history = message.slice(message.lastIndexOf('# Conversation History'));
        const userTurns = (history.match(/^user: /gm) || []).length;
        content = userTurns <= 1 ? "What's the weather in Rome?" : 'Thanks, that is all. </finished>';
      } else if (message.includes('evaluating the quality of a User Simulator')) {
        content = '{"criteria": [], "is_valid": true}';
      } else {
        content = /YES or NO/i.test(message) ? 'YES' : `You said: ${message}`;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id: 'chatcmpl-e2e',
        object: 'chat.completion',
        created: 0,
        model: 'fake',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 40, completion_tokens: 1 },
      }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let closed = false;
    res.on('close', () => (closed = true));
    const send = (event) => !closed && res.write(`data: ${JSON.stringify(event)}\n\n`);
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    let pieces;
    let delay = 300;
    const args = sumCall(body, message);
    if (args) {
      send({ ...chunk(null, 'tool_calls'), choices: [{ index: 0, finish_reason: 'tool_calls', delta: {
        role: 'assistant',
        tool_calls: [{ index: 0, id: 'call_sum', type: 'function',
          function: { name: 'get-sum', arguments: JSON.stringify(args) } }],
      } }] });
      res.end('data: [DONE]\n\n');
      return;
    }
    const answer = toolAnswer(body);
    if (answer) {
      pieces = [answer];
    } else if (message.includes('markdown')) {
      pieces = MARKDOWN_ANSWER;
    } else if (message.includes('slow')) {
      pieces = Array.from({ length: 150 }, (_, i) => `word${i} `);
      delay = 400;
    } else {
      pieces = ['You said: ', message];
    }
    for (const piece of pieces) {
      if (closed) return;
      send(chunk(piece));
      await sleep(delay);
    }
    send(chunk(null, 'stop'));
    send({ ...chunk(null), choices: [], usage: { prompt_tokens: 12, completion_tokens: 34 } });
    if (!closed) res.end('data: [DONE]\n\n');
  });
});

server.listen(port, '127.0.0.1', () => console.log(`fake model on http://127.0.0.1:${port}/v1`));
