import type { OutputProtocol } from './output-protocol.js';

/** Asks the model, in the same session, to resend its answer in the expected shape. */
export function correctionPrompt(reason: string, shape: string, protocol: OutputProtocol = 'text'): string {
  const how =
    protocol === 'structured'
      ? 'Send your answer again: call the StructuredOutput tool once with exactly one object.'
      : 'Send your answer again as exactly one JSON object: reply with the JSON object alone, without prose around it.';
  return [
    `Your previous reply could not be used: ${reason}`,
    how,
    'It must have one of these shapes ("?" marks an optional field):',
    shape,
  ].join('\n');
}
