import { tool, type ToolContext, type ToolResult } from '@opencode-ai/plugin';
import { z } from 'zod';
import { quote } from '../text/quote.js';
import { InvalidToolArgumentsError } from './invalid-tool-arguments-error.js';
import { toolError } from './tool-error.js';

export interface OrcaToolSpec<Args extends z.ZodRawShape> {
  name: string;
  description: string;
  args: Args;
  /** Each argument in words, for the error a bad call gets ("a non-empty string: the user's message"). */
  expected: { [K in keyof Args]: string };
  execute(args: z.infer<z.ZodObject<Args>>, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * An OpenCode tool whose arguments are parsed before `execute` sees them. OpenCode 1.18 does not
 * validate a plugin tool's arguments against its schema: `{}`, numbers and nulls reach `execute`
 * (https://github.com/anomalyco/opencode/issues/49279). A bad call gets an error naming each wrong
 * argument and what it must be; unknown arguments are refused too (a misspelt `planId` must not
 * silently start a new plan).
 */
export function defineTool<Args extends z.ZodRawShape>(spec: OrcaToolSpec<Args>) {
  return tool({
    description: spec.description,
    args: spec.args,
    async execute(raw: unknown, ctx: ToolContext): Promise<ToolResult> {
      const parsed = parseToolArguments(spec, raw);
      if (!parsed.success) return toolError(parsed.error);
      try {
        return await spec.execute(parsed.data, ctx);
      } catch (error) {
        return toolError(error);
      }
    },
  });
}

/** A tool's arguments checked strictly against `spec.args` (a tool whose shape varies, like `agenda`'s, parses with it too). */
export function parseToolArguments<Args extends z.ZodRawShape>(
  spec: Pick<OrcaToolSpec<Args>, 'name' | 'args' | 'expected'>,
  raw: unknown,
): { success: true; data: z.infer<z.ZodObject<Args>> } | { success: false; error: InvalidToolArgumentsError } {
  const parsed = z.strictObject(spec.args).safeParse(raw === undefined ? {} : raw);
  return parsed.success ? { success: true, data: parsed.data as z.infer<z.ZodObject<Args>> } : { success: false, error: invalidArguments(spec, raw, parsed.error.issues) };
}

function invalidArguments<Args extends z.ZodRawShape>(spec: Pick<OrcaToolSpec<Args>, 'name' | 'args' | 'expected'>, raw: unknown, issues: z.core.$ZodIssue[]) {
  const names = Object.keys(spec.args);
  const optional = new Set(names.filter((n) => (spec.args[n] as unknown as z.ZodType).safeParse(undefined).success));
  const signature = names.map((n) => `\`${n}\`${optional.has(n) ? ' (optional)' : ''}`).join(', ');
  const given = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
  const problems: string[] = [];
  if (!given) problems.push(`expected the arguments to be an object with ${signature}, got ${quote(raw)}`);
  else {
    const unknown = issues.flatMap((i) => (i.code === 'unrecognized_keys' ? i.keys : []));
    for (const key of unknown) problems.push(`unexpected argument \`${key.slice(0, 40)}\`: ${spec.name} takes ${signature}`);
    const wrong = [...new Set(issues.filter((i) => i.code !== 'unrecognized_keys').map((i) => String(i.path[0])))];
    for (const key of wrong) {
      const got = key in given ? quote(given[key]) : 'nothing';
      problems.push(`\`${key}\` must be ${spec.expected[key as keyof Args] ?? 'valid'}, got ${got}`);
    }
  }
  const expected = Object.fromEntries(names.map((n) => [n, `${spec.expected[n as keyof Args]}${optional.has(n) ? ' (optional)' : ''}`]));
  return new InvalidToolArgumentsError(spec.name, problems, expected);
}
