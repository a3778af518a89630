import { measureManyPlans } from './many-plans.js';
import { layeredDag } from './plans.js';
import { orcaE2ePlan } from './plans.js';
const r = await measureManyPlans(orcaE2ePlan(), Number(process.argv[2] ?? 10000));
console.log({ ...r });
