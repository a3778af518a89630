import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import { agendaItemMachine } from '../machines/agenda-item.machine.js';
import { planMachine } from '../machines/plan.machine.js';
import { rewindMachine } from '../machines/rewind.machine.js';
import { stepMachine } from '../machines/step.machine.js';

/** The machines drawn into statecharts/: JSON from machine.toJSON(), mermaid from the state nodes. */
export const MACHINES: Record<string, AnyStateMachine> = { plan: planMachine, step: stepMachine, 'agenda-item': agendaItemMachine, rewind: rewindMachine };

const eventLabel = (t: AnyTransitionDefinition) => {
  const type = t.eventType;
  if (!type) return 'always';
  const invoke = /^xstate\.(done|error)\.actor\.(.+)$/.exec(type);
  return invoke ? `${invoke[1]} ${invoke[2]}` : type;
};

const guardLabel = (t: AnyTransitionDefinition) => {
  const guard = t.guard as { type?: string } | string | undefined;
  if (!guard) return '';
  return ` [${typeof guard === 'string' ? guard : (guard.type ?? 'guard')}]`;
};

/** Mermaid stateDiagram-v2 with every transition labelled "event [guard]" and each tagged state's tags (gate.*: a human decides there). */
export function toMermaid(machine: AnyStateMachine): string {
  const all: AnyStateNode[] = [];
  const collect = (n: AnyStateNode) => {
    all.push(n);
    Object.values(n.states as Record<string, AnyStateNode>).forEach(collect);
  };
  collect(machine.root);
  const keyCount = new Map<string, number>();
  for (const n of all) keyCount.set(n.key, (keyCount.get(n.key) ?? 0) + 1);
  const name = (n: AnyStateNode) => (keyCount.get(n.key) === 1 ? n.key : n.path.join('_'));

  const lines = ['stateDiagram-v2'];
  const render = (node: AnyStateNode, indent: string) => {
    const children = Object.values(node.states as Record<string, AnyStateNode>);
    if (node.initial?.target?.[0]) lines.push(`${indent}[*] --> ${name(node.initial.target[0])}`);
    for (const child of children) {
      if (Object.keys(child.states).length > 0) {
        lines.push(`${indent}state ${name(child)} {`);
        render(child, `${indent}  `);
        lines.push(`${indent}}`);
      }
      if (child.type === 'final') lines.push(`${indent}${name(child)} --> [*]`);
      if (child.tags.length > 0) lines.push(`${indent}${name(child)} : ${child.tags.join(', ')}`);
    }
    for (const child of children) {
      const transitions = [...[...child.transitions.values()].flat(), ...(child.always ?? [])];
      for (const t of transitions) {
        const targets: readonly AnyStateNode[] = t.target?.length ? t.target : [child];
        for (const target of targets) lines.push(`${indent}${name(child)} --> ${name(target)} : ${eventLabel(t)}${guardLabel(t)}`);
      }
    }
  };
  render(machine.root, '  ');
  return `${lines.join('\n')}\n`;
}

export const toJson = (machine: AnyStateMachine) => `${JSON.stringify(machine.toJSON(), null, 2)}\n`;

/** statecharts/<machine>.json and .mmd, keyed by file name. */
export function renderStatecharts(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [id, machine] of Object.entries(MACHINES)) {
    files[`${id}.json`] = toJson(machine);
    files[`${id}.mmd`] = toMermaid(machine);
  }
  return files;
}
