/**
 * A plan of realistic length, as a capable model writes one: ten steps with ~400-character
 * descriptions, files, success criteria, assumptions, risks and verification. Used to check that a
 * human can read all of it before approving.
 */
const TOPICS = [
  ['parser', 'src/parser.ts', 'reads the configuration file'],
  ['cache', 'src/cache.ts', 'keeps the parsed configuration between calls'],
  ['cli', 'src/cli.ts', 'prints the configuration for the user'],
  ['errors', 'src/errors.ts', 'turns failures into messages a user can act on'],
  ['schema', 'src/schema.ts', 'validates the configuration against its schema'],
  ['loader', 'src/loader.ts', 'finds the configuration file upwards from the working directory'],
  ['watch', 'src/watch.ts', 'reloads the configuration when the file changes'],
  ['docs', 'README.md', 'tells users how the configuration is found and validated'],
  ['tests', 'test/config.test.ts', 'covers the whole configuration path end to end'],
  ['release', 'CHANGELOG.md', 'records what changed for the next release'],
  // Only in a revision that adds a step (an 11th) to the 10-step plan.
  ['migrate', 'src/migrate.ts', 'moves configuration files of the old format to the new one'],
] as const;
const AGENTS = ['coder', 'coder', 'coder', 'coder', 'coder', 'coder', 'coder', 'document-writer', 'tester', 'document-writer', 'coder'] as const;

export function longStep(i: number) {
  const [name, file, what] = TOPICS[i]!;
  return {
    id: `${name}-${i + 1}`,
    agent: AGENTS[i]!,
    description:
      `Step ${i + 1} (${name}) rewrites the part of the project that ${what}. Open ${file}, read how it is used by its ` +
      `callers (search for its exports first), then change it so that an empty or missing value is reported with the ` +
      `file name and the line where it was found, instead of failing later with an undefined value. Keep the public ` +
      `function names as they are, add a short comment where the behaviour changed, and run the existing tests for ${name} marker-${i + 1}.`,
    ...(i > 0 ? { depends_on: [`${TOPICS[i - 1]![0]}-${i}`] } : {}),
    files: [file, `test/${name}.test.ts`],
    success: `npm test passes for test/${name}.test.ts and an empty value in ${file} is reported with its file and line (check ${i + 1})`,
  };
}

export function longPlanProposal(steps = 10) {
  return {
    goal:
      'Make configuration errors understandable: every empty or missing value is reported with the file and line where it ' +
      'was found, from the parser to the command line, with tests and documentation, without renaming any public function.',
    steps: Array.from({ length: steps }, (_, i) => longStep(i)),
    assumptions: ['The project uses node --test for its tests and npm test runs them all', 'Public function names are part of the API and must not change'],
    risks: ['Changing error messages may break scripts that parse them: the CHANGELOG says so', 'The watch step touches timers: its tests use fake timers'],
    verification: ['npm test passes', 'An empty value in a sample configuration prints its file and line'],
  };
}
