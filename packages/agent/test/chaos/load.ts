/**
 * The load of the chaos tests: chat clients on the agent's WebSocket and A2A clients (JSON-RPC
 * SendMessage), each sending one request after the other until told to stop, recording what was
 * acknowledged (`done`, a `completed` task), what was refused with an error, and what got no
 * answer at all (a connection cut by a killed server).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { waitFor } from '@fw/testing';

interface Frame {
  type: string;
  id?: string;
  code?: string;
  message?: string;
}

/** One chat client sending prompts one after the other until told to stop. */
export async function chatLoop(base: string, name: string, running: () => boolean, out: Outcomes): Promise<void> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/fw/agent/keeper`);
  const frames: Frame[] = [];
  let closed = false;
  ws.on('message', (d) => frames.push(JSON.parse(String(d)) as Frame));
  ws.on('close', () => (closed = true));
  ws.on('error', () => {});
  const session = await waitFor(
    'the session frame',
    () => frames.find((f) => f.type === 'session')?.id ?? (closed ? null : undefined),
    10_000,
  );
  if (session === null) return; // the server went away before the session opened
  for (let n = 0; running() && !closed; n++) {
    const text = `${name}-${n}`;
    const start = frames.length;
    ws.send(text);
    const answer = await waitFor(
      `an answer to ${text}`,
      () => frames.slice(start).find((f) => f.type === 'done' || f.type === 'error') ?? (closed ? null : undefined),
      20_000,
    );
    if (answer?.type === 'done') {
      out.turns.push({ session, text });
      out.acknowledged?.();
    } else if (answer?.type === 'error') out.errors.push(`chat ${answer.code}: ${answer.message}`);
    else out.unanswered.push(text);
    if (answer?.type !== 'done') await sleep(50); // refused: a client pauses before trying again
  }
  ws.close();
}

/** One A2A client sending messages (JSON-RPC SendMessage, blocking) until told to stop. */
export async function a2aLoop(base: string, running: () => boolean, out: Outcomes): Promise<void> {
  while (running()) {
    const text = `task-${randomUUID()}`;
    let res: Response;
    try {
      res = await fetch(`${base}/fw/agent/keeper/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } },
        }),
        signal: AbortSignal.timeout(20_000),
      });
    } catch {
      out.unanswered.push(text);
      await sleep(50);
      continue;
    }
    const body = await res.text();
    if (res.status !== 200) {
      out.errors.push(`a2a ${res.status}: ${body}`);
      await sleep(50);
      continue;
    }
    const json = JSON.parse(body) as { result?: { task?: { id: string; status?: { state?: string } } }; error?: { message: string } };
    const task = json.result?.task;
    if (task?.status?.state === 'TASK_STATE_COMPLETED') {
      out.tasks.push(task.id);
      out.acknowledged?.();
    } else {
      out.errors.push(`a2a ${json.error ? `error ${json.error.message}` : `state ${task?.status?.state}`}`);
      await sleep(50);
    }
  }
}

export interface Outcomes {
  turns: { session: string; text: string }[];
  tasks: string[];
  errors: string[];
  unanswered: string[];
  /** Called at each acknowledgement, as it arrives (the kill -9 test kills right then). */
  acknowledged?: () => void;
}

export function outcomes(): Outcomes {
  return { turns: [], tasks: [], errors: [], unanswered: [] };
}
