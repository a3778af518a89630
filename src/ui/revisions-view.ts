import { z } from 'zod';
import { graphView, type GraphView } from './graph-view.js';

/**
 * Earlier versions of the plan, when the plan file keeps them (`revisions[]`, oldest first, each
 * with at least `steps[]` of the plan's step shape). Read tolerantly: an entry that does not have
 * that shape is skipped, and a file without revisions has none.
 */
const revisionStep = z.looseObject({
  id: z.string(),
  agent: z.string().optional(),
  description: z.string().optional(),
  depends_on: z.array(z.string()).optional(),
  status: z.string().optional(),
});
const revision = z.looseObject({ steps: z.array(revisionStep) });

export interface RevisionView {
  /** Position in `revisions[]` (0 = the oldest). */
  index: number;
  label: string;
  graph: GraphView;
  steps: Array<{ id: string; agent: string; description: string; status: string }>;
}

/** The newest `limit` revisions, newest first. */
export function revisionsOf(raw: Record<string, unknown>, limit = 10): RevisionView[] {
  if (!Array.isArray(raw.revisions)) return [];
  const views: RevisionView[] = [];
  raw.revisions.forEach((entry: unknown, index: number) => {
    const parsed = revision.safeParse(entry);
    if (!parsed.success) return;
    const steps = parsed.data.steps.map((s) => ({ id: s.id, agent: s.agent ?? '?', description: s.description ?? '', status: s.status ?? 'pending', depends_on: s.depends_on ?? [] }));
    views.push({
      index,
      label: labelOf(parsed.data, index),
      graph: graphView(steps),
      steps: steps.map(({ depends_on: _d, ...s }) => s),
    });
  });
  return views.reverse().slice(0, limit);
}

function labelOf(entry: Record<string, unknown>, index: number): string {
  return typeof entry.goal === 'string' ? `version ${index + 1}: ${entry.goal}` : `version ${index + 1}`;
}
