import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderStatecharts } from '../../src/statecharts/export.js';

const dir = join(import.meta.dirname, '..', '..', 'statecharts');

describe('statecharts/', () => {
  it.each(Object.entries(renderStatecharts()))('%s should match the machines (run `npm run statecharts`)', (name, content) => {
    expect(readFileSync(join(dir, name), 'utf8')).toBe(content);
  });

  it('should label guarded transitions with their guard', () => {
    const files = renderStatecharts();
    expect(files['step.mmd']).toContain('awaiting_decision --> preparing : step.retry [retriesRemain]');
    expect(files['plan.mmd']).toContain('in_progress --> in_progress : deviation.retry [canRetryStep]');
  });
});
