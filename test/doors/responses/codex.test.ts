import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../../../src/paths.js';
import { startGatewayFixture, type GatewayFixture } from '../../helpers/gateway.js';

// A request Codex CLI 0.169.0 really sent (`codex exec`, second turn: after its exec_command call),
// captured at the door with the installation id zeroed: 40 KB, 9 tools of which a `namespace` and
// `web_search` the door does not serve, `developer` messages, items with `id` and `status`,
// `store: false`, `include`, `prompt_cache_key`, `client_metadata`, `reasoning.summary`.
const codexTurn = JSON.parse(readFileSync(join(projectRoot, 'test/fixtures/responses/codex-exec-tool-round-trip.json'), 'utf8')) as Record<string, any>;

describe('a real Codex CLI request through the Responses door', () => {
  let gw: GatewayFixture;
  before(async () => {
    gw = await startGatewayFixture();
  });
  after(async () => {
    await gw.close();
  });

  it('is accepted and answered as a stream that completes, with only its function tools sent on', async () => {
    gw.euA.script({ type: 'answer', content: 'The command printed polder-ok.' });
    const response = await fetch(`${gw.app.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', accept: 'text/event-stream', 'x-request-id': 'codex-turn-2' },
      body: JSON.stringify({ ...codexTurn, model: 'test/chat-a' }),
    });
    expect(response.status).to.equal(200);
    const text = await response.text();
    const events = text.split('\n\n').filter((b) => b.startsWith('event: ')).map((b) => b.split('\n')[0]!.slice('event: '.length));
    expect(events[0]).to.equal('response.created');
    expect(events.at(-1)).to.equal('response.completed');
    const completed = JSON.parse(text.trim().split('\n\n').at(-1)!.split('\n')[1]!.slice('data: '.length)) as Record<string, any>;
    expect(completed.response.output_text).to.equal('The command printed polder-ok.');

    const sent = gw.euA.requests[0]!.body as { messages: { role: string; tool_calls?: unknown[]; tool_call_id?: string }[]; tools: { function: { name: string } }[] };
    expect(sent.tools.map((t) => t.function.name)).to.deep.equal(['exec_command', 'write_stdin', 'request_user_input', 'view_image', 'get_goal', 'create_goal', 'update_goal']);
    expect(sent.messages.map((m) => m.role)).to.deep.equal(['system', 'system', 'user', 'user', 'assistant', 'tool']);
    expect(sent.messages[5]!.tool_call_id).to.equal('call_1');

    const { rows } = await gw.app.db.pool.query<{ notes: string[] }>("select notes from traces where id = 'codex-turn-2'");
    expect(rows[0]!.notes.join('\n')).to.contain('namespace').and.to.contain('web_search');
    // store: false: nothing kept.
    expect((await gw.app.db.pool.query('select 1 from stored_responses')).rowCount).to.equal(0);
  });
});
