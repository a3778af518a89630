/**
 * The idempotency keys of the side effects a persisted plan snapshot shows in flight: every invoked
 * actor, at any depth, still active and given an `idempotencyKey` in its input (a step's session
 * opening, its specialist turn, a review or fix turn, …). Only these can have started in the
 * process that wrote the snapshot, so only these need looking for in OpenCode when it is restored.
 */
export function inFlightKeys(persisted: unknown): string[] {
  const keys: string[] = [];
  const visit = (snapshot: unknown) => {
    if (!isRecord(snapshot)) return;
    const { status, input, children } = snapshot;
    if (status === 'active' && isRecord(input) && typeof input.idempotencyKey === 'string') keys.push(input.idempotencyKey);
    if (!isRecord(children)) return;
    for (const child of Object.values(children)) if (isRecord(child)) visit(child.snapshot);
  };
  visit(persisted);
  return keys;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
