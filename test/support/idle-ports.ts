import type { PlanPorts } from '../../src/engine/wire.js';

/** Ports whose calls never settle: the test delivers every invoke outcome itself (or none). */
const never = () => new Promise<never>(() => {});
export const idlePorts: PlanPorts = { openPlannerSession: never, consultPlanner: never, openSpecialistSession: never, runSpecialist: never };
