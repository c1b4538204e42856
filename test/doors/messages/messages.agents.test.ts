import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fromRoot } from '../../../src/paths.js';
import { startGatewayFixture, type GatewayFixture } from '../../helpers/gateway.js';

// A real request of Claude Code 2.1.197 (captured from `claude -p … --output-format json` against
// Polder, with its device and session ids zeroed): the second turn of a Read tool round trip,
// 80 KB with 24 tools, adaptive thinking, output_config, context_management, cache_control on
// blocks, a system message inside `messages`, and `?beta=true`.
const CAPTURED = JSON.parse(readFileSync(fromRoot('test/fixtures/messages/claude-code-2.1.197-tool-round-trip.json'), 'utf8')) as Record<string, any>;

describe('/v1/messages with a captured Claude Code request', () => {
  let gw: GatewayFixture;
  before(async () => {
    gw = await startGatewayFixture();
  });
  after(async () => {
    await gw.close();
  });

  it('accepts it as sent and streams the answer in Anthropic’s events', async () => {
    gw.euA.script({ type: 'answer', content: 'Het eigen risico is 385 euro.' });
    const response = await fetch(`${gw.app.baseUrl}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': gw.key,
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27',
        'anthropic-dangerous-direct-browser-access': 'true',
      },
      body: JSON.stringify({ ...CAPTURED, model: 'test/chat-a' }),
    });
    expect(response.status).to.equal(200);
    const text = await response.text();
    const events = [...text.matchAll(/^event: (.*)$/gm)].map((m) => m[1]);
    expect(events[0]).to.equal('message_start');
    expect(events.at(-1)).to.equal('message_stop');
    const said = [...text.matchAll(/^data: (.*)$/gm)]
      .map((m) => JSON.parse(m[1]!) as { type: string; delta?: { type: string; text?: string } })
      .flatMap((data) => (data.type === 'content_block_delta' && data.delta?.type === 'text_delta' ? [data.delta.text] : []))
      .join('');
    expect(said).to.equal('Het eigen risico is 385 euro.');

    const sent = gw.euA.requests[0]!.body;
    expect(sent.tools).to.have.length(CAPTURED.tools.length);
    const messages = sent.messages as { role: string; content: unknown; tool_call_id?: string; tool_calls?: { id: string }[] }[];
    expect(messages[0]!.role).to.equal('system');
    expect(messages.map((m) => m.role)).to.include('system');
    const call = messages.find((m) => m.tool_calls)!;
    expect(call.tool_calls![0]!.id).to.equal('call_read_1');
    const result = messages.find((m) => m.role === 'tool')!;
    expect(result.tool_call_id).to.equal('call_read_1');
    expect(result.content).to.contain('385 euro');
    expect(sent.max_tokens).to.be.below(CAPTURED.max_tokens);
    expect(sent.reasoning_effort).to.equal('high');
    expect(JSON.stringify(sent)).not.to.contain('cache_control');
    expect(sent).not.to.have.property('user');
  });
});
