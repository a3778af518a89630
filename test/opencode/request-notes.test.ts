import { describe, expect, it } from 'vitest';
import { createRequestNotes } from '../../src/opencode/request-notes.js';
import type { TranscriptMessage } from '../../src/opencode/tool-failures.js';

const transcript = (sessionID: string): TranscriptMessage[] => [
  { info: { id: 'msg_1', role: 'user', sessionID }, parts: [{ type: 'text', text: 'plan it' }] },
  { info: { id: 'msg_2', role: 'assistant', sessionID }, parts: [{ type: 'tool', tool: 'read', state: { status: 'completed' } }] },
];

describe('request notes', () => {
  it("should add a session's note to each of its later requests after its first message, as a user message of that request only", () => {
    const notes = createRequestNotes();
    const first = transcript('ses_planner');
    notes.beforeModelRequest(first);
    expect(first).toHaveLength(2);
    notes.set('ses_planner', '# Checks that fail before this plan');
    for (let i = 0; i < 2; i++) {
      const messages = transcript('ses_planner');
      notes.beforeModelRequest(messages);
      expect(messages).toHaveLength(3);
      expect(messages[1]).toMatchObject({ info: { role: 'user', sessionID: 'ses_planner' }, parts: [{ type: 'text', text: '# Checks that fail before this plan', synthetic: true }] });
      expect(messages.map((m) => m.info.role)).toEqual(['user', 'user', 'assistant']);
    }
    const other = transcript('ses_other');
    notes.beforeModelRequest(other);
    expect(other).toHaveLength(2);
    notes.delete('ses_planner');
    const after = transcript('ses_planner');
    notes.beforeModelRequest(after);
    expect(after).toHaveLength(2);
  });
});
