/**
 * Calls a remote fleet agent over A2A with the official @a2a-js/sdk client: the card is fetched
 * once per URL, then each dispatch is one blocking SendMessage whose answer text is returned.
 * The coordinator's signal cancels the HTTP call.
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { FwError } from '@fw/runtime';
import type { RemoteCaller } from '../host.js';
import { textOf, textPart } from './messages.js';

export function a2aRemoteCaller(): RemoteCaller {
  const clients = new Map<string, Promise<Client>>();
  return async (url, message, signal) => {
    let client = clients.get(url);
    if (!client) {
      client = new ClientFactory().createFromUrl(url);
      clients.set(url, client);
      client.catch(() => clients.delete(url));
    }
    const msg: Message = {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [textPart(message)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const result = await (await client).sendMessage(
      { tenant: '', message: msg, configuration: undefined, metadata: undefined },
      { signal },
    );
    if ('messageId' in result) return textOf((result as Message).parts);
    const task = result as Task;
    const state = task.status?.state;
    if (state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED || state === TaskState.TASK_STATE_REJECTED) {
      throw new FwError('remote_task_failed', textOf(task.status?.message?.parts) || `remote task ended ${state}`, 502);
    }
    return textOf(task.status?.message?.parts) || task.artifacts.map((a) => textOf(a.parts)).join('');
  };
}
