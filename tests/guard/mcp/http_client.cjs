// A scripted MCP client for the HTTP proxy tests, on the MCP TypeScript SDK's own client and
// streamable-HTTP transport: connects to argv[2], runs the steps in argv[3] (JSON: {"op": "list"},
// {"op": "call", "name": N, "arguments": {...}, "progress": true}) and prints one JSON line per
// step: {"result": ...}, {"tools": [names]} or {"error": {"code", "message", "data"}}; progress
// notifications it received are counted in "progress".
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } =
  require("@modelcontextprotocol/sdk/client/streamableHttp.js");

(async () => {
  const client = new Client({ name: "doberman-http-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
  for (const step of JSON.parse(process.argv[3])) {
    let out;
    try {
      if (step.op === "list") {
        out = { tools: (await client.listTools()).tools.map((t) => t.name) };
      } else {
        let progress = 0;
        const options = step.progress ? { onprogress: () => { progress += 1; } } : {};
        const result = await client.callTool({ name: step.name, arguments: step.arguments || {} },
                                              undefined, options);
        out = { result, progress };
      }
    } catch (e) {
      out = { error: { code: e.code, message: e.message, data: e.data } };
    }
    process.stdout.write(JSON.stringify(out) + "\n");
  }
  await client.close();
})().catch((e) => {
  process.stdout.write(JSON.stringify({ fatal: String(e && e.message) }) + "\n");
  process.exit(1);
});
