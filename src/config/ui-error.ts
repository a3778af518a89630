import { OrcaError } from '../errors.js';

/**
 * The plan viewer cannot start: a bad setting or a port it cannot listen on. The message says what to change.
 * It lives beside the `ui` option (ui-settings.ts throws it for a bad ORCA_UI or ORCA_UI_PORT) so that
 * settings never import the viewer; the viewer's server throws it for a busy port.
 */
export class UiError extends OrcaError {
  override name = 'UiError';
}
