// Drives outl with the official MCP TypeScript SDK and checks what a host would see, on a
// fresh copy of examples/demo per connection: `outl mcp` spawned by the SDK's own stdio client,
// and `outl serve` over Streamable HTTP. Then the reading-list server of examples/bookmarks over
// stdio, another server on the same registry runtime, its tools listed and called.
//
// Prints one PASS/FAIL line per check and ends with `N passed, M failed`; exits 1 on failure.
//
// usage: node node_client.mjs [--outl PATH] [--demo DIR] [--bookmarks PATH]   (Node 20 or later)
// The SDK is loaded from $OUTL_CLIENTS_DIR/npm (tests/clients/install.sh puts it there).

import { spawn, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLIENTS_DIR = process.env.OUTL_CLIENTS_DIR || join(homedir(), '.cache', 'outl-clients');
const SDK = join(CLIENTS_DIR, 'npm', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
const sdk = async (path) => import(pathToFileURL(join(SDK, path)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { LATEST_PROTOCOL_VERSION, McpError } = await sdk('types.js');

// Generous: a debug build on a loaded 2-core machine; a hang must still end the run.
const SESSION_TIMEOUT_MS = 120_000;
const SERVE_START_MS = 20_000;
const JSONRPC_INVALID_PARAMS = -32602;

// The demo page and task the read/write/search checks use (examples/demo/pages/Shakshuka.md).
const PAGE_SLUG = 'shakshuka';
const PAGE_FILE = join('pages', 'Shakshuka.md');
const TASK_TEXT = 'Buy a bigger pan';

const { values: options } = parseArgs({
  options: {
    outl: { type: 'string', default: process.env.OUTL_BIN || join(REPO, 'target', 'debug', 'outl') },
    demo: { type: 'string', default: join(REPO, 'examples', 'demo') },
    bookmarks: {
      type: 'string',
      default: process.env.BOOKMARKS_BIN || join(REPO, 'target', 'debug', 'bookmarks'),
    },
  },
});

let passed = 0;
let failed = 0;
/** How a failed step is reported: the message, without the stack of SDK internals. */
function describe(error) {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function record(name, ok, detail = '') {
  if (ok) {
    passed += 1;
    console.log(`PASS ${name}`);
  } else {
    failed += 1;
    console.log(`FAIL ${name}`);
    for (const line of String(detail).split('\n')) console.log(`    ${line}`);
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * Every node of an outline, depth first, each read from its wire array
 * `[id, text, fields, children]` (fields and children left out when empty) as an object.
 */
function walkOutline(nodes) {
  return nodes.flatMap(([id, text, ...rest]) => {
    const fields = rest.find((part) => !Array.isArray(part)) ?? {};
    const children = rest.find((part) => Array.isArray(part)) ?? [];
    return [{ id, text, ...fields }, ...walkOutline(children)];
  });
}

function textOf(result) {
  return result.content.map((item) => item.text ?? '').join(' ');
}

/** The JSON payload of a successful tools/call, after checking its RFC 0276 shape. */
function successPayload(result) {
  assert(!result.isError, `tool failed: ${textOf(result)}`);
  assert(!('structuredContent' in result), 'a success carries structuredContent');
  assert(result.content.length === 1 && result.content[0].type === 'text', 'expected one text content');
  const { text } = result.content[0];
  const payload = JSON.parse(text);
  assert(JSON.stringify(payload) === text, `text is not compact JSON: ${text.slice(0, 200)}`);
  return payload;
}

/** The error of a failed tools/call, after checking its RFC 0276 shape. */
function errorEnvelope(result) {
  assert(result.isError === true, `expected isError, got ${textOf(result).slice(0, 200)}`);
  const envelope = result.structuredContent;
  assert(envelope?.ok === false && envelope.error, `structuredContent is not an error envelope: ${JSON.stringify(envelope)}`);
  const { error } = envelope;
  const summary = textOf(result);
  assert(summary === `${error.code}: ${error.message}` && !summary.includes('\n'),
    `text is not the one-line \`CODE: message\` summary: ${JSON.stringify(summary)}`);
  return error;
}

/** The checks one connection runs, in order; a step that throws fails its check only. */
class Scenario {
  constructor(label, client, workspace, negotiated, expected) {
    Object.assign(this, { label, client, workspace, negotiated, expected });
  }

  async step(name, body) {
    try {
      const value = await body();
      record(`${this.label}: ${name}`, true);
      return value;
    } catch (error) {
      record(`${this.label}: ${name}`, false, describe(error));
      return undefined;
    }
  }

  async run() {
    await this.step('connects and negotiates the protocol', () => this.negotiates());
    await this.step('tools/list lists the registry, host-ready', () => this.listsTools());
    const page = await this.step('outl_page_get reads a page with block ids, pruned', () => this.readsPage());
    await this.step('outl_block_todo ticks a task read from the page', () => this.ticksTask(page));
    await this.step('outl_search finds the ticked task by its text', () => this.searches(page));
    await this.step('an unknown page is PAGE_NOT_FOUND in the error envelope', () => this.pageNotFound());
    await this.step('bad arguments are INVALID_ARGUMENTS listing every problem', () => this.invalidArguments());
    await this.step('an unknown tool is JSON-RPC -32602', () => this.unknownTool());
  }

  async negotiates() {
    assert(this.negotiated() === LATEST_PROTOCOL_VERSION,
      `negotiated ${this.negotiated()}, expected ${LATEST_PROTOCOL_VERSION}`);
    const info = this.client.getServerVersion();
    assert(info?.name === 'outl' && info.version === this.expected.outlVersion,
      `serverInfo ${JSON.stringify(info)}`);
    assert(this.client.getServerCapabilities()?.tools, 'no tools capability');
    assert(this.client.getInstructions(), 'no instructions for the model');
    await this.client.ping();
  }

  async listsTools() {
    const tools = [];
    let cursor;
    do {
      const listed = await this.client.listTools(cursor ? { cursor } : undefined);
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
    } while (cursor);
    const names = tools.map((tool) => tool.name);
    const expectedNames = this.expected.toolNames;
    assert(JSON.stringify(names) === JSON.stringify(expectedNames),
      `${names.length} tools listed, \`outl tools\` has ${expectedNames.length}: ` +
      `missing ${expectedNames.filter((n) => !names.includes(n))}, extra ${names.filter((n) => !expectedNames.includes(n))}`);
    for (const tool of tools) {
      assert(!('outputSchema' in tool), `${tool.name} declares an outputSchema`);
      assert(!('title' in tool), `${tool.name} sends a title, which \`outl tools\` does not`);
      assert(tool.description, `${tool.name} has no description`);
      assert(tool.inputSchema?.type === 'object', `${tool.name} inputSchema is not an object`);
      const hints = tool.annotations ?? {};
      assert(JSON.stringify(hints) === JSON.stringify(this.expected.annotations[tool.name]),
        `${tool.name} annotations ${JSON.stringify(hints)}, \`outl tools\` has ${JSON.stringify(this.expected.annotations[tool.name])}`);
      assert(hints.openWorldHint === false, `${tool.name} claims an open world`);
      assert(!hints.readOnlyHint || !('destructiveHint' in hints || 'idempotentHint' in hints),
        `${tool.name} is read-only and still sends destructiveHint or idempotentHint`);
    }
  }

  async readsPage() {
    const page = successPayload(await this.client.callTool({ name: 'outl_page_get', arguments: { slug: PAGE_SLUG } }));
    assert(page.slug === PAGE_SLUG, `slug ${JSON.stringify(page.slug)}`);
    const nodes = walkOutline(page.outline);
    assert(nodes.length && nodes.every((node) => typeof node.id === 'string' && node.id), 'a block without an id');
    for (const node of nodes) {
      assert(!('tokens' in node), `block ${node.id} carries tokens`);
      assert(node.collapsed !== false, `block ${node.id} carries collapsed: false`);
      assert(node.todo !== null, `block ${node.id} carries todo: null`);
      assert(!node.properties || Object.keys(node.properties).length, `block ${node.id} carries empty properties`);
    }
    const tasks = nodes.filter((node) => node.text === TASK_TEXT);
    assert(tasks.length === 1 && tasks[0].todo === 'TODO', `no single TODO ${JSON.stringify(TASK_TEXT)}`);
    return page;
  }

  async ticksTask(page) {
    assert(page, 'no page was read to take a block id from');
    const task = walkOutline(page.outline).find((node) => node.text === TASK_TEXT);
    const written = successPayload(await this.client.callTool({ name: 'outl_block_todo', arguments: { id: task.id, state: 'DONE' } }));
    assert(written.id === task.id && written.todo === 'DONE', `reply ${JSON.stringify(written)}`);
    const markdown = readFileSync(join(this.workspace, PAGE_FILE), 'utf8');
    assert(markdown.includes(`- DONE ${TASK_TEXT}\n`), `${PAGE_FILE} does not hold the DONE task`);
    assert(!markdown.includes(`- TODO ${TASK_TEXT}`), `${PAGE_FILE} still holds the TODO task`);
    const reread = successPayload(await this.client.callTool({ name: 'outl_page_get', arguments: { slug: PAGE_SLUG } }));
    const again = walkOutline(reread.outline).filter((node) => node.id === task.id);
    assert(again.length === 1 && again[0].todo === 'DONE', 'the page does not read back DONE');
  }

  async searches(page) {
    assert(page, "no page was read to take the task's id from");
    const task = walkOutline(page.outline).find((node) => node.text === TASK_TEXT);
    const found = successPayload(await this.client.callTool({ name: 'outl_search', arguments: { query: TASK_TEXT } }));
    assert(found.hits.some((hit) => hit.page === PAGE_SLUG && hit.id === task.id),
      `no hit on block ${task.id}: ${JSON.stringify(found).slice(0, 300)}`);
  }

  async pageNotFound() {
    const error = errorEnvelope(await this.client.callTool({ name: 'outl_page_get', arguments: { slug: 'no such page' } }));
    assert(error.code === 'PAGE_NOT_FOUND', `code ${error.code}`);
  }

  async invalidArguments() {
    const error = errorEnvelope(await this.client.callTool({ name: 'outl_page_get', arguments: { slug: 42, colour: 'blue' } }));
    assert(error.code === 'INVALID_ARGUMENTS', `code ${error.code}`);
    const pointers = error.data.problems.map((problem) => problem.pointer).sort();
    assert(JSON.stringify(pointers) === JSON.stringify(['/colour', '/slug']), `problems at ${pointers}`);
  }

  async unknownTool() {
    let result;
    try {
      result = await this.client.callTool({ name: 'outl_no_such_tool', arguments: {} });
    } catch (error) {
      assert(error instanceof McpError, `not an MCP error: ${error}`);
      assert(error.code === JSONRPC_INVALID_PARAMS, `code ${error.code}: ${error.message}`);
      assert(error.message.includes('outl_no_such_tool'), `message ${JSON.stringify(error.message)}`);
      // The session goes on after the error.
      await this.client.ping();
      return;
    }
    throw new Error(`no JSON-RPC error; got a result: ${textOf(result).slice(0, 200)}`);
  }
}

function demoCopy() {
  const workspace = mkdtempSync(join(tmpdir(), 'outl-node-client.'));
  cpSync(options.demo, workspace, { recursive: true });
  return workspace;
}

/** Connects over stdio; returns the client, the negotiated version and a closer. */
async function overStdio(workspace) {
  const transport = new StdioClientTransport({
    command: options.outl,
    args: ['mcp', '--workspace', workspace],
    stderr: 'ignore',
  });
  // The stdio transport has no use for the version; the Client hands it to any transport that
  // takes it, which is how a host learns what was negotiated.
  let negotiated;
  transport.setProtocolVersion = (version) => { negotiated = version; };
  const client = new Client({ name: 'outl-node-client', version: '1.0.0' });
  await client.connect(transport);
  return { client, negotiated: () => negotiated, close: () => client.close() };
}

// Servers still running when this process exits (a timed-out session) are killed with it.
const servers = new Set();
process.on('exit', () => {
  for (const server of servers) server.kill('SIGKILL');
});

/** Starts `outl serve` on a free port and connects over Streamable HTTP. */
async function overHttp(workspace) {
  const server = spawn(options.outl, ['serve', '--workspace', workspace, '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  servers.add(server);
  server.once('exit', () => servers.delete(server));
  const stopServer = () => new Promise((done) => {
    if (server.exitCode !== null || server.signalCode !== null) return done();
    server.once('exit', done);
    server.kill('SIGTERM');
  });
  try {
    const url = await new Promise((found, fail) => {
      let stderr = '';
      const timer = setTimeout(() => fail(new Error(`outl serve did not start: ${stderr}`)), SERVE_START_MS);
      server.stderr.on('data', (chunk) => {
        stderr += chunk;
        // Only a whole line: a chunk may end inside the URL.
        const match = /serving MCP at (http:\/\/\S+)\n/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          found(match[1]);
        }
      });
      server.once('exit', () => fail(new Error(`outl serve exited: ${stderr}`)));
    });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = new Client({ name: 'outl-node-client', version: '1.0.0' });
    await client.connect(transport);
    const close = async () => {
      try {
        // The SDK throws unless the server accepts the session's DELETE.
        await transport.terminateSession();
        record('node http: the session ends with DELETE', true);
      } catch (error) {
        record('node http: the session ends with DELETE', false, describe(error));
      }
      await client.close();
      await stopServer();
    };
    return { client, negotiated: () => transport.protocolVersion, close };
  } catch (error) {
    await stopServer();
    throw error;
  }
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const registry = JSON.parse(execFileSync(options.outl, ['tools'], { encoding: 'utf8' }));
const expected = {
  toolNames: registry.tools.map((tool) => tool.name),
  annotations: Object.fromEntries(registry.tools.map((tool) => [tool.name, tool.annotations])),
  outlVersion: execFileSync(options.outl, ['--version'], { encoding: 'utf8' }).trim().split(/\s+/).pop(),
};

for (const [label, connect] of [['node stdio', overStdio], ['node http', overHttp]]) {
  const workspace = demoCopy();
  try {
    await withTimeout((async () => {
      const connection = await connect(workspace);
      try {
        await new Scenario(label, connection.client, workspace, connection.negotiated, expected).run();
      } finally {
        await connection.close();
      }
    })(), SESSION_TIMEOUT_MS, label);
  } catch (error) {
    record(`${label}: the session runs to its end`, false, describe(error));
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** The examples/bookmarks server over stdio: RFC 0276's replies from a server that is not outl. */
async function bookmarksChecks() {
  const label = 'node bookmarks';
  const folder = mkdtempSync(join(tmpdir(), 'bookmarks-node-client.'));
  const client = new Client({ name: 'outl-node-client', version: '1.0.0' });
  try {
    await withTimeout((async () => {
      await client.connect(new StdioClientTransport({
        command: options.bookmarks,
        args: [join(folder, 'bookmarks.json')],
        stderr: 'ignore',
      }));
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      record(`${label}: lists its five tools, none with an outputSchema`,
        JSON.stringify(names) === JSON.stringify(['bookmark_add', 'bookmark_list', 'bookmark_mark_read',
          'bookmark_remove', 'reading_list_markdown']) && tools.every((tool) => !('outputSchema' in tool)),
        JSON.stringify(names));
      const added = successPayload(await client.callTool({
        name: 'bookmark_add',
        arguments: { url: 'https://modelcontextprotocol.io', title: 'MCP', tags: ['mcp'] },
      }));
      record(`${label}: a json payload is compact JSON`, added.id === 1, JSON.stringify(added));
      const listed = await client.callTool({ name: 'reading_list_markdown', arguments: { tag: 'mcp' } });
      record(`${label}: a markdown payload is the markdown alone`,
        !listed.isError && !('structuredContent' in listed)
          && textOf(listed) === '- [MCP](https://modelcontextprotocol.io) (#1)\n',
        textOf(listed));
      const error = errorEnvelope(await client.callTool({ name: 'bookmark_mark_read', arguments: { id: 'one' } }));
      record(`${label}: invalid arguments are an error listing each problem`,
        error.code === 'INVALID_ARGUMENTS' && error.data.problems.map((p) => p.pointer).join() === '/id',
        JSON.stringify(error));
    })(), SESSION_TIMEOUT_MS, label);
  } catch (error) {
    record(`${label}: the session runs to its end`, false, describe(error));
  } finally {
    await client.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

await bookmarksChecks();

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
