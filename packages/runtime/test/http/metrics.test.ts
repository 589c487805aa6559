import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { startFw } from '../helpers.js';
import { parsePrometheus, skipNoParser, type PromFamily } from '../prometheus.js';

async function scrape(url: string, headers: Record<string, string> = {}): Promise<PromFamily[]> {
  const res = await fetch(url, { headers });
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await res.text());
}

function family(families: PromFamily[], name: string): PromFamily {
  const f = families.find((x) => x.name === name);
  assert.ok(f, `metric family ${name} is exported`);
  return f;
}

/** The value of one sample: `name` is the sample's name (`x_total`, `x_count`, `x_bucket`), labels must all match. */
function value(families: PromFamily[], name: string, labels: Record<string, string> = {}): number {
  for (const f of families) {
    const s = f.samples.find((m) => m.name === name && Object.entries(labels).every(([k, v]) => m.labels[k] === v));
    if (s) return s.value;
  }
  assert.fail(`sample ${name}${JSON.stringify(labels)} is exported`);
}

async function openWs(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return ws;
}

test('/fw/metrics after real traffic: a Prometheus scrape, parsed, with connections, messages, fan-out and HTTP histograms', {
  skip: skipNoParser,
}, async () => {
  const app = await startFw({}, (fw) => {
    fw.route('GET', '/fw/items/{id}', (_req, res) => void res.writeHead(404).end());
    fw.handle('/room', {
      message(resource, data) {
        fw.broadcasters.lookup(resource.path)?.broadcast(`echo:${data}`);
      },
    });
  });
  const sockets: WebSocket[] = [];
  try {
    for (let i = 0; i < 3; i++) sockets.push(await openWs(`${app.ws}/fw/room`));
    const got = sockets.map(() => [] as string[]);
    sockets.forEach((ws, i) => ws.on('message', (d) => got[i]!.push(d.toString())));
    const everyoneHas = (n: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + 5000;
        const check = (): void => {
          if (got.every((g) => g.length >= n)) resolve();
          else if (Date.now() > deadline) reject(new Error(`timed out: ${got.map((g) => g.length).join(',')}`));
          else setTimeout(check, 5);
        };
        check();
      });
    sockets[0]!.send('a');
    sockets[1]!.send('b');
    await everyoneHas(2);
    // An SSE connection too, so two transports are counted.
    const sse = await fetch(`${app.base}/fw/room?transport=sse`);
    assert.equal(sse.status, 200);
    // The response's head is written once the resource is registered and a member.
    const reader = sse.body!.getReader();
    assert.equal((await fetch(`${app.base}/fw/health`)).status, 200);
    assert.equal((await fetch(`${app.base}/fw/items/nope.js`)).status, 404);

    const m = await scrape(`${app.base}/fw/metrics`);
    assert.equal(value(m, 'fw_connections', { transport: 'websocket' }), 3);
    assert.equal(value(m, 'fw_connections', { transport: 'sse' }), 1);
    assert.equal(value(m, 'fw_connections', { transport: 'long-polling' }), 0);
    assert.equal(value(m, 'fw_broadcasters'), 1);
    assert.equal(family(m, 'fw_messages_in').type, 'counter');
    assert.equal(value(m, 'fw_messages_in_total'), 2);
    assert.equal(value(m, 'fw_messages_out_total'), 6);
    assert.equal(value(m, 'fw_broadcasts_total'), 2);
    for (const name of [
      'fw_messages_dropped_total',
      'fw_slow_consumer_disconnects_total',
      'fw_resumes_total',
      'fw_gaps_total',
      'fw_messages_lost_total',
    ]) {
      assert.equal(value(m, name), 0, name);
    }
    assert.equal(family(m, 'fw_broadcast_fanout_seconds').type, 'histogram');
    assert.equal(value(m, 'fw_broadcast_fanout_seconds_count'), 2);
    assert.equal(value(m, 'fw_broadcast_fanout_seconds_bucket', { le: '+Inf' }), 2);
    // Queue depths are sampled over every live connection at scrape time.
    assert.equal(value(m, 'fw_socket_queue_bytes_count'), 4);
    assert.equal(value(m, 'fw_socket_queue_frames_count'), 4);
    assert.equal(value(m, 'fw_http_request_duration_seconds_count', { route: '/fw/health', method: 'GET', status: '200' }), 1);
    assert.equal(value(m, 'fw_http_request_duration_seconds_count', { route: '/fw/items/{id}', method: 'GET', status: '404' }), 1);
    // Labels are bounded: no per-connection or per-path label anywhere.
    const labelValues = m.flatMap((f) => f.samples.flatMap((s) => Object.values(s.labels)));
    assert.ok(!labelValues.some((v) => v.includes('nope.js') || /[0-9a-f]{8}-[0-9a-f]{4}/.test(v)), 'no raw path or uuid as a label');
    // fw's registry only: prom-client's process metrics are off by default.
    assert.ok(!m.some((f) => f.name.startsWith('process_') || f.name.startsWith('nodejs_')));

    // Counters keep counting across scrapes.
    sockets[2]!.send('c');
    await everyoneHas(3);
    const again = await scrape(`${app.base}/fw/metrics`);
    assert.equal(value(again, 'fw_messages_in_total'), 3);
    assert.equal(value(again, 'fw_messages_out_total'), 10, 'three WebSockets and the SSE stream got the third');
    assert.equal(value(again, 'fw_broadcasts_total'), 3);
    await reader.cancel();
  } finally {
    for (const ws of sockets) ws.close();
    await app.close();
  }
});

