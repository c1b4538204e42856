import { expect } from 'chai';
import { ToolCallDeltas } from '../../../../src/gateway/providers/openai/toolCallDeltas.js';
import type { UpstreamChunk } from '../../../../src/gateway/providers/types.js';
import { chatBody, postChat, readSse, startGatewayFixture, type GatewayFixture } from '../../../helpers/gateway.js';

// Tool calls as OpenAI-compatible servers other than OpenAI stream them (QA with Claude Code and
// Codex CLI, 2026-11-27): numbering past 0, no ids, the name in every delta or only a later one,
// "stop" after calls. Each broke an agent.
const sse = (chunks: object[]) => ({
  type: 'raw' as const,
  headers: { 'content-type': 'text/event-stream' },
  body: [...chunks.map((c) => `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'up', ...c })}\n\n`), 'data: [DONE]\n\n'],
});
const delta = (d: object, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
const call = (index: number, fn: object, id?: string) => delta({ tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: fn }] });

/** A text, then a call numbered 1 without an id, whose name comes in its second delta and again in its third; "stop" at the end. */
const STRAY = [
  delta({ role: 'assistant', content: 'Let me check.' }),
  call(1, { arguments: '{"command":' }),
  call(1, { name: 'Bash', arguments: '"ls' }),
  call(1, { name: 'Bash', arguments: ' -la"}' }),
  delta({}, 'stop'),
];

