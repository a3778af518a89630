import type { Turn } from '../../src/machines/turn.js';
import { ZERO_USAGE, type Usage } from '../../src/machines/usage.js';

/** One prompt's usage as tests report it: one model call, 100 tokens in, 10 out, a tenth of a cent. */
export const ONE_TURN: Usage = { ...ZERO_USAGE, turns: 1, model_calls: 1, input: 100, output: 10, cost: 0.001 };

export const usage = (patch: Partial<Usage> = {}): Usage => ({ ...ONE_TURN, ...patch });

/** What a port that runs turns resolves with: the value and what the turn cost. */
export const turn = <T>(value: T, cost: Usage = ONE_TURN): Turn<T> => ({ value, usage: cost });
