import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderOptionsSchema } from '../src/cli/options-schema.js';

// `npx tsx scripts/orca-schema.ts`: regenerate schema/orca.schema.json from the zod plugin options
// (test/cli/options-schema.test.ts fails when it is stale).
const dir = join(import.meta.dirname, '..', 'schema');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'orca.schema.json'), renderOptionsSchema());
console.log('wrote schema/orca.schema.json');
