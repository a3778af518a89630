/** The inspector could not start, or a plan could not be replayed into it. The message says what to do. */
export class InspectorError extends Error {
  override name = 'InspectorError';
}
