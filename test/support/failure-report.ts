// When an e2e test fails, the assertion alone rarely says why: print the server log tail and
// what the scripted model was asked, so the failure explains itself in CI output.
import { beforeEach } from 'vitest';
import type { OpencodeServer } from './opencode-server.js';
import type { ScriptedModel } from './scripted-model.js';

const LOG_TAIL_LINES = 150;

/** Call inside a `describe`: every failing test there prints the server log and model requests. */
export function reportOnFailure(sources: () => { server?: OpencodeServer; model?: ScriptedModel }): void {
  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      const { server, model } = sources();
      if (server) console.error(`--- opencode log (last ${LOG_TAIL_LINES} lines) ---\n${logTail(server.logs())}`);
      if (model) console.error(`--- scripted model requests ---\n${describeRequests(model)}`);
    });
  });
}

export function logTail(log: string, lines = LOG_TAIL_LINES): string {
  return log.split('\n').slice(-lines).join('\n');
}

/** One line per request: kind, first system line, last message role, last user text, errors. */
export function describeRequests(model: ScriptedModel): string {
  return model.requests
    .map((req, i) => {
      const last = req.messages[req.messages.length - 1]?.role ?? '-';
      const system = req.system.split('\n')[0]?.slice(0, 60) ?? '';
      const flags = [req.error ? `error: ${req.error}` : '', req.aborted ? 'aborted' : ''].filter(Boolean).join(', ');
      return `#${i} ${req.kind} [${system}] last=${last} user=${JSON.stringify(req.lastUser.slice(0, 80))} tools=${req.tools.length}${flags ? ` (${flags})` : ''}`;
    })
    .join('\n') || '(none)';
}
