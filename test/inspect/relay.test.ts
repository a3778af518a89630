import { get } from 'node:http';
import { connect, createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { InspectorError } from '../../src/config/inspector-error.js';
import { startRelay, type InspectorRelay } from '../../src/inspect/relay.js';
import { freshPort } from '../support/fresh-port.js';
import { connectPage } from './page-client.js';

let relay: InspectorRelay | undefined;
afterEach(async () => {
  await relay?.stop();
  relay = undefined;
});

const actorMessage = (sessionId: string) => JSON.stringify({ type: '@xstate.actor', sessionId, definition: '{"id":"plan"}' });
const snapshotMessage = (sessionId: string, n: number) => JSON.stringify({ type: '@xstate.snapshot', sessionId, snapshot: { value: `s${n}` } });

/** An IPv4 address of this machine that is not loopback, if it has one. */
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

function statusWithHost(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/', headers: { host }, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode);
    }).once('error', reject);
  });
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const client = connect({ host, port });
    client.once('connect', () => {
      client.destroy();
      resolve(true);
    });
    client.once('error', () => resolve(false));
  });
}

describe('inspector relay', () => {
  it('should listen on 127.0.0.1 only and serve the bridge page there', async () => {
    const port = await freshPort();
    relay = await startRelay({ port });
    expect(relay.pageUrl).toBe(`http://127.0.0.1:${port}/`);
    const page = await fetch(relay.pageUrl, { headers: { connection: 'close' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<iframe id="inspector" src="https://stately.ai/inspect">');
    expect(await canConnect('127.0.0.1', port)).toBe(true);
    if (externalAddress) expect(await canConnect(externalAddress, port)).toBe(false);
  });

  it('should refuse pages served by another site, over HTTP and websocket', async () => {
    const port = await freshPort();
    relay = await startRelay({ port });
    // fetch may not set Host: ask the way a browser does after DNS rebinding.
    expect(await statusWithHost(port, `evil.example:${port}`)).toBe(403);
    expect(await statusWithHost(port, `localhost:${port}`)).toBe(200);
    await expect(connectPage(relay.socketUrl, 'http://evil.example')).rejects.toThrow(/401/);
    const own = await connectPage(relay.socketUrl, `http://localhost:${port}`);
    own.close();
  });

  it('should give a page that opens late the actor registrations even after the history overflowed', async () => {
    relay = await startRelay({ port: 0, history: 5 });
    relay.publish(actorMessage('a'), true);
    for (let n = 0; n < 20; n++) relay.publish(snapshotMessage('a', n));
    const page = await connectPage(relay.socketUrl);
    await page.next((m) => m.type === '@xstate.snapshot' && (m.snapshot?.value as string) === 's19', 'the last snapshot');
    expect(page.messages.map((m) => (m.type === '@xstate.actor' ? 'actor' : m.snapshot?.value))).toEqual(['actor', 's16', 's17', 's18', 's19']);
    page.close();
  });

  it('should relay what one client sends to the others, as createInspectorServer does', async () => {
    relay = await startRelay();
    const page = await connectPage(relay.socketUrl);
    const { WebSocket } = await import('ws');
    const sender = new WebSocket(relay.socketUrl);
    await new Promise<void>((resolve) => sender.once('open', () => resolve()));
    sender.send(actorMessage('remote'));
    await page.next((m) => m.sessionId === 'remote', 'the relayed registration');
    sender.terminate();
    page.close();
  });

  it('should report a busy port as an InspectorError instead of crashing the process', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => blocker.once('listening', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const error = await startRelay({ port }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InspectorError);
      expect((error as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\).*ORCA_INSPECT_PORT`));
    } finally {
      blocker.close();
    }
  });

  it('should close connected pages and free the port on stop', async () => {
    const port = await freshPort();
    const stopping = await startRelay({ port });
    const page = await connectPage(stopping.socketUrl);
    await stopping.stop();
    await page.closed;
    await stopping.stop(); // idempotent
    expect(await canConnect('127.0.0.1', port)).toBe(false);
    const again = await startRelay({ port }); // the port is free at once
    await again.stop();
  });
});
