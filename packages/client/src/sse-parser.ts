/**
 * An incremental text/event-stream parser (the WHATWG algorithm, minus `retry`): fed decoded
 * text in arbitrary chunks, it reports each complete event and each comment line. We read SSE
 * through fetch rather than EventSource so that one code path works in browsers and in Node 20,
 * and so that an HTTP error status (404 unknown_tracking_id) is visible to the client.
 */
export interface SseEvent {
  /** `undefined` when the event carried no `id:` line. */
  id: string | undefined;
  event: string;
  data: string;
}

export class SseParser {
  private buffer = '';
  /** A chunk ended in CR: a LF at the start of the next chunk belongs to the same line break. */
  private skipLf = false;
  private data: string[] = [];
  private hasData = false;
  private id: string | undefined;
  private event = '';

  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    private readonly onComment: (text: string) => void = () => {},
  ) {}

  feed(chunk: string): void {
    if (this.skipLf && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.skipLf = false;
    let text = this.buffer + chunk;
    let start = 0;
    for (;;) {
      const cr = text.indexOf('\r', start);
      const lf = text.indexOf('\n', start);
      if (cr < 0 && lf < 0) break;
      const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      this.line(text.slice(start, end));
      if (text[end] === '\r') {
        if (end + 1 === text.length) {
          this.skipLf = true;
          start = end + 1;
          break;
        }
        start = text[end + 1] === '\n' ? end + 2 : end + 1;
      } else {
        start = end + 1;
      }
    }
    this.buffer = text.slice(start);
    text = '';
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return this.onComment(line.slice(1).trimStart());
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      this.hasData = true;
    } else if (field === 'id') {
      if (!value.includes('\0')) this.id = value;
    } else if (field === 'event') {
      this.event = value;
    }
  }

  private dispatch(): void {
    if (this.hasData) this.onEvent({ id: this.id, event: this.event || 'message', data: this.data.join('\n') });
    this.data = [];
    this.hasData = false;
    this.event = '';
    // Per the standard the last event id persists across events; we report it per event only.
    this.id = undefined;
  }
}
