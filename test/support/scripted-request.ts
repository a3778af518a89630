// What the scripted model saw in one chat-completions request, and helpers that let a
// script read like "if the planner asks, call tool X; when its result comes back, reply".

export type ChatMessage = {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [key: string]: unknown;
};

export type RecordedRequest = {
  /** The parsed JSON body as OpenCode sent it. */
  body: any;
  messages: ChatMessage[];
  /** Function names offered in `tools`. */
  tools: string[];
  /** All system messages, joined by a blank line. */
  system: string;
  /** Text of the last user message ("" when there is none). */
  lastUser: string;
  /** A title-generation request (answered without calling `respond` by default). */
  kind: 'chat' | 'title';
  /** Milliseconds since the epoch when the request arrived. */
  at: number;
  /** Set when `respond` threw: the message also went back as HTTP 500. */
  error?: string;
  /** Set when OpenCode closed the connection before the reply was complete (e.g. session.abort). */
  aborted?: boolean;
};

export type ToolResult = { toolCallId: string; name: string; content: string };

export function parseRecordedRequest(body: any, at: number): RecordedRequest {
  const messages: ChatMessage[] = Array.isArray(body?.messages) ? body.messages : [];
  const tools: string[] = Array.isArray(body?.tools)
    ? body.tools.map((t: any) => String(t?.function?.name ?? t?.name ?? ''))
    : [];
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => textOf(m.content))
    .join('\n\n');
  const users = messages.filter((m) => m.role === 'user');
  const lastUser = users.length > 0 ? textOf(users[users.length - 1]!.content) : '';
  const kind = isTitlePrompt(tools, system) ? 'title' : 'chat';
  return { body, messages, tools, system, lastUser, kind, at };
}

/** Message content is either a string or an array of parts; this flattens the text parts. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: any) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : ''))
    .join('');
}

// OpenCode's title agent offers no tools and its system prompt starts "You are a title generator".
function isTitlePrompt(tools: string[], system: string): boolean {
  return tools.length === 0 && /title generator/i.test(system);
}

/** True when the request is for the agent whose prompt contains `marker`. */
export function isForAgent(req: RecordedRequest, marker: string): boolean {
  return req.system.includes(marker);
}

/** True when `name` is among the tools offered to the model. */
export function offersTool(req: RecordedRequest, name: string): boolean {
  return req.tools.includes(name);
}

/** The tool result the request ends with, or undefined when the last message is not one. */
export function lastToolResult(req: RecordedRequest): ToolResult | undefined {
  const last = req.messages[req.messages.length - 1];
  return last?.role === 'tool' ? toToolResult(req.messages, last) : undefined;
}

/** Every tool result in the conversation, oldest first. */
export function toolResults(req: RecordedRequest): ToolResult[] {
  return req.messages.filter((m) => m.role === 'tool').map((m) => toToolResult(req.messages, m));
}

// Tool messages carry only the call id; the name is on the assistant message that made the call.
function toToolResult(messages: ChatMessage[], message: ChatMessage): ToolResult {
  const id = String(message.tool_call_id ?? '');
  const call = messages
    .flatMap((m) => m.tool_calls ?? [])
    .find((c) => c.id === id);
  return { toolCallId: id, name: call?.function.name ?? '', content: textOf(message.content) };
}
