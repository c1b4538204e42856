// What the firewall costs a coding agent's turn. Claude Code resends its 24 tool definitions (the
// request captured in test/fixtures/messages) and its whole history every turn; the history here is
// this repository's own source, 4 KB per message, as an agent that reads files accumulates it. Each
// turn adds two messages. The firewall remembers definitions and long message texts it found nothing
// in (decision 0012), so a turn should cost what its new messages cost, not what the history does.
//
//   npm run bench:agent-turns
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFirewall } from '../src/firewall/firewall.js';
import { upstreamPrompt } from '../src/gateway/chatFirewall.js';
import type { ChatMessage, UpstreamChatRequest } from '../src/gateway/providers/types.js';
import { fromRoot } from '../src/paths.js';

const TURNS = 20;
const MESSAGE_CHARS = 4000;

const captured = JSON.parse(readFileSync(fromRoot('test/fixtures/messages/claude-code-2.1.197-tool-round-trip.json'), 'utf8')) as {
  tools: { name: string; description?: string; input_schema: Record<string, unknown> }[];
};
const tools: NonNullable<UpstreamChatRequest['tools']> = captured.tools.map((t) => ({
  type: 'function',
  function: { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), parameters: t.input_schema },
}));
const source = ['src/gateway/chat.ts', 'src/memory/retrieval.ts', 'src/doors/responses/stream.ts', 'src/limits/gate.ts']
  .map((file) => readFileSync(fromRoot(join(file)), 'utf8'))
  .join('\n');

function piece(i: number): string {
  const at = (i * 2_917) % (source.length - MESSAGE_CHARS);
  return source.slice(at, at + MESSAGE_CHARS);
}

async function turnMs(messages: ChatMessage[]): Promise<number> {
  const started = performance.now();
  await upstreamPrompt(createFirewall(), { messages, tools }, { maxChars: 4 << 20 });
  return performance.now() - started;
}

async function main(): Promise<void> {
  console.log(`Polder firewall on an agent's turns: ${tools.length} tool definitions, history grows by 2 messages of ${MESSAGE_CHARS} chars a turn`);
  console.log(`machine: Node ${process.version}, ${new Date().toISOString()}\n`);
  console.log('turn  history chars  ms (first time seen)  ms (the same turn again)');
  const history: ChatMessage[] = [];
  let total = 0;
  for (let turn = 1; turn <= TURNS; turn++) {
    history.push({ role: 'user', content: piece(2 * turn) }, { role: 'assistant', content: piece(2 * turn + 1) });
    const first = await turnMs(history);
    const again = await turnMs(history);
    total += first;
    if (turn === 1 || turn % 5 === 0) {
      const chars = history.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0);
      console.log(`${String(turn).padStart(4)}  ${String(chars).padStart(13)}  ${first.toFixed(1).padStart(20)}  ${again.toFixed(1).padStart(24)}`);
    }
  }
  const history2 = history.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0);
  const cold = await (async () => {
    // What every turn would cost if nothing were remembered: the whole history read at once.
    const firewall = createFirewall();
    const started = performance.now();
    for (const m of history) await firewall.mask(String(m.content));
    return performance.now() - started;
  })();
  console.log(`\n${TURNS} turns: ${total.toFixed(0)} ms of firewall in all; reading the last turn's ${history2} chars of history afresh takes ${cold.toFixed(0)} ms`);
}

await main();
