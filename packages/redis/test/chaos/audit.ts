/** Cluster chaos clients: an fw client on several nodes, recorded for the shared delivery audit. */
import { connect, type FwClient, type Recovery } from '@fw/client/node';
import { type Delivery, record } from '@fw/testing';

export { assertAudit, audit } from '@fw/testing';

export interface Listener extends Delivery<Recovery> {
  client: FwClient;
}

/** A client on `urls` (tried in order), recording messages, gaps and recoveries; resolves once open. */
export function listen(urls: string[], path: string, clients: FwClient[]): Promise<Listener> {
  const client = connect(
    urls.map((u) => `${u}${path}`),
    { transports: ['websocket'], reconnect: { minDelay: 50, maxDelay: 200 } },
  );
  clients.push(client);
  const l: Listener = { client, ...record(client) };
  return new Promise((resolve) => client.onStateChange((s) => s === 'open' && resolve(l)));
}