test('/fw/metrics access: a scrape credential of its own; without it only loopback, and nothing for a wrong token', async () => {
  // allow-loopback off makes this loopback test client count as a remote scraper.
  const closed = await startFw({ 'fw.metrics.allow-loopback': false });
  try {
    const res = await fetch(`${closed.base}/fw/metrics`);
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { code: string }).code, 'metrics_forbidden');
  } finally {
    await closed.close();
  }

  const token = 'scrape-secret-1234';
  const app = await startFw({ 'fw.metrics.allow-loopback': false, 'fw.metrics.token': token });
  try {
    const none = await fetch(`${app.base}/fw/metrics`);
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="fw-metrics"');
    assert.equal(((await none.json()) as { code: string }).code, 'metrics_unauthorized');
    for (const wrong of ['Bearer scrape-secret-123', 'Bearer scrape-secret-12345', `Basic ${token}`, 'Bearer']) {
      const r = await fetch(`${app.base}/fw/metrics`, { headers: { authorization: wrong } });
      assert.equal(r.status, 401, wrong);
      assert.ok(!(await r.text()).includes('fw_'), 'no metric leaks in a refusal');
    }
    const ok = await fetch(`${app.base}/fw/metrics`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /^fw_connections\{transport="websocket"\} 0$/m);
  } finally {
    await app.close();
  }

  // Open on loopback by default.
  const local = await startFw();
  try {
    assert.equal((await fetch(`${local.base}/fw/metrics`)).status, 200);
  } finally {
    await local.close();
  }
});

test('/fw/metrics with fw.auth.tokens configured: a credential-less loopback caller is refused; the scrape token or a viewer credential reads', async () => {
  const viewer = 'metrics-viewer-0123456789';
  const app = await startFw({
    'fw.auth.tokens': `vic:viewer:${viewer},nob:none:metrics-nobody-0123456789`,
    'fw.metrics.token': 'scrape-0123456789',
  });
  try {
    const none = await fetch(`${app.base}/fw/metrics`);
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { code: string }).code, 'metrics_unauthorized');
    assert.equal((await fetch(`${app.base}/fw/metrics`, { headers: { authorization: 'Bearer scrape-0123456789' } })).status, 200);
    assert.equal((await fetch(`${app.base}/fw/metrics`, { headers: { authorization: `Bearer ${viewer}` } })).status, 200);
    const roleless = await fetch(`${app.base}/fw/metrics`, { headers: { authorization: 'Bearer metrics-nobody-0123456789' } });
    assert.equal(roleless.status, 403, 'a principal without the viewer role');
    assert.equal(((await roleless.json()) as { code: string }).code, 'metrics_forbidden');
    assert.equal((await fetch(`${app.base}/fw/metrics`, { headers: { authorization: 'Bearer wrong-0123456789' } })).status, 401);
  } finally {
    await app.close();
  }
  // Set explicitly, loopback stays open (a documented choice).
  const open = await startFw({ 'fw.auth.tokens': `vic:viewer:${viewer}`, 'fw.metrics.allow-loopback': true });
  try {
    assert.equal((await fetch(`${open.base}/fw/metrics`)).status, 200);
  } finally {
    await open.close();
  }
});

test('fw.metrics.enabled=false: no endpoint, nothing observed', async () => {
  const app = await startFw({ 'fw.metrics.enabled': false });
  try {
    assert.equal((await fetch(`${app.base}/fw/metrics`)).status, 404);
    assert.equal(app.fw.runtime.fanoutObserver, undefined);
  } finally {
    await app.close();
  }
});

test('fw.metrics.process adds prom-client default metrics to fw registry', { skip: skipNoParser }, async () => {
  const app = await startFw({ 'fw.metrics.process': true });
  try {
    const m = await scrape(`${app.base}/fw/metrics`);
    assert.ok(m.some((f) => f.name === 'process_cpu_user_seconds'));
    assert.ok(m.some((f) => f.name === 'nodejs_eventloop_lag_seconds'));
  } finally {
    await app.close();
  }
});
