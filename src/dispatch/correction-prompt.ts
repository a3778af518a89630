/** Asks the model, in the same session, to resend its answer in the expected shape. */
export function correctionPrompt(reason: string, shape: string): string {
  return [
    `Your previous reply could not be used: ${reason}`,
    'Send your answer again as exactly one JSON object: call the structured output tool if you have one, ' +
      'otherwise reply with the JSON object alone, without prose around it.',
    'It must have one of these shapes ("?" marks an optional field):',
    shape,
  ].join('\n');
}
