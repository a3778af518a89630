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
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    lock.packages[key] = { version, optional: true, ...platform(name) };
    added += 1;
    console.log(`stub ${key}@${version} (optional dependency of ${path || 'the root'})`);
  }
}
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`${added} stub(s) added`);
