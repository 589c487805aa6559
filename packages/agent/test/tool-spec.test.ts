/**
 * One tool definition for agents and MCP: `@AgentTool` takes the spec of `fw.mcp.tool` (a
 * Standard Schema or JSON Schema `input`, an optional `output`). The method's input is typed from a
 * Standard Schema; arguments are checked before the method runs whether a model or an MCP client
 * calls it, and what is wrong goes back to the caller as text naming the field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { Agent, AgentTool, type AiRequest, type AiStreamPart, type ModelProvider } from '../dist/index.js';
import { startApp } from './helpers.js';

const calls: { city: string; days: number }[] = [];

@Agent({ name: 'forecaster', headless: true })
class Forecaster {
  @AgentTool({
    description: 'The forecast for a city',
    input: z.object({ city: z.string().min(1), days: z.number().int().min(1).max(7).default(1) }),
    output: z.object({ city: z.string(), days: z.number(), sky: z.string() }),
  })
  forecast(input: { city: string; days: number }) {
    calls.push(input); // typed from the schema; `days` has its default when the caller left it out
    return { city: input.city, days: input.days, sky: 'clear' };
  }

  @AgentTool({ description: 'Echoes a word', input: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } })
  echo(input: { word: string }) {
    return input.word;
  }
}

// The compiler checks the method against a Standard Schema input: this one expects a number.
@Agent({ name: 'mistyped', headless: true })
export class Mistyped {
  // @ts-expect-error -- `city` is a string in the schema, a number in the method
  @AgentTool({ description: 'Wrong input type', input: z.object({ city: z.string() }) })
  wrong(input: { city: number }) {
    return input.city;
  }
}

/** A model that calls `tool` with each of `inputs` in turn, one call per turn, then answers. */
class ScriptedModel implements ModelProvider {
  readonly name = 'scripted';
  readonly priority = 5;
  readonly capabilities = ['streaming', 'tools'];
  readonly models = ['scripted-1'];
  readonly requests: AiRequest[] = [];
  constructor(
    private readonly tool: string,
    private readonly inputs: unknown[],
  ) {}
  isAvailable(): boolean {
    return true;
  }
  async *stream(request: AiRequest): AsyncIterable<AiStreamPart> {
    const turn = this.requests.push(request) - 1;
    if (turn < this.inputs.length) {
      yield { type: 'tool-call', toolCallId: `call-${turn}`, toolName: this.tool, input: this.inputs[turn] };
      yield { type: 'finish', reason: 'tool-calls' };
      return;
    }
    yield { type: 'text', delta: 'done' };
    yield { type: 'finish', reason: 'stop' };
  }
}

/** The tool results the model was given back, in order. */
function toolResults(model: ScriptedModel): string[] {
  const last = model.requests.at(-1)!;
  return last.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
}

test('a model calling an agent tool: the schema it is shown comes from the Standard Schema; invalid arguments are answered with what is wrong, the method not run', async () => {
  calls.length = 0;
  const model = new ScriptedModel('forecast', [{ city: '' }, { city: 'Paris', days: 30 }, 'not an object', { city: 'Paris' }]);
  const app = await startApp((m) => m.mount(Forecaster), {}, [model]);
  try {
    const answer = await app.module.host.run('forecaster', { message: 'weather?' }, AbortSignal.timeout(10_000));
    assert.equal(answer, 'done');
    const shown = model.requests[0]!.tools!.find((t) => t.name === 'forecast')!;
    assert.deepEqual(Object.keys((shown.parameters as { properties: object }).properties), ['city', 'days']);
    const [empty, tooLong, junk, ok] = toolResults(model);
    assert.match(empty!, /^error: invalid arguments for tool 'forecast': argument 'city'/);
    assert.match(tooLong!, /^error: invalid arguments for tool 'forecast': argument 'days'/);
    assert.equal(junk, "error: invalid arguments for tool 'forecast': the arguments must be an object");
    assert.deepEqual(JSON.parse(ok!), { city: 'Paris', days: 1, sky: 'clear' });
    assert.deepEqual(calls, [{ city: 'Paris', days: 1 }], 'the method ran once, with the parsed value');
  } finally {
    await app.close();
  }
});

test("the agent's MCP endpoint serves the same spec: schema, checked arguments, structured output; a JSON Schema tool too", async () => {
  calls.length = 0;
  const app = await startApp((m) => m.mount(Forecaster));
  const client = new Client({ name: 'tool-spec', version: '1' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.base}/fw/agent/forecaster/mcp`)));
    const { tools } = await client.listTools();
    const forecast = tools.find((t) => t.name === 'forecast')!;
    assert.deepEqual(Object.keys((forecast.inputSchema as { properties: object }).properties), ['city', 'days']);
    assert.ok(forecast.outputSchema, 'the output schema is advertised');
    const bad = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo', days: 0 } });
    assert.equal(bad.isError, true);
    assert.match(JSON.stringify(bad.content), /days/);
    const good = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
    assert.deepEqual(good.structuredContent, { city: 'Oslo', days: 1, sky: 'clear' });
    assert.deepEqual(calls, [{ city: 'Oslo', days: 1 }], 'checked once (by the MCP layer), parsed once');
    const missing = await client.callTool({ name: 'echo', arguments: {} });
    assert.equal(missing.isError, true);
    assert.match(JSON.stringify(missing.content), /word/);
    const echoed = await client.callTool({ name: 'echo', arguments: { word: 'hi' } });
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'hi' }]);
  } finally {
    await client.close();
    await app.close();
  }
});
