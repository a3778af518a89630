import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { optionsJsonSchema, renderOptionsSchema } from '../../src/cli/options-schema.js';

const file = join(import.meta.dirname, '..', '..', 'schema', 'orca.schema.json');

describe('schema/orca.schema.json', () => {
  it('should match the zod plugin options (run `npx tsx scripts/orca-schema.ts`)', () => {
    expect(readFileSync(file, 'utf8')).toBe(renderOptionsSchema());
  });

  it('should describe every option and forbid unknown keys, as the plugin does', () => {
    const schema = optionsJsonSchema() as any;
    expect(Object.keys(schema.properties)).toEqual(['$schema', 'agents', 'concurrency', 'max_attempts', 'review', 'breakers', 'budget', 'timeouts', 'verification', 'hooks', 'isolation', 'agenda', 'ask_planner_returns', 'prompt_cache', 'prune', 'inspect', 'ui', 'hitl']);
    expect(schema.additionalProperties).toBe(false);
    const auto = schema.properties.hitl.properties.auto;
    expect(auto.additionalProperties).toBe(false);
    expect(auto.properties.deviation).toMatchObject({ enum: ['retry', 'replan', 'stop'], description: expect.stringMatching(/step fails.*Never past a circuit breaker/) });
    expect(auto.properties.budget).toMatchObject({ enum: ['continue', 'stop'], description: expect.stringMatching(/budget gate.*budget.max_cost/) });
    expect(schema.properties.budget.properties.max_tokens.description).toMatch(/cache reads/);
    const agenda = schema.properties.agenda;
    expect(agenda.additionalProperties).toBe(false);
    expect(Object.keys(agenda.properties)).toEqual([
      'tools',
      'poll_seconds',
      'max_pending_project',
      'max_pending_per_session',
      'min_interval_seconds',
      'max_pending_per_event_kind',
      'max_emits_per_session_per_hour',
      'max_cascade_depth',
      'max_plans_per_day',
    ]);
    expect(agenda.properties.max_pending_project.description).toMatch(/default 30/);
  });
});
