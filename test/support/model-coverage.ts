import {
  createActor,
  type AnyActorLogic,
  type AnyEventObject,
  type AnyStateMachine,
  type AnyStateNode,
  type AnyTransitionDefinition,
} from 'xstate';
import { getAdjacencyMap, getShortestPaths } from 'xstate/graph';

/**
 * Model-based coverage: explore a machine's reachable states with xstate/graph, then replay, on
 * a real actor, the shortest path to every source state followed by each edge out of it, and
 * record which transition definitions the actor actually took (from `@xstate.microstep`).
 */

export interface CoverageOptions {
  machine: AnyStateMachine;
  input: unknown;
  events: (snapshot: any) => AnyEventObject[];
  serializeState: (snapshot: any) => string;
}

export interface CoverageResult {
  all: Map<AnyTransitionDefinition, string>;
  covered: Set<AnyTransitionDefinition>;
  missing: string[];
  edges: number;
  states: number;
}

const describeTransition = (t: AnyTransitionDefinition) => {
  const guard = t.guard ? `[${typeof t.guard === 'string' ? t.guard : typeof t.guard === 'object' ? (t.guard as { type: string }).type : 'guard'}]` : '';
  const targets = t.target?.map((n: AnyStateNode) => n.id).join(',') ?? '(self)';
  return `${t.source.id} --${t.eventType || 'always'}${guard}--> ${targets}`;
};

/** Every transition definition of a machine, guarded alternatives counted one by one. */
export function allTransitions(machine: AnyStateMachine): Map<AnyTransitionDefinition, string> {
  const all = new Map<AnyTransitionDefinition, string>();
  const visit = (node: AnyStateNode) => {
    for (const list of node.transitions.values()) for (const t of list) all.set(t, describeTransition(t));
    for (const t of node.always ?? []) all.set(t, describeTransition(t));
    for (const child of Object.values(node.states) as AnyStateNode[]) visit(child);
  };
  visit(machine.root);
  return all;
}

/** Send events one by one to a fresh actor and return the transitions it took. */
export function replay(logic: AnyActorLogic, input: unknown, events: AnyEventObject[]) {
  const taken: AnyTransitionDefinition[] = [];
  const actor = createActor(logic, {
    input,
    inspect: (e) => {
      // Runs inside createActor: compare ids, not the `actor` variable (not yet assigned).
      if (e.type === '@xstate.microstep' && e.actorRef.sessionId === e.rootId) taken.push(...e._transitions);
    },
  });
  actor.start();
  for (const event of events) actor.send(event);
  const snapshot = actor.getSnapshot();
  actor.stop();
  return { taken, snapshot };
}

export function coverTransitions(options: CoverageOptions): CoverageResult {
  const { machine, input, events, serializeState } = options;
  const traversal = { input, events, serializeState: (s: any) => serializeState(s) };
  const adjacency = getAdjacencyMap(machine, traversal);
  const paths = new Map<string, AnyEventObject[]>();
  for (const path of getShortestPaths(machine, traversal)) {
    paths.set(
      serializeState(path.state),
      path.steps.map((s) => s.event as AnyEventObject).filter((e) => e.type !== 'xstate.init'),
    );
  }
  const all = allTransitions(machine);
  const covered = new Set<AnyTransitionDefinition>();
  let edges = 0;
  for (const [key, { transitions }] of Object.entries(adjacency)) {
    const prefix = paths.get(key);
    if (!prefix) throw new Error(`no shortest path to reachable state ${key}`);
    for (const { event } of Object.values(transitions) as Array<{ event: unknown }>) {
      edges += 1;
      for (const t of replay(machine, input, [...prefix, event as AnyEventObject]).taken) covered.add(t);
    }
  }
  const missing = [...all].filter(([t]) => !covered.has(t)).map(([, label]) => label);
  return { all, covered, missing, edges, states: Object.keys(adjacency).length };
}
