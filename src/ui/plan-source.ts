import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, type JournalEntry } from '../persistence/journal.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { isPlanId } from '../persistence/plan-id.js';
import { parsePlanFileText } from '../persistence/plan-store.js';

/**
 * The viewer's read-only access to `.opencode/plans`: a file that does not validate is reported,
 * never quarantined (that is the plugin's and the CLI's business), and nothing is ever written.
 */

/** A plan file as validated (`file`) plus the raw JSON, whose newer fields (usage, revisions) the schema does not know yet. */
export interface PlanRead {
  file: PlanFile;
  raw: Record<string, unknown>;
}

export type PlanReadResult = { ok: true; plan: PlanRead } | { ok: false; reason: string } | { ok: false; missing: true };

export const planFilePath = (plansDir: string, planId: string) => join(plansDir, `${planId}.json`);
export const journalFilePath = (plansDir: string, planId: string) => join(plansDir, `${planId}.journal.jsonl`);

/** Plan ids with a file in `plansDir`, oldest first (ULIDs sort by time); none when the folder does not exist yet. */
export function listPlanIds(plansDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(plansDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -'.json'.length))
    .filter(isPlanId)
    .sort();
}

export function readPlan(plansDir: string, planId: string): PlanReadResult {
  let text: string;
  try {
    text = readFileSync(planFilePath(plansDir, planId), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, missing: true };
    throw error;
  }
  const parsed = parsePlanFileText(text, planId);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  // parsePlanFileText succeeded, so the text is a JSON object.
  return { ok: true, plan: { file: parsed.file, raw: JSON.parse(text) as Record<string, unknown> } };
}

export const readPlanJournal = (plansDir: string, planId: string): JournalEntry[] => readJournal(journalFilePath(plansDir, planId));
