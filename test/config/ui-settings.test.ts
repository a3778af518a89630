import { afterEach, describe, expect, it } from 'vitest';
import { startConfiguredUi, type PluginUi } from '../../src/ui/plugin-ui.js';
import { uiSettings } from '../../src/config/ui-settings.js';
import { UiError } from '../../src/config/ui-error.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { request } from '../ui/http-client.js';

describe('the ui option and ORCA_UI', () => {
  it('should be off unless opted in, the environment winning over the option', () => {
    expect(uiSettings(undefined, {})).toBeNull();
    expect(uiSettings(false, {})).toBeNull();
    expect(uiSettings(true, {})).toEqual({ port: 0 });
    expect(uiSettings({ port: 4800 }, {})).toEqual({ port: 4800 });
    expect(uiSettings(undefined, { ORCA_UI: '1' })).toEqual({ port: 0 });
    expect(uiSettings(true, { ORCA_UI: '0' })).toBeNull();
    expect(uiSettings({ port: 4800 }, { ORCA_UI_PORT: '4801' })).toEqual({ port: 4801 });
  });

  it('should refuse malformed settings, saying what was expected and little of what was given', () => {
    expect(() => uiSettings(undefined, { ORCA_UI: 'yes' })).toThrow(new UiError('Expected ORCA_UI to be 1 or 0, got "yes".'));
    expect(() => uiSettings(true, { ORCA_UI_PORT: '99999' })).toThrow(/^Expected ORCA_UI_PORT to be a port number from 0 to 65535, got "99999"\.$/);
    expect(() => uiSettings(true, { ORCA_UI_PORT: 'p'.repeat(500) })).toThrow(/^Expected ORCA_UI_PORT .*got "p{100}"\.$/);
  });
});

describe('the plan viewer in the plugin', () => {
  let ui: PluginUi | null = null;
  afterEach(async () => {
    await ui?.stop();
    ui = null;
  });

  it('should log and toast the URL when opted in, and run without it on a bad setting', async () => {
    const logs: string[] = [];
    const toasts: string[] = [];
    const sinks = { log: (level: string, message: string) => void logs.push(`${level}: ${message}`), toast: (message: string) => void toasts.push(message), rewind: { store: PlanStore.forProject(process.cwd()), repo: null, include: [] } };
    ui = await startConfiguredUi(undefined, process.cwd(), sinks, { ORCA_UI: '1' });
    expect(ui?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    expect(logs).toEqual([`info: Orca plan viewer: open ${ui!.url}`]);
    expect(toasts).toEqual([`Plan viewer: ${ui!.url}`]);
    expect((await request(ui!.url)).status).toBe(200);

    const busy = new URL(ui!.url).port;
    expect(await startConfiguredUi({ port: Number(busy) }, process.cwd(), sinks, {})).toBeNull();
    expect(logs.at(-1)).toBe(`warn: Could not start the plan viewer on 127.0.0.1:${busy} (EADDRINUSE); choose another port (0 = any free port). Orca runs without the plan viewer.`);
    expect(await startConfiguredUi(true, process.cwd(), sinks, { ORCA_UI: 'maybe' })).toBeNull();
    expect(logs.at(-1)).toBe('warn: Expected ORCA_UI to be 1 or 0, got "maybe". Orca runs without the plan viewer.');
    expect(toasts).toHaveLength(1);
  });
});
