import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { errorMessage, OrcaError } from '../src/errors.js';
import { InvalidToolArgumentsError } from '../src/tools/invalid-tool-arguments-error.js';
import { PlanNotFoundError } from '../src/persistence/errors.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('errorMessage', () => {
  it("should read an Error's message", () => {
    expect(errorMessage(new TypeError('bad input'))).toBe('bad input');
    expect(errorMessage(new PlanNotFoundError('plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9'))).toMatch(/^Plan plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9 does not exist/);
  });

  it('should give a thrown string as it is', () => {
    expect(errorMessage('ENOENT: no such file')).toBe('ENOENT: no such file');
  });

  it('should show anything else as JSON, or as text when JSON cannot show it', () => {
    expect(errorMessage({ code: 'E1' })).toBe('{"code":"E1"}');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(errorMessage(cyclic)).toBe('[object Object]');
  });
});

describe('the errors Orca throws', () => {
  it('should all extend OrcaError, directly or through another of its errors', () => {
    const direct = sourceFiles(SRC).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/class (\w+) extends Error\b/g)].map((match) => `${relative(SRC, file)}: ${match[1]}`),
    );
    expect(direct).toEqual(['errors.ts: OrcaError']);
  });

  it('should keep their own name and fields', () => {
    const invalid = new InvalidToolArgumentsError('orca_describe_plan', ['plan_id: missing'], { plan_id: 'a plan_id' });
    expect(invalid).toBeInstanceOf(OrcaError);
    expect(invalid.name).toBe('InvalidToolArgumentsError');
    expect(invalid.expected).toEqual({ plan_id: 'a plan_id' });
    const missing = new PlanNotFoundError('plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9');
    expect(missing).toBeInstanceOf(OrcaError);
    expect(missing.name).toBe('PlanNotFoundError');
    expect(missing.planId).toBe('plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9');
    expect(String(missing)).toMatch(/^PlanNotFoundError: Plan plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9 does not exist/);
  });
});
