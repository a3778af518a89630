// The npm registry reachable here does not serve every platform build of opencode-ai and
// msgpackr-extract, so `npm install` leaves them out of package-lock.json and `npm ci` then
// refuses the lock (npm/cli#9846). Record each missing optional platform package as a stub
// entry with its os/cpu/libc, which npm skips on other platforms. Run after `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const platform = (name) => {
  const os = /darwin/.test(name) ? 'darwin' : /win32|windows/.test(name) ? 'win32' : 'linux';
  const cpu = /arm64/.test(name) ? 'arm64' : /-arm$/.test(name) ? 'arm' : 'x64';
  return { os: [os], cpu: [cpu], ...(/musl/.test(name) ? { libc: ['musl'] } : {}) };
};
/** Where npm looks for `name` from the package at `path`: its own node_modules, then each parent's, up to the root's. */
const lookups = (path, name) => {
  const keys = [];
  for (let at = path; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/node_modules/')))) {
    keys.push(`${at ? `${at}/` : ''}node_modules/${name}`);
    if (!at) return keys;
  }
};
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const keys = lookups(path, name);
    const found = keys.find((key) => lock.packages[key]);
    // A range (^3.0.4) is taken as met by what is there, as before; an exact version (opencode's) must match.
    if (found && (!/^\d+\.\d+\.\d+$/.test(version) || lock.packages[found].version === version)) continue;
    // Nothing of that name on the way up: at the top, as npm hoists it. Another version in the way (a second
    // opencode-ai under an alias, such as opencode-ai-oldest): beside the package that wants it.
    const key = found ? keys[0] : keys.at(-1);
    if (lock.packages[key]) {
      console.log(`no stub for ${name}@${version} (optional dependency of ${path || 'the root'}): ${key} is ${lock.packages[key].version}`);
      continue;
    }
    lock.packages[key] = { version, optional: true, ...platform(name) };
    added += 1;
    console.log(`stub ${key}@${version} (optional dependency of ${path || 'the root'})`);
  }
}
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`${added} stub(s) added`);
