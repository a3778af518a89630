import { z } from 'zod';
import { UiError } from './ui-error.js';

/**
 * The `ui` plugin option: `true`, or `{ port }` (0, the default, picks a free port). Off when absent.
 * The environment wins over it: ORCA_UI=1|0 turns the viewer on or off, ORCA_UI_PORT sets the port.
 */
export const uiOption = z.union([z.boolean(), z.strictObject({ port: z.number().int().min(0).max(65_535).optional() })]);

export type UiOption = z.infer<typeof uiOption>;

/** Where the plugin runs the plan viewer, or null when nobody opted in. */
export function uiSettings(option: UiOption | undefined, env: Record<string, string | undefined> = process.env): { port: number } | null {
  const enabled = parseSwitch(env.ORCA_UI) ?? (option !== undefined && option !== false);
  if (!enabled) return null;
  const fromOption = typeof option === 'object' ? option.port : undefined;
  return { port: parsePort(env.ORCA_UI_PORT) ?? fromOption ?? 0 };
}

function parseSwitch(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new UiError(`Expected ORCA_UI to be 1 or 0, got ${JSON.stringify(value.slice(0, 100))}.`);
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (Number.isInteger(port) && port >= 0 && port <= 65_535) return port;
  throw new UiError(`Expected ORCA_UI_PORT to be a port number from 0 to 65535, got ${JSON.stringify(value.slice(0, 100))}.`);
}
