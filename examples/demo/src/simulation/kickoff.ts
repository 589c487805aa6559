/**
 * One coordinator run at start, so the coordination journal and the execution graph have content
 * before anyone asks anything. It is a real A2A call (SendMessage, A2A 1.0) over loopback to the
 * `lead` coordinator, which dispatches to `research` and `assistant`: the task, the runs and the
 * journal events are exactly what an outside client would have produced.
 */
export type KickoffState = 'pending' | 'completed' | 'failed' | 'skipped';

export interface KickoffResult {
  state: KickoffState;
  detail?: string;
}

export const KICKOFF_QUESTION = 'How do fw agents and transports work together?';

export async function runCoordinatorOnce(baseUrl: string, signal: AbortSignal): Promise<KickoffResult> {
  const res = await fetch(new URL('fw/agent/lead/a2a', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: `demo-kickoff-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: KICKOFF_QUESTION }] } },
    }),
    signal,
  });
  if (res.status === 401) {
    await res.body?.cancel();
    return { state: 'skipped', detail: 'the agents need a credential (fw.auth.* is configured); the simulation has none' };
  }
  const body = (await res.json()) as { error?: { message?: string }; result?: { task?: { status?: { state?: string } } } };
  if (!res.ok || body.error) return { state: 'failed', detail: body.error?.message ?? `HTTP ${res.status}` };
  const state = body.result?.task?.status?.state;
  return state === undefined || state === 'TASK_STATE_COMPLETED'
    ? { state: 'completed' }
    : { state: 'failed', detail: `the task ended ${state}` };
}
