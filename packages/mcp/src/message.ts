/**
 * A prompt message (spec §2.4): a `role` and a `content` map. `McpMessage.user(text)` and
 * `McpMessage.system(text)` build text messages. MCP prompts know only the roles `user` and
 * `assistant`, so a system message travels as a `user` message (its text unchanged).
 */
export class McpMessage {
  constructor(
    readonly role: 'system' | 'user' | 'assistant',
    readonly content: Record<string, unknown>,
  ) {}

  static system(text: string): McpMessage {
    return new McpMessage('system', { type: 'text', text });
  }

  static user(text: string): McpMessage {
    return new McpMessage('user', { type: 'text', text });
  }

  static assistant(text: string): McpMessage {
    return new McpMessage('assistant', { type: 'text', text });
  }

  /** The wire form (`system` mapped to `user`). */
  toJSON(): { role: 'user' | 'assistant'; content: Record<string, unknown> } {
    return { role: this.role === 'assistant' ? 'assistant' : 'user', content: this.content };
  }
}

/** One item of a tool result's `content` (text, image, audio, resource, resource_link). */
export type McpContent = Record<string, unknown> & { type: string };

/**
 * Return this from a tool to control the MCP result exactly (several content items, images,
 * `isError`); any other return value is serialised for you.
 */
export class McpToolResult {
  constructor(
    readonly content: McpContent[],
    readonly options: { isError?: boolean; structuredContent?: Record<string, unknown> } = {},
  ) {}

  static text(text: string): McpToolResult {
    return new McpToolResult([{ type: 'text', text }]);
  }

  static error(text: string): McpToolResult {
    return new McpToolResult([{ type: 'text', text }], { isError: true });
  }
}