describe('tool calls in a provider stream (toolCallDeltas)', () => {
  describe('ToolCallDeltas', () => {
    const run = (chunks: UpstreamChunk[]) => {
      const deltas = new ToolCallDeltas();
      for (const chunk of chunks) deltas.normalize(chunk);
      const rest = deltas.flush();
      return rest === null ? chunks : [...chunks, rest];
    };
    const calls = (chunks: UpstreamChunk[]) => chunks.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []));

    it('numbers calls from 0 in the order they began, opens each with an id and its name, and says tool_calls for "stop"', () => {
      const out = run(STRAY.map((c) => structuredClone(c) as UpstreamChunk));
      const deltas = calls(out);
      expect(deltas[0]).to.deep.include({ index: 0, type: 'function', function: { name: 'Bash', arguments: '{"command":"ls' } });
      expect(deltas[0]!.id).to.match(/^call_[A-Za-z0-9_-]{16}$/);
      expect(deltas.slice(1)).to.deep.equal([{ index: 0, function: { arguments: ' -la"}' } }]);
      expect(out.at(-1)!.choices[0]!.finish_reason).to.equal('tool_calls');
    });

    it('tells apart calls sent at one index by their ids, and gives each call without an id its own', () => {
      const out = run([
        call(0, { name: 'a', arguments: '{}' }, 'id_a') as UpstreamChunk,
        call(0, { name: 'b', arguments: '{}' }, 'id_b') as UpstreamChunk,
        call(3, { name: 'c', arguments: '{}' }) as UpstreamChunk,
        call(4, { name: 'd', arguments: '{}' }) as UpstreamChunk,
        delta({}, 'tool_calls') as UpstreamChunk,
      ]);
      const deltas = calls(out);
      expect(deltas.map((d) => [d.index, d.function?.name])).to.deep.equal([
        [0, 'a'],
        [1, 'b'],
        [2, 'c'],
        [3, 'd'],
      ]);
      expect(deltas.slice(0, 2).map((d) => d.id)).to.deep.equal(['id_a', 'id_b']);
      expect(new Set(deltas.map((d) => d.id)).size).to.equal(4);
    });

    it('opens a call that never got its name when the choice finishes, with what it held', () => {
      const out = run([call(0, { arguments: '{"a":1}' }) as UpstreamChunk, delta({}, 'tool_calls') as UpstreamChunk]);
      expect(calls(out)).to.have.length(1);
      expect(calls(out)[0]).to.deep.include({ index: 0, type: 'function', function: { name: '', arguments: '{"a":1}' } });
    });
  });

  describe('through the gateway', () => {
    let gw: GatewayFixture;
    before(async () => {
      gw = await startGatewayFixture();
    });
    after(async () => {
      await gw.close();
    });

    it('chat: streams the call at index 0 with its id and name once, and its replay is the same call', async () => {
      gw.euA.script(sse(STRAY));
      const body = chatBody({ stream: true });
      const response = await postChat(gw, body, { 'x-request-id': 'stray-chat' });
      expect(response.status).to.equal(200);
      const chunks = (await readSse(response)).filter((e) => e !== '[DONE]') as Record<string, any>[];
      expect(chunks.some((c) => c.error)).to.equal(false);
      const deltas = chunks.flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
      expect(deltas[0]).to.deep.include({ index: 0, type: 'function' });
      expect(deltas.map((d: any) => d.function.name ?? '').join('')).to.equal('Bash');
      expect(deltas.map((d: any) => d.function.arguments).join('')).to.equal('{"command":"ls -la"}');
      expect(chunks.at(-1)!.choices[0].finish_reason).to.equal('tool_calls');
      const replay = await (await postChat(gw, body, { 'x-request-id': 'stray-chat' })).text();
      expect(replay).to.contain('"name":"Bash"').and.not.to.contain('BashBash');
      expect(replay).to.contain(deltas[0].id);
    });

    it('Messages door: a tool_use block named Bash with a non-empty id, and stop_reason tool_use', async () => {
      gw.euA.script(sse(STRAY));
      const response = await fetch(`${gw.app.baseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'test/chat-a', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'list files' }] }),
      });
      const events = [...(await response.text()).matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Record<string, any>);
      expect(events.some((e) => e.type === 'error')).to.equal(false);
      const block = events.find((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use')!.content_block;
      expect(block.name).to.equal('Bash');
      expect(block.id).to.match(/^\S+$/);
      expect(events.find((e) => e.type === 'message_delta')!.delta.stop_reason).to.equal('tool_use');
    });

    it('a JSON answer with calls and finish_reason "stop", or calls without ids: tool_calls, each with its own id, in chat and the Messages door', async () => {
      const answer = { type: 'answer' as const, toolCalls: [{ id: '', name: 'Read', arguments: '{}' }, { id: '', name: 'Grep', arguments: '{}' }], finishReason: 'stop' };
      gw.euA.script(answer);
      const chat = (await (await postChat(gw, chatBody())).json()) as Record<string, any>;
      expect(chat.choices[0].finish_reason).to.equal('tool_calls');
      const ids = chat.choices[0].message.tool_calls.map((c: any) => c.id);
      expect(ids.every((id: string) => /^call_\S+$/.test(id))).to.equal(true);
      expect(new Set(ids).size).to.equal(2);
      gw.euA.script(answer);
      const message = (await (
        await fetch(`${gw.app.baseUrl}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({ model: 'test/chat-a', max_tokens: 100, messages: [{ role: 'user', content: 'read it' }] }),
        })
      ).json()) as Record<string, any>;
      expect(message.stop_reason).to.equal('tool_use');
      // Ids made up for one turn are not those of the last: an agent's history never holds one twice.
      expect(message.content.map((b: any) => b.id)).not.to.include.members(ids);
    });

    it('Responses door: a function_call named Bash with a call_id', async () => {
      gw.euA.script(sse(STRAY));
      const response = await fetch(`${gw.app.baseUrl}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.key}` },
        body: JSON.stringify({ model: 'test/chat-a', input: 'list files', stream: true }),
      });
      const events = [...(await response.text()).matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Record<string, any>);
      const completed = events.find((e) => e.type === 'response.completed')!.response;
      const fc = completed.output.find((o: any) => o.type === 'function_call');
      expect(fc).to.deep.include({ name: 'Bash', arguments: '{"command":"ls -la"}' });
      expect(fc.call_id).to.match(/^\S+$/);
    });
  });
});
