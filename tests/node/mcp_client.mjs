// The official MCP TypeScript SDK client (@modelcontextprotocol/sdk) against cairn's POST /mcp,
// for tests/e2e/mcp_sdk_test.cpp; started by tests/support/node_process.cpp.
//
// Usage: node mcp_client.mjs <mcp-url> <bearer-token> <tool-prefix>
// Connects (initialize, notifications/initialized), lists every tool, then runs the record tools
// of the table `<tool-prefix>_*`: create, list, get, update, delete, get again. Prints one JSON
// line with what the server answered (the C++ test checks it against the database) or
// {"error": …}, then exits when stdin closes.
import * as readline from 'node:readline';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token, prefix] = process.argv.slice(2);
if (!prefix) {
  console.error('usage: node mcp_client.mjs <mcp-url> <bearer-token> <tool-prefix>');
  process.exit(2);
}

// The route's answer a tool result carries as text.
const answer = (result) => ({
  isError: result.isError === true,
  body: result.content[0].text.startsWith('{') ? JSON.parse(result.content[0].text) : null,
  structured: result.structuredContent ?? null,
});

async function run() {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'cairn-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  const out = {
    protocolVersion: transport.protocolVersion ?? null,
    server: client.getServerVersion(),
    sessionId: transport.sessionId ?? null,
  };
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  out.tools = tools.map((tool) => tool.name);
  out.createSchema = tools.find((tool) => tool.name === `${prefix}_create`)?.inputSchema ?? null;

  const call = async (verb, args) =>
    answer(await client.callTool({ name: `${prefix}_${verb}`, arguments: args }));
  out.created = await call('create', { body: { fields: { title: 'from the sdk', amount: 7 } } });
  const id = out.created.body?.id;
  out.createdKeep = await call('create', { body: { fields: { title: 'kept', amount: 8 } } });
  out.listed = await call('list', { filter: { title: 'from the sdk' } });
  out.got = await call('get', { recordId: id });
  out.updated = await call('update', { recordId: id, body: { fields: { amount: 9 } } });
  out.deleted = await call('delete', { recordId: id });
  out.gone = await call('get', { recordId: id });
  try {
    await client.callTool({ name: `${prefix}_nothing`, arguments: {} });
    out.unknownTool = 'no error';
  } catch (error) {
    out.unknownTool = error.code ?? String(error);
  }
  await client.close();
  return out;
}

try {
  process.stdout.write(JSON.stringify(await run()) + '\n');
} catch (error) {
  process.stdout.write(JSON.stringify({ error: String(error?.stack ?? error) }) + '\n');
}
readline.createInterface({ input: process.stdin }).on('close', () => process.exit(0));
