import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { forecastPlan, forecastText } from '../../src/usage/forecast.js';
import { createUsageHistory, median } from '../../src/usage/history.js';
import { formatCost, formatTokens } from '../../src/usage/format.js';
import { usage } from '../support/turns.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'orca-usage-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('median', () => {
  it('should take the middle value, or the mean of the two middle ones', () => {
    expect(median([5])).toBe(5);
    expect(median([9, 1, 5])).toBe(5);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow('Expected at least one value for a median, got none.');
  });
});

describe('usage history', () => {
  it('should keep the last turns of each agent and give their medians, across processes', () => {
    const path = join(dir, '.usage-history');
    const history = createUsageHistory(path, { perAgent: 3 });
    expect(history.stats('coder')).toBeNull();
    for (const input of [100, 200, 300, 400]) history.record('coder', usage({ input, output: 0, cost: input / 10_000 }));
    history.record('reviewer', usage({ input: 50, output: 0, cache_read: 50, cost: 0.001 }));
    // The oldest coder turn (100) fell out: 200, 300, 400 remain; known at once, before the file is written.
    expect(history.stats('coder')).toEqual({ turns: 3, median_tokens: 300, median_cost: 0.03 });
    expect(existsSync(path)).toBe(false);
    history.flush();
    // Every token class counts, cache reads included.
    expect(createUsageHistory(path).stats('reviewer')).toEqual({ turns: 1, median_tokens: 100, median_cost: 0.001 });
    expect(JSON.parse(readFileSync(path, 'utf8')).format).toBe(1);
  });

  it('should start from no history when its file is damaged, saying so, and write a good one again', async () => {
    const path = join(dir, '.usage-history');
    writeFileSync(path, '{ nope');
    const logs: string[] = [];
    const history = createUsageHistory(path, { log: (_level, message) => logs.push(message) });
    expect(history.stats('coder')).toBeNull();
    expect(logs[0]).toMatch(/cannot be read .*forecasts start from no history/);
    history.record('coder', usage());
    await vi.waitFor(() => expect(createUsageHistory(path).stats('coder')).toEqual({ turns: 1, median_tokens: 110, median_cost: 0.001 }));
  });

  it('should write the turns recorded together once, right after, on top of what another process wrote meanwhile', async () => {
    const path = join(dir, '.usage-history');
    const mine = createUsageHistory(path);
    const other = createUsageHistory(path);
    other.record('tester', usage({ cost: 0.002 }));
    other.flush();
    mine.record('coder', usage({ input: 100, output: 0, cost: 0.01 }));
    mine.record('coder', usage({ input: 300, output: 0, cost: 0.03 }));
    expect(existsSync(path) && JSON.parse(readFileSync(path, 'utf8')).agents.coder).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(file.agents).toEqual({ tester: [[110, 0.002]], coder: [[100, 0.01], [300, 0.03]] });
  });
});

describe('forecast', () => {
  const steps = [{ agent: 'coder' }, { agent: 'coder' }, { agent: 'tester' }];

  it('should count one dispatch per step and one reviewer round per reviewed step, with no history yet', () => {
    const forecast = forecastPlan(steps, ['coder'], () => null);
    expect(forecast).toEqual({ dispatches: { steps: 3, reviews: 2, total: 5 }, estimate: null });
    expect(forecastText(forecast)).toBe(
      'Forecast: at least 5 dispatches (3 steps + 2 reviewer rounds); tokens and cost: no history yet.',
    );
  });

  it("should estimate from each agent's median turn and say how many turns it rests on and what it leaves out", () => {
    const stats = { coder: { turns: 8, median_tokens: 12_000, median_cost: 0.05 }, reviewer: { turns: 3, median_tokens: 3_000, median_cost: 0.01 } } as const;
    const forecast = forecastPlan(steps, ['coder'], (agent) => stats[agent as keyof typeof stats] ?? null);
    expect(forecast.estimate).toEqual({ tokens: 30_000, cost: 0.12, based_on: { coder: 8, reviewer: 3 }, without_history: ['tester'] });
    expect(forecastText(forecast)).toBe(
      'Forecast: at least 5 dispatches (3 steps + 2 reviewer rounds); about 30,000 tokens and $0.12, from the medians of 11 recorded turns (coder 8, reviewer 3); no history yet for tester, not counted.',
    );
    expect(forecastText(forecastPlan([{ agent: 'tester' }], [], () => ({ turns: 1, median_tokens: 10, median_cost: 0 })))).toBe(
      'Forecast: at least 1 dispatch (1 step); about 10 tokens and $0.00, from the medians of 1 recorded turn (tester 1).',
    );
  });
});

describe('format', () => {
  it('should show money and tokens for people', () => {
    expect([0, 0.0042, 0.001, 0.12, 3].map(formatCost)).toEqual(['$0.00', '$0.0042', '$0.001', '$0.12', '$3.00']);
    expect([999, 12_345, 123_456, 12_345_678].map(formatTokens)).toEqual(['999', '12,345', '123k', '12.3M']);
  });
});
