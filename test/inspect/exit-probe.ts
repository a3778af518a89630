// Run in a child process (Node via tsx, or Bun) by clean-exit.test.ts: uses the inspector the way
// the plugin and the CLI do, stops it, and must then exit by itself. Prints "stopped" when done.
import { createActor } from 'xstate';
import { WebSocket } from 'ws';
import { wirePlanMachine } from '../../src/host/wire.js';
import { idlePlanPorts } from '../../src/machines/ports.js';
import { inspectPlan } from '../../src/inspect/inspect-command.js';
import { startInspector } from '../../src/inspect/inspector.js';

const [projectDir, planId] = process.argv.slice(2);

const inspector = await startInspector();
const page = new WebSocket(inspector.url.replace('http://', 'ws://'));
await new Promise<void>((resolve, reject) => {
  page.once('open', () => resolve());
  page.once('error', reject);
});
const received = new Promise<void>((resolve) => page.on('message', () => resolve()));
const actor = createActor(
  wirePlanMachine(idlePlanPorts),
  { input: { planId: 'plan_probe', message: 'hi' }, inspect: inspector.inspect },
);
actor.start();
actor.send({ type: 'xstate.done.actor.openPlannerSession', output: { sessionId: 's' } } as never);
await received;
await inspector.stop(); // the page is still connected: stop must close it
actor.stop();

const code = projectDir && planId ? await inspectPlan(planId, { dir: projectDir, once: true, print: () => {} }) : 0;
console.log(`stopped ${code}`);
