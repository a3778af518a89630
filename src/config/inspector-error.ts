import { OrcaError } from '../errors.js';

/**
 * The inspector could not start, or a plan could not be replayed into it. The message says what to do.
 * It lives beside the `inspect` option (inspect-settings.ts throws it for a bad ORCA_INSPECT or
 * ORCA_INSPECT_PORT) so that settings never import the inspector.
 */
export class InspectorError extends OrcaError {
  override name = 'InspectorError';
}
