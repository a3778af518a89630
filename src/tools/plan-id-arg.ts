import { z } from 'zod';
import { PLAN_ID } from '../persistence/plan-id.js';

/** A plan_id argument: checked by the tool wrapper, so a bad one is refused before any file is touched. */
export const planIdArg = z.string().regex(PLAN_ID);

export const PLAN_ID_EXPECTED = 'a plan_id as returned by orca_ask_planner or listed by orca_list_plans ("plan_" followed by 26 ULID characters)';
