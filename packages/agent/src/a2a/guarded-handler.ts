/**
 * The SDK's request handler behind a guard on what its errors tell a client. @a2a-js/sdk's
 * JSON-RPC transports answer any error as its message: an A2A error (TaskNotFound, …) is meant
 * for the client, but anything else (a store driver's `connect ECONNREFUSED 10.0.0.5:5432`, a
 * TypeError naming a property) would reach the client as it is. Here an A2A error passes, an
 * FwError (thrown on purpose, its message written for a client) becomes an A2A error with that
 * message, and anything else is logged with a reference and answered as an internal error that
 * carries only the reference.
 */
import type { AgentCard, Message, StreamResponse, Task } from '@a2a-js/sdk';
import { A2AError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { FwError, type Logger } from '@fw/runtime';
import { publicError } from '../errors.js';

type Handler = A2ARequestHandler;
type Params<M extends keyof Handler> = Parameters<Handler[M]>[0];
type Streamed = StreamResponse;

export class GuardedRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly inner: A2ARequestHandler,
    private readonly log: Logger,
    private readonly agentName: string,
  ) {}

  getAgentCard(): Promise<AgentCard> {
    return this.inner.getAgentCard();
  }

  getAuthenticatedExtendedAgentCard(params: Params<'getAuthenticatedExtendedAgentCard'>, context: ServerCallContext): Promise<AgentCard> {
    return this.call('GetExtendedAgentCard', () => this.inner.getAuthenticatedExtendedAgentCard(params, context));
  }

  sendMessage(params: Params<'sendMessage'>, context: ServerCallContext): Promise<Message | Task> {
    return this.call('SendMessage', () => this.inner.sendMessage(params, context));
  }

  sendMessageStream(params: Params<'sendMessageStream'>, context: ServerCallContext): AsyncGenerator<Streamed, void, undefined> {
    return this.stream('SendStreamingMessage', this.inner.sendMessageStream(params, context));
  }

  getTask(params: Params<'getTask'>, context: ServerCallContext): Promise<Task> {
    return this.call('GetTask', () => this.inner.getTask(params, context));
  }

  cancelTask(params: Params<'cancelTask'>, context: ServerCallContext): Promise<Task> {
    return this.call('CancelTask', () => this.inner.cancelTask(params, context));
  }

  listTasks(params: Params<'listTasks'>, context: ServerCallContext): ReturnType<Handler['listTasks']> {
    return this.call('ListTasks', () => this.inner.listTasks(params, context));
  }

  resubscribe(params: Params<'resubscribe'>, context: ServerCallContext): AsyncGenerator<Streamed, void, undefined> {
    return this.stream('SubscribeToTask', this.inner.resubscribe(params, context));
  }

  createTaskPushNotificationConfig(
    params: Params<'createTaskPushNotificationConfig'>,
    context: ServerCallContext,
  ): ReturnType<Handler['createTaskPushNotificationConfig']> {
    return this.call('CreateTaskPushNotificationConfig', () => this.inner.createTaskPushNotificationConfig(params, context));
  }

  getTaskPushNotificationConfig(
    params: Params<'getTaskPushNotificationConfig'>,
    context: ServerCallContext,
  ): ReturnType<Handler['getTaskPushNotificationConfig']> {
    return this.call('GetTaskPushNotificationConfig', () => this.inner.getTaskPushNotificationConfig(params, context));
  }

  listTaskPushNotificationConfigs(
    params: Params<'listTaskPushNotificationConfigs'>,
    context: ServerCallContext,
  ): ReturnType<Handler['listTaskPushNotificationConfigs']> {
    return this.call('ListTaskPushNotificationConfigs', () => this.inner.listTaskPushNotificationConfigs(params, context));
  }

  deleteTaskPushNotificationConfig(params: Params<'deleteTaskPushNotificationConfig'>, context: ServerCallContext): Promise<void> {
    return this.call('DeleteTaskPushNotificationConfig', () => this.inner.deleteTaskPushNotificationConfig(params, context));
  }

  private async call<T>(method: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.safe(err, method);
    }
  }

  private async *stream<T>(method: string, inner: AsyncGenerator<T, void, undefined>): AsyncGenerator<T, void, undefined> {
    try {
      yield* inner;
    } catch (err) {
      throw this.safe(err, method);
    }
  }

  /** The error as a client may read it. */
  private safe(err: unknown, method: string): unknown {
    if (err instanceof A2AError) return err;
    if (err instanceof FwError) return new A2AError(err.message);
    return new A2AError(publicError(err, this.log, { agent: this.agentName, method }).message);
  }
}
