// What the relay writes for a person (or another model) acting as the model or the human: one
// model request, or one question dialog, as readable markdown. Everything a prompt or a model
// wrote sits inside a fence long enough for its own backticks, so the headings stay the relay's.
import { findAgentMarker } from '../../src/agents/prompts/marker.js';
import { textOf, type ChatMessage, type RecordedRequest } from '../../test/support/scripted-request.js';

/** `0007`: request, reply, question and answer files share this numbering style. */
export const seq = (n: number) => String(n).padStart(4, '0');

/**
 * Which agent a request is for: Orca's prompt marker, else the header line Orca puts first in
 * every turn it starts (`Orca · plan_… · step s1 (coder)`, `Orca · plan_… · planner`), else
 * `opencode` (an OpenCode agent such as build, or a turn Orca did not start).
 */
export function agentNameOf(req: RecordedRequest): string {
  const marked = findAgentMarker(req.system);
  if (marked) return marked;
  const firstUser = req.messages.find((m) => m.role === 'user');
  const header = /^Orca · \S+ · (?:step \S+ \(([\w.-]+)\)|([\w.-]+))/.exec(textOf(firstUser?.content).trimStart());
  return header?.[1] ?? header?.[2] ?? 'opencode';
}

export const REPLY_HELP =
  'plain text is the model\'s text reply; a line `TOOL <name>` followed by a JSON object of arguments ' +
  '(on the next lines) calls that tool; several TOOL blocks are parallel calls; text before the first one is allowed.';

/** How to answer request `n`, as the file says it at its top and bottom. */
export const replyInstruction = (n: number) => `Answer by writing \`replies/${seq(n)}.md\`: ${REPLY_HELP}`;

export function renderRequest(req: RecordedRequest, n: number): string {
  const agent = agentNameOf(req);
  const tools: any[] = Array.isArray(req.body?.tools) ? req.body.tools : [];
  const conversation = req.messages.filter((m) => m.role !== 'system');
  const out = [
    `# Request ${seq(n)} · agent ${agent}`,
    '',
    replyInstruction(n),
    '',
    `tool_choice: ${toolChoiceOf(req)} · ${tools.length} tools offered (listed at the end) · ${conversation.length} messages`,
    '',
    '## System prompt',
    '',
    fence(req.system),
    '',
    '## Messages',
  ];
  conversation.forEach((message, i) => out.push('', ...renderMessage(message, i + 1, req.messages)));
  out.push('', '## Tools offered', '');
  if (tools.length === 0) out.push('(none)');
  for (const tool of tools) {
    const fn = tool?.function ?? tool;
    out.push(`### ${fn?.name ?? '?'}`, '', fence(String(fn?.description ?? '').trim()), '', 'parameters:', '', fence(JSON.stringify(fn?.parameters ?? {}), 'json'), '');
  }
  out.push('', `tool_choice: ${toolChoiceOf(req)}`, '', '---', '', replyInstruction(n), '');
  return out.join('\n');
}

function renderMessage(message: ChatMessage, i: number, all: ChatMessage[]): string[] {
  if (message.role === 'tool') {
    const id = String(message.tool_call_id ?? '');
    const call = all.flatMap((m) => m.tool_calls ?? []).find((c) => c.id === id);
    return [`### ${i} · tool result · ${call?.function.name ?? '?'} (${id})`, '', fence(contentText(message.content))];
  }
  const out = [`### ${i} · ${message.role}`];
  const reasoning = typeof message.reasoning_content === 'string' ? message.reasoning_content : '';
  if (reasoning) out.push('', '(reasoning)', '', fence(reasoning));
  const body = contentText(message.content);
  if (body) out.push('', fence(body));
  for (const call of message.tool_calls ?? []) {
    out.push('', `TOOL ${call.function.name} (${call.id})`, '', fence(prettyArguments(call.function.arguments), 'json'));
  }
  if (!body && !reasoning && !message.tool_calls?.length) out.push('', '(empty)');
  return out;
}

/** Text parts as they are; anything else (an image, a file) as a one-line placeholder. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return textOf(content);
  return content
    .map((part: any) => (typeof part === 'string' || typeof part?.text === 'string' ? textOf([part]) : `[${part?.type ?? 'part'} not shown]`))
    .join('\n');
}

function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args; // a malformed call is shown as sent
  }
}

function toolChoiceOf(req: RecordedRequest): string {
  const choice = req.body?.tool_choice;
  if (choice === undefined) return '(not set)';
  return typeof choice === 'string' ? choice : JSON.stringify(choice);
}

/** A fenced block whose fence is longer than any backtick run inside `text`. */
export function fence(text: string, lang = ''): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(Math.max(3, longest + 1));
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

/** A question dialog as GET /question lists it. */
export type QuestionRequest = {
  id: string;
  sessionID: string;
  questions: Array<{ header?: string; question: string; options?: Array<{ label: string; description?: string }>; multiple?: boolean }>;
};

/** A permission dialog as GET /permission lists it. */
export type PermissionRequest = {
  id: string;
  sessionID: string;
  permission: string;
  patterns?: string[];
  metadata?: Record<string, unknown>;
};

export const PERMISSION_REPLIES = ['once', 'always', 'reject'] as const;

export function renderQuestion(q: QuestionRequest, n: number, above = ''): string {
  const out = [
    `# Question ${seq(n)} · session ${q.sessionID}`,
    '',
    `Answer by writing \`answers/${seq(n)}.md\`: one line per question below, in order; each line is an option's label or number, or your own text. For a multiple-choice question, separate labels with \` | \`.`,
    ...(above ? ['', '## What the conversation shows above this dialog', '', fence(above, 'text')] : []),
  ];
  q.questions.forEach((question, i) => {
    out.push('', `## ${i + 1}. ${question.header ?? ''}`.trimEnd(), '', question.question.trim(), '', 'Options:', '');
    (question.options ?? []).forEach((o, k) => out.push(`[${k + 1}] ${o.label}${o.description ? ` — ${o.description}` : ''}`));
    if (question.multiple) out.push('', '(several may be chosen)');
  });
  out.push('');
  return out.join('\n');
}

export function renderPermission(p: PermissionRequest, n: number): string {
  return [
    `# Permission ${seq(n)} · session ${p.sessionID}`,
    '',
    `Answer by writing \`answers/${seq(n)}.md\`: one line, \`once\`, \`always\` or \`reject\` (or 1, 2, 3); any other text rejects with that text as the message.`,
    '',
    `## ${p.permission}`,
    '',
    `patterns: ${JSON.stringify(p.patterns ?? [])}`,
    '',
    'metadata:',
    '',
    fence(JSON.stringify(p.metadata ?? {}), 'json'),
    '',
    'Options:',
    '',
    '[1] once',
    '[2] always',
    '[3] reject',
    '',
  ].join('\n');
}
