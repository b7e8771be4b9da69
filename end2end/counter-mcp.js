// A tiny MCP server over stdio for the tool-replay tests: `next_ticket` answers a number that
// goes up by one on every call, so a live re-run never sees what a captured case recorded.
//
//   node counter-mcp.js
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

let count = 0;
const server = new McpServer({ name: 'counter', version: '1.0.0' });
server.registerTool(
  'next_ticket',
  {
    description: 'Issues the next ticket number for a queue',
    inputSchema: { queue: z.string().describe('The queue name') },
  },
  async ({ queue }) => {
    count += 1;
    return { content: [{ type: 'text', text: `ticket ${count} for ${queue}` }] };
  },
);
server.connect(new StdioServerTransport());
