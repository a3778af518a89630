// Ports never reused within one test process. `opencode serve --port 0` binds 4096 whenever it
// is free, so consecutive servers share an origin and Node's fetch reuses a keep-alive socket
// of the dead one: the first request to the new server fails with ECONNRESET.
import { createServer } from 'node:net';

const usedPorts = new Set<number>();

/** Marks a port as taken by this process (e.g. one a server bound itself). */
export function rememberPort(port: number): void {
  usedPorts.add(port);
}

/** A port that is free now and was never handed out or remembered in this process. */
export async function freshPort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await probeFreePort();
    if (!usedPorts.has(port)) {
      usedPorts.add(port);
      return port;
    }
  }
  throw new Error('Expected the kernel to offer an unused port within 20 attempts.');
}

function probeFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
