// Sends a small agent-shaped trace to Evalstudio's OTLP receiver with the OpenTelemetry JS SDK's
// OTLP/HTTP exporter, which writes OTLP/JSON: a root `invoke_agent` span with a session id and a
// child `execute_tool` span carrying attributes of several types and an event.
//
// Usage: NODE_PATH=end2end/node_modules node otlp_js_exporter.cjs ENDPOINT SESSION_ID

const { TracerProvider, SimpleSpanProcessor } = require("@opentelemetry/sdk-trace");
const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-http");
const { context, trace, SpanStatusCode } = require("@opentelemetry/api");

async function main() {
  const [endpoint, session] = process.argv.slice(2);
  const exporter = new OTLPTraceExporter({ url: `${endpoint}/v1/traces` });
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer("js-agent");
  const root = tracer.startSpan("invoke_agent js_agent", {
    attributes: { "gen_ai.conversation.id": session, "gen_ai.agent.name": "js_agent" },
  });
  const child = tracer.startSpan(
    "execute_tool lookup",
    {
      attributes: {
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.arguments": JSON.stringify({ query: "Paris" }),
        "retries": 2,
        "ratio": 0.25,
        "cached": false,
        "tags": ["a", "b"],
      },
    },
    trace.setSpan(context.active(), root),
  );
  child.addEvent("lookup.done", { "rows": 3 });
  child.setStatus({ code: SpanStatusCode.ERROR, message: "upstream timeout" });
  child.end();
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
