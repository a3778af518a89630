import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel, type Point } from '@dagrejs/dagre';

/**
 * The step graph with its layout computed here (dagre, left to right), so the page only draws:
 * node boxes with their top-left corner and size, edges as polylines from a dependency to its step.
 */

export interface GraphStep {
  id: string;
  agent: string;
  status: string;
  depends_on: readonly string[];
  attempts?: number;
  /** "review 2/3" for a reviewed step whose reviewer has run. */
  review?: string;
  /** Where the step's own statechart is while the step is active, e.g. "review.reviewing". */
  phase?: string;
  /** An undo took what it landed back out of the user's tree. */
  taken_back?: boolean;
}

export interface GraphNode extends Omit<GraphStep, 'depends_on'> {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  points: Array<{ x: number; y: number }>;
}

export interface GraphView {
  width: number;
  height: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export const NODE_WIDTH = 184;
export const NODE_HEIGHT = 68;
type LaidOutGraph = {
  setGraph(label: GraphLabel): void;
  setDefaultEdgeLabel(make: () => EdgeLabel): void;
  setNode(id: string, label: NodeLabel): void;
  setEdge(from: string, to: string): void;
  node(id: string): unknown;
  edges(): Array<{ v: string; w: string }>;
  edge(e: { v: string; w: string }): unknown;
  graph(): unknown;
};

const round = (n: number) => Math.round(n * 10) / 10;

export function graphView(steps: readonly GraphStep[]): GraphView {
  if (steps.length === 0) return { width: 0, height: 0, nodes: [], edges: [] };
  // The package's graph type resolves to any under NodeNext: name the shapes read back here.
  const g: LaidOutGraph = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 28, ranksep: 64, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(steps.map((s) => s.id));
  for (const step of steps) g.setNode(step.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  // A dependency on a step that is not in the plan has no box to start from: the step view lists it.
  for (const step of steps) for (const dep of step.depends_on) if (ids.has(dep) && dep !== step.id) g.setEdge(dep, step.id);
  dagre.layout(g);

  const nodes = steps.map(({ depends_on: _deps, ...step }) => {
    const box = g.node(step.id) as Point;
    return { ...step, x: round(box.x - NODE_WIDTH / 2), y: round(box.y - NODE_HEIGHT / 2), width: NODE_WIDTH, height: NODE_HEIGHT };
  });
  const edges = g.edges().map((e: { v: string; w: string }) => ({
    from: e.v,
    to: e.w,
    points: ((g.edge(e) as EdgeLabel).points ?? []).map((p: Point) => ({ x: round(p.x), y: round(p.y) })),
  }));
  const { width = 0, height = 0 } = g.graph() as GraphLabel;
  return { width: round(width), height: round(height), nodes, edges };
}
