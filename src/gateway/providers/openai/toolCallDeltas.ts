// Tool calls in a provider's stream, put in the shape every consumer (the chat stream, the
// accumulator that replays and traces it, the Messages and Responses doors) reads: positions 0, 1, 2…
// in the order the calls began, each call's first delta carrying its id, type and name, later
// deltas only arguments. OpenAI-compatible servers stray from OpenAI's own shape in ways agents met:
// - numbering that starts past 0 (proxies that number by content block: a call after a text block
//   is index 1), which left a hole the accumulator fell into (the answer failed after its text);
// - no id at all, which came out as "" and made the agent's next turn refer to a call "" twice;
// - the name in every delta (concatenated: "BashBash") or only in a later one (a Messages door
//   block opened with name "");
// - several calls all at index 0, told apart by their ids;
// - finish_reason "stop" after tool calls (Anthropic's agents loop on stop_reason "tool_use").
import { randomBytes } from 'node:crypto';
import type { UpstreamChunk, UpstreamToolCallDelta } from '../types.js';

/** An id for a call the provider sent without one: unique, so a later turn's calls never collide with it. */
export function madeUpToolCallId(): string {
  return `call_${randomBytes(12).toString('base64url')}`;
}

interface CallState {
  position: number;
  id: string | undefined;
  name: string | undefined;
  /** Arguments received before the name: held, so that the call opens with its name. */
  held: string;
  opened: boolean;
}

interface ChoiceState {
  /** By the provider's index: the call it is on now. */
  byIndex: Map<number, CallState>;
  count: number;
  hadCalls: boolean;
}

export class ToolCallDeltas {
  private readonly choices = new Map<number, ChoiceState>();

  /** Rewrites the chunk's tool-call deltas in place (see the module comment). */
  normalize(chunk: UpstreamChunk): void {
    for (const choice of chunk.choices) {
      let state = this.choices.get(choice.index);
      if (choice.delta.tool_calls !== undefined) {
        state ??= this.newChoice(choice.index);
        const out: UpstreamToolCallDelta[] = [];
        for (const delta of choice.delta.tool_calls) this.take(state, delta, out);
        if (out.length > 0) choice.delta.tool_calls = out;
        else delete choice.delta.tool_calls;
      }
      if (choice.finish_reason != null && state !== undefined) {
        const unopened = this.openRest(state);
        if (unopened.length > 0) choice.delta.tool_calls = [...(choice.delta.tool_calls ?? []), ...unopened];
        if (choice.finish_reason === 'stop' && state.hadCalls) choice.finish_reason = 'tool_calls';
      }
    }
  }

  /** Calls still waiting for their name when the stream ends: opened as they are, in a last chunk. */
  flush(): UpstreamChunk | null {
    const choices: UpstreamChunk['choices'] = [];
    for (const [index, state] of this.choices) {
      const unopened = this.openRest(state);
      if (unopened.length > 0) choices.push({ index, delta: { tool_calls: unopened }, finish_reason: null });
    }
    return choices.length > 0 ? { choices } : null;
  }

  private newChoice(index: number): ChoiceState {
    const state: ChoiceState = { byIndex: new Map(), count: 0, hadCalls: false };
    this.choices.set(index, state);
    return state;
  }

  private take(state: ChoiceState, delta: UpstreamToolCallDelta, out: UpstreamToolCallDelta[]): void {
    let call = state.byIndex.get(delta.index);
    const name = delta.function?.name || undefined;
    // A new id at an index whose call is under way: another call (servers that send each at index 0).
    if (call !== undefined && delta.id && call.id && delta.id !== call.id && call.name !== undefined) call = undefined;
    if (call === undefined) {
      call = { position: state.count++, id: delta.id || undefined, name: undefined, held: '', opened: false };
      state.byIndex.set(delta.index, call);
      state.hadCalls = true;
    }
    if (!call.id && delta.id) call.id = delta.id;
    // The first name given is the call's: a repeat is not a second part of it.
    if (call.name === undefined && name !== undefined) call.name = name;
    const args = delta.function?.arguments ?? '';
    if (!call.opened) {
      call.held += args;
      if (call.name !== undefined) out.push(this.open(call));
      return;
    }
    if (args !== '') out.push({ index: call.position, function: { arguments: args } });
  }

  private open(call: CallState): UpstreamToolCallDelta {
    call.opened = true;
    call.id ??= madeUpToolCallId();
    const delta: UpstreamToolCallDelta = { index: call.position, id: call.id, type: 'function', function: { name: call.name ?? '', arguments: call.held } };
    call.held = '';
    return delta;
  }

  private openRest(state: ChoiceState): UpstreamToolCallDelta[] {
    const out: UpstreamToolCallDelta[] = [];
    for (const call of state.byIndex.values()) if (!call.opened) out.push(this.open(call));
    return out.sort((a, b) => a.index - b.index);
  }
}
