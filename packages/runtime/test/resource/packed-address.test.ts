import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packAddress, unpackAddress } from '../../dist/resource/packed-address.js';

test('packAddress: canonical IPv4 packs to 32 bits and reads back as the same string', () => {
  for (const a of ['0.0.0.0', '127.0.0.1', '10.0.0.7', '128.0.0.1', '198.51.100.4', '255.255.255.255', '1.22.133.4']) {
    const packed = packAddress(a);
    assert.equal(typeof packed, 'number', a);
    assert.equal(unpackAddress(packed), a);
  }
});

test('packAddress: anything else is kept as the very string (no lossy packing)', () => {
  const kept = [
    '',
    '.',
    '1.2.3',
    '1.2.3.4.5',
    '1..3.4',
    '.1.2.3',
    '1.2.3.',
    '01.2.3.4',
    '1.2.3.00',
    '256.1.1.1',
    '1.2.3.1000',
    '1.2.3.4 ',
    'a.b.c.d',
    '2001:db8::1',
    '::ffff:10.1.2.3',
    'fe80::1%eth0',
    '１.2.3.4',
  ];
  for (const a of kept) assert.equal(packAddress(a), a, JSON.stringify(a));
});
