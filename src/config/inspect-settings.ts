import { z } from 'zod';
import { InspectorError } from './inspector-error.js';
import { quote } from '../text/quote.js';

/** The relay's port when opted in without one; a fixed port so docs/inspector.md can name the page. */
export const DEFAULT_INSPECT_PORT = 4749;

/**
 * The `inspect` plugin option: `true`, or `{ port }` (0 = any free port). Off when absent.
 * The environment wins over it: ORCA_INSPECT=1|0 turns it on or off, ORCA_INSPECT_PORT sets the port.
 */
export const inspectOption = z.union([
  z.boolean(),
  z.strictObject({ port: z.number().int().min(0).max(65_535).optional() }),
]);

export type InspectOption = z.infer<typeof inspectOption>;

export interface InspectorSettings {
  port: number;
}

/** Where to run the inspector, or null when nobody opted in. */
export function inspectorSettings(
  option: InspectOption | undefined,
  env: Record<string, string | undefined> = process.env,
): InspectorSettings | null {
  const enabled = parseSwitch(env.ORCA_INSPECT) ?? (option !== undefined && option !== false);
  if (!enabled) return null;
  const fromOption = typeof option === 'object' ? option.port : undefined;
  return { port: parsePort(env.ORCA_INSPECT_PORT) ?? fromOption ?? DEFAULT_INSPECT_PORT };
}

function parseSwitch(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new InspectorError(`Expected ORCA_INSPECT to be 1 or 0, got ${quote(value)}.`);
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (Number.isInteger(port) && port >= 0 && port <= 65_535) return port;
  throw new InspectorError(`Expected ORCA_INSPECT_PORT to be a port number from 0 to 65535, got ${quote(value)}.`);
}
