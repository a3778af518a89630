import { describe, expect, it } from 'vitest';
import { clientUntilEnded } from '../../src/opencode/instances.js';

/** A client of one namespace whose calls answer when the test says so. */
function pendingClient() {
  const answers: Array<() => void> = [];
  const client = {
    session: {
      prefix: 'answered',
      status(this: { prefix: string }, id: string) {
        return new Promise<string>((resolve) => answers.push(() => resolve(`${this.prefix} ${id}`)));
      },
    },
  };
  return { client, answers };
}

describe('clientUntilEnded', () => {
  it('should pass calls through, bound to their namespace, until the end', async () => {
    const { client, answers } = pendingClient();
    const ending = clientUntilEnded(client);
    const status = ending.client.session.status('s1');
    answers.shift()!();
    await expect(status).resolves.toBe('answered s1');
    expect(ending.ended()).toBe(false);
  });

  it('should hold the end until the calls already sent are answered, and refuse every call after it, naming it', async () => {
    const { client, answers } = pendingClient();
    const ending = clientUntilEnded(client);
    const sent = ending.client.session.status('s1');
    let over = false;
    const end = ending.end(60_000).then(() => (over = true));
    await expect(ending.client.session.status('s2')).rejects.toThrow('client.session.status not called: Orca stopped with its OpenCode instance');
    expect(answers).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(over).toBe(false);
    answers.shift()!();
    await end;
    await expect(sent).resolves.toBe('answered s1');
    expect(ending.ended()).toBe(true);
  });

  it('should end after the wait when a call sent before is never answered', async () => {
    const { client } = pendingClient();
    const ending = clientUntilEnded(client);
    void ending.client.session.status('s1');
    const started = Date.now();
    await ending.end(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});
