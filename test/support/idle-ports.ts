import { idlePlanPorts, type PlanPorts } from '../../src/machines/ports.js';

/** Ports whose calls never settle: the test delivers every invoke outcome itself (or none). */
export const idlePorts: PlanPorts = idlePlanPorts;
