import { describe, expect, it } from 'vitest';
import { agentOverrides, outputProtocolOf, parseOptions } from '../../src/config/options.js';
import { optionsJsonSchema } from '../../src/cli/options-schema.js';

describe('agents.<id>.output', () => {
  it('should default every agent to the text protocol', () => {
    const options = parseOptions({});
    for (const agent of ['planner', 'coder', 'tester', 'reviewer', 'researcher', 'document-writer', 'architect']) {
      expect(outputProtocolOf(options, agent)).toBe('text');
    }
  });

  it('should take structured output for the agents configured with it, and only them', () => {
    const options = parseOptions({ agents: { planner: { output: 'structured' }, coder: { model: 'a/b', output: 'text' }, reviewer: { output: 'structured' } } });
    expect(outputProtocolOf(options, 'planner')).toBe('structured');
    expect(outputProtocolOf(options, 'reviewer')).toBe('structured');
    expect(outputProtocolOf(options, 'coder')).toBe('text');
    expect(outputProtocolOf(options, 'tester')).toBe('text');
  });

  it('should refuse a value that is no protocol, naming the key and the choices', () => {
    expect(() => parseOptions({ agents: { coder: { output: 'json' } } })).toThrow(/agents\.coder\.output.*"text".*"structured"/);
  });

  it("should refuse output for orca, whose turns OpenCode starts", () => {
    expect(() => parseOptions({ agents: { orca: { output: 'structured' } } })).toThrow(/agents\.orca\.output: expected no `output` for orca/);
  });

  it('should keep output out of the agent settings OpenCode gets', () => {
    const options = parseOptions({ agents: { coder: { model: 'a/b', output: 'structured', temperature: 0.2 } } });
    expect(agentOverrides(options)).toEqual({ coder: { model: 'a/b', temperature: 0.2 } });
  });

  it('should be in the JSON schema of orca.jsonc', () => {
    expect(JSON.stringify(optionsJsonSchema())).toContain('"output":{"type":"string","enum":["text","structured"]}');
  });
});
