/** Starts a Framework with the admin plane over the in-memory doubles, listening on loopback. */
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Framework, type FwEvent } from '@fw/runtime';
import { admin, type AdminOptions } from '../dist/index.js';
import { FakeRuntime, fakeAgent, fakeMcp } from './doubles.js';

export interface Harness {
  fw: Framework;
  base: string;
  runtime: FakeRuntime;
  agent: ReturnType<typeof fakeAgent>;
  events: FwEvent[];
  dashboardDir: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export async function startHarness(props: Record<string, unknown> = {}, options: AdminOptions = {}, withModules = true): Promise<Harness> {
  const dashboardDir = mkdtempSync(join(tmpdir(), 'fw-admin-dash-'));
  writeFileSync(join(dashboardDir, 'index.html'), '<!doctype html><title>fw admin</title>');
  writeFileSync(join(dashboardDir, 'app.js'), 'console.log(1)');
  const fw = new Framework({ configFile: false, 'fw.admin.mcp-tools': false, ...props });
  const runtime = new FakeRuntime();
  Object.defineProperty(fw, 'runtime', { value: runtime, configurable: true });
  const agent = fakeAgent();
  if (withModules) {
    fw.services.provide('agent', agent);
    fw.services.provide('mcp', fakeMcp());
  }
  const events: FwEvent[] = [];
  fw.events.onAny((e) => events.push(e));
  await fw.use(admin({ dashboardDir, ...options }));
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  return {
    fw,
    base,
    runtime,
    agent,
    events,
    dashboardDir,
    get: (path, headers) => fetch(base + path, { headers }),
    send: (method, path, body, headers) =>
      fetch(base + path, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      }),
    close: async () => {
      await fw.close();
      rmSync(dashboardDir, { recursive: true, force: true });
    },
  };
}
