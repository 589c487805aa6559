import { CloseCode, parseClientFrame } from '@fw/protocol';
import type { FwResource } from '../resource/resource.js';
import { jsonDepthExceeds } from '../security/json-depth.js';

/**
 * A client's WebSocket text frame, whatever server took it (`ws` on Node, `Bun.serve` on Bun):
 * the message itself for raw clients, an fw frame (`m`, `hb` or `tool-response`) otherwise.
 */
export function receiveWebSocketText(r: FwResource, fw: boolean, text: string): void {
  if (!fw) {
    r.receive(text);
    return;
  }
  // Checked before parsing (fw.limits.json-depth): a deep frame costs one scan, never a stack.
  if (jsonDepthExceeds(text, r.runtime.settings.jsonDepth)) {
    r.close('malformed frame: JSON nests too deep (fw.limits.json-depth)', 1007);
    return;
  }
  const frame = parseClientFrame(text);
  if (frame === undefined) r.close('malformed frame', CloseCode.invalidPayload);
  else if (frame.t === 'hb') r.heard = true;
  else if (frame.s === undefined) r.receiveNumbered(frame.t, frame.d, undefined);
  else {
    // A numbered message is taken once and acknowledged (a resend too: its ack was lost).
    if (frame.s > r.upstream + 1) {
      r.close(`client message ${frame.s} arrived before ${r.upstream + 1}`, 1002);
      return;
    }
    r.receiveNumbered(frame.t, frame.d, frame.s);
    r.acknowledge();
  }
}

/** A WebSocket close reason is at most 123 bytes of UTF-8. */
export function closeReason(reason: string): string {
  let r = reason;
  while (Buffer.byteLength(r) > 123) r = r.slice(0, -1);
  return r;
}
