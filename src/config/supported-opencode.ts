/**
 * The OpenCode releases Orca supports: from the oldest its e2e core (the flow with its gates, the plan in the
 * conversation) passed on, to the one it is built and tested against. package.json says the same range as
 * `peerDependencies["opencode-ai"]`, and its devDependencies install both ends (`opencode-ai`,
 * `opencode-ai-oldest`): test/config/supported-opencode.test.ts holds the four together, and
 * test/e2e/opencode-versions.e2e.test.ts runs the core flow on both binaries. A version outside the range is
 * a warning (`orca doctor`, the plugin's start-up log), never a refusal.
 */
export const SUPPORTED_OPENCODE = { oldest: '1.18.3', newest: '1.18.33' } as const;

/** The range as npm writes it, package.json's peerDependencies["opencode-ai"]. */
export const SUPPORTED_OPENCODE_RANGE = `>=${SUPPORTED_OPENCODE.oldest} <=${SUPPORTED_OPENCODE.newest}`;

/** The range in words: "1.18.3 … 1.18.33". */
export const SUPPORTED_OPENCODE_TEXT = `${SUPPORTED_OPENCODE.oldest} … ${SUPPORTED_OPENCODE.newest}`;

/** Where a version stands against the range; `unknown` when it is not a version (`opencode --version` said something else). */
export type OpencodeVerdict = 'supported' | 'older' | 'newer' | 'unknown';

type Parsed = { numbers: [number, number, number]; prerelease: boolean };

/** `1.18.20`, `v1.18.20`, `1.19.0-beta.1`, `1.18.3+build`: semver's three numbers and whether it is a pre-release. */
function parse(version: string): Parsed | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.exec(version.trim());
  if (!match) return undefined;
  return { numbers: [Number(match[1]), Number(match[2]), Number(match[3])], prerelease: match[4] !== undefined };
}

/** Negative, zero or positive as `a` comes before, with or after `b` (a pre-release before its release, as semver orders them). */
function compare(a: Parsed, b: Parsed): number {
  for (let i = 0; i < 3; i++) if (a.numbers[i] !== b.numbers[i]) return a.numbers[i]! - b.numbers[i]!;
  return Number(!a.prerelease) - Number(!b.prerelease);
}

export function opencodeVerdict(version: string): OpencodeVerdict {
  const parsed = parse(version);
  if (!parsed) return 'unknown';
  if (compare(parsed, parse(SUPPORTED_OPENCODE.oldest)!) < 0) return 'older';
  if (compare(parsed, parse(SUPPORTED_OPENCODE.newest)!) > 0) return 'newer';
  return 'supported';
}

/**
 * What `orca doctor` and the start-up log say of a version: `supported` false is a warning; `summary` follows
 * "OpenCode <version>"; `advice`, only outside the range, says what it means.
 */
export function opencodeVersionWords(version: string): { supported: boolean; summary: string; advice: string | undefined } {
  const range = `(${SUPPORTED_OPENCODE_TEXT})`;
  switch (opencodeVerdict(version)) {
    case 'supported':
      return { supported: true, summary: `supported ${range}`, advice: undefined };
    case 'older':
      return {
        supported: false,
        summary: `older than the versions Orca supports ${range}`,
        advice: `Orca may not work on it (a warning, not a refusal): update OpenCode to ${SUPPORTED_OPENCODE.oldest} or later, up to ${SUPPORTED_OPENCODE.newest}`,
      };
    case 'newer':
      return {
        supported: false,
        summary: `newer than the versions Orca supports ${range}`,
        advice: `Orca is not tested on it and may not work there (a warning, not a refusal); ${SUPPORTED_OPENCODE.newest} is the newest OpenCode it is tested with`,
      };
    case 'unknown':
      return {
        supported: false,
        summary: `not a version Orca can compare with the ones it supports ${range}`,
        advice: 'Orca cannot tell whether it works there (a warning, not a refusal)',
      };
  }
}
