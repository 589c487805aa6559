// The configuration is typed from each key's one declaration (`defineConfig`): these lines are
// checked by the compiler. Each `@ts-expect-error` fails the build if the error it expects goes
// away, so a regression in the types is a red build, not a silent `unknown`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework, defineConfig, type ConfigTypes } from '@fw/runtime';

const DEMO_CONFIG = defineConfig({
  'fw.demo.limit': { type: 'number', default: 3, description: 'a limit' },
  'fw.demo.window': { type: 'duration', default: '2s', description: 'a window' },
});

declare module '@fw/runtime' {
  interface FwConfigKeys extends ConfigTypes<typeof DEMO_CONFIG> {}
}

// @ts-expect-error a default of the wrong type does not compile
defineConfig({ 'fw.demo.bad': { type: 'number', default: 'ten', description: '' } });

test('typed options and typed reads', async () => {
  // @ts-expect-error a misspelled key does not compile
  const misspelled = new Framework({ configFile: false, env: {}, 'fw.pth': '/x' });
  await misspelled.close();
  // @ts-expect-error a value of the wrong type does not compile
  const wrongType = () => new Framework({ configFile: false, env: {}, 'fw.port': 'eighty' });
  assert.equal(typeof wrongType, 'function');

  const fw = new Framework({ configFile: false, env: {}, 'fw.demo.window': '5s' });
  fw.config.declare(DEMO_CONFIG);
  const limit: number = fw.config.get('fw.demo.limit');
  const window: number = fw.config.get('fw.demo.window');
  const path: string = fw.config.get('fw.path');
  // @ts-expect-error a number key is not a string
  const wrong: string = fw.config.get('fw.demo.limit');
  assert.deepEqual([limit, window, path, wrong], [3, 5000, '/fw', 3]);
  await fw.close();
});
