// Agents that are not Orca's carry nothing of Orca, on the real opencode binary: the user's
// build, plan, general and own agents are offered exactly the tools they have without the
// plugin, and no Orca text reaches their requests. Two servers on one scripted model: one with
// the built plugin, one without.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWN_TOOLS } from '../../src/agents/index.js';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { startScriptedModel, text, type RecordedRequest, type ScriptedModel } from '../support/scripted-model.js';
import { builtPluginUrl } from './team.js';

/** The user's opencode.json: a global rule, rules on a built-in, and two agents of their own. */
const USER_CONFIG = {
  permission: { bash: 'ask' },
  agent: {
    plan: { permission: { webfetch: 'deny' } },
    helper: { mode: 'primary', description: 'My own helper', prompt: 'You are my helper.', permission: { '*': 'allow', edit: 'ask' } },
    // Gives one of Orca's tools to a user's agent on purpose (docs/agents.md).
    lookup: { mode: 'subagent', description: 'Looks up plans', prompt: 'You look up plans.', permission: { orca_list_plans: 'allow' } },
  },
};

const FOREIGN = ['build', 'plan', 'general', 'explore', 'helper'] as const;

/** Text only Orca puts into a request: its tool names, its agents' marker and role prompts. */
const ORCA_TEXT = [...OWN_TOOLS, '<!-- orca-agent', 'Orca'];

type Offered = { tools: string[]; toolsJson: string; body: string; system: string };

describe("Orca's tools and text stay out of agents that are not Orca's", () => {
  let model: ScriptedModel;
  let withOrca: OpencodeServer;
  let without: OpencodeServer;
  reportOnFailure(() => ({ server: withOrca, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond: () => text('ok') });
    without = await startOpencode({ server: 'shared', modelUrl: model.url, config: USER_CONFIG });
    withOrca = await startOpencode({ server: 'shared', modelUrl: model.url, plugins: [builtPluginUrl], config: USER_CONFIG });
  }, 90_000);

  afterAll(async () => {
    await withOrca?.stop();
    await without?.stop();
    await model?.close();
  });

  /** Prompts `agent` once on `server` and returns the model request it caused. */
  async function offered(server: OpencodeServer, agent: string): Promise<Offered> {
    const session = await server.client.session.create({ title: `tools of ${agent}` }, { throwOnError: true });
    const before = model.chatRequests().length;
    await server.client.session.prompt({ sessionID: session.data.id, agent, parts: [{ type: 'text', text: 'hi' }] }, { throwOnError: true });
    const req: RecordedRequest | undefined = model.chatRequests().slice(before).at(-1);
    if (!req) throw new Error(`Expected a model request for agent ${agent}`);
    // The project directory differs between the two servers; it is the only expected difference.
    const neutral = (s: string) => s.replaceAll(server.projectDir, '<project>').replaceAll(server.homeDir, '<home>');
    const toolsJson = neutral(JSON.stringify(req.body.tools ?? []));
    return { tools: [...req.tools].sort(), toolsJson, body: neutral(JSON.stringify(req.body)), system: neutral(req.system) };
  }

  it.each(FOREIGN)('offers %s the same tools as without the plugin, and no Orca text', async (agent) => {
    const plain = await offered(without, agent);
    const orca = await offered(withOrca, agent);
    expect(orca.tools).toEqual(plain.tools);
    expect(orca.tools.filter((t) => OWN_TOOLS.includes(t))).toEqual([]);
    expect(ORCA_TEXT.filter((s) => orca.body.includes(s))).toEqual([]);
    // Byte for byte: the tools (descriptions included: the task tool lists no Orca agent), the system prompt, the whole request.
    expect(orca.toolsJson.length - plain.toolsJson.length).toBe(0);
    expect(orca.toolsJson).toBe(plain.toolsJson);
    expect(orca.system).toBe(plain.system);
    expect(orca.body).toBe(plain.body);
  }, 60_000);

  it('changes nothing of those agents but their permission (GET /agent)', async () => {
    const agents = async (server: OpencodeServer) => {
      const list = (await (await server.fetch('/agent')).json()) as { name: string; permission?: unknown }[];
      return FOREIGN.map((name) => {
        const { permission: _permission, ...rest } = list.find((a) => a.name === name) ?? { name };
        // A config entry makes OpenCode set its unset fields to undefined (sent as null): the same as absent.
        return JSON.parse(JSON.stringify(rest).replaceAll(server.projectDir, '<project>'), (_key, value) => (value === null ? undefined : value));
      });
    };
    expect(await agents(withOrca)).toEqual(await agents(without));
  }, 60_000);

  it('gives a user agent the one Orca tool its own permission names', async () => {
    const plain = await offered(without, 'lookup');
    const orca = await offered(withOrca, 'lookup');
    expect(orca.tools).toEqual([...plain.tools, 'orca_list_plans'].sort());
  }, 60_000);

  it("still offers Orca's own agents their tools", async () => {
    const orca = await offered(withOrca, 'orca');
    expect(orca.tools).toEqual(['orca_ask_planner', 'orca_describe_plan', 'orca_list_plans']);
    const planner = await offered(withOrca, 'planner');
    expect(planner.tools).toEqual(expect.arrayContaining(['orca_ask_specialist', 'orca_list_plans', 'orca_describe_plan']));
    // The agenda's one tool, the planner's by default.
    expect(planner.tools.filter((tool) => tool.startsWith('agenda'))).toEqual(['agenda']);
  }, 60_000);
});
