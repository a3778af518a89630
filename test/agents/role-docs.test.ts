// docs/agents.md "What each role carries" states each role's tools: it must say what the code grants.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENT_IDS, VERIFIER_AGENT_ID, VERIFIER_TOOLS, roleTools } from '../../src/agents/index.js';

const doc = readFileSync(new URL('../../docs/agents.md', import.meta.url), 'utf8');

/** The rows of the table under `## What each role carries`: role → tools. */
function roleTable(): Map<string, string[]> {
  const section = doc.split(/^## /m).find((part) => part.startsWith('What each role carries'));
  if (!section) throw new Error('Expected docs/agents.md to have a "## What each role carries" section');
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 4 || cells[1] === 'role' || /^-+$/.test(cells[1] ?? '')) continue;
    rows.set(cells[1]!, cells[2]!.split(',').map((tool) => tool.trim()));
  }
  return rows;
}

describe('docs/agents.md, what each role carries', () => {
  const table = roleTable();

  it('has one row per role, and one for the hidden verifier', () => {
    expect([...table.keys()].sort()).toEqual([...AGENT_IDS, VERIFIER_AGENT_ID].sort());
  });

  it('lists exactly the tools the verifier is granted', () => {
    expect([...(table.get(VERIFIER_AGENT_ID) ?? [])].sort()).toEqual([...VERIFIER_TOOLS].sort());
  });

  it.each(AGENT_IDS)('lists exactly the tools %s is granted in the project directory, by default', (agent) => {
    expect([...(table.get(agent) ?? [])].sort()).toEqual([...roleTools(agent)].sort());
  });
});
