// Every session of a project, wherever it runs: the project's own list, and the children of each
// (a step that runs in its own git worktree has its session in that directory, which the
// project's list leaves out; `session.children` lists it under its parent).
import type { OpencodeClient } from '@opencode-ai/sdk/v2';

type Session = NonNullable<Awaited<ReturnType<OpencodeClient['session']['list']>>['data']>[number];

export async function allSessions(client: OpencodeClient): Promise<Session[]> {
  const found = new Map<string, Session>();
  let next = ((await client.session.list(undefined, { throwOnError: true })).data ?? []) as Session[];
  while (next.length > 0) {
    const fresh = next.filter((s) => !found.has(s.id));
    for (const s of fresh) found.set(s.id, s);
    const children = await Promise.all(fresh.map(async (s) => ((await client.session.children({ sessionID: s.id }, { throwOnError: true })).data ?? []) as Session[]));
    next = children.flat();
  }
  return [...found.values()];
}
