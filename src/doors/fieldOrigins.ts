import { noFieldErrors, type FieldErrors } from '../errors.js';
import type { ChatMessage } from '../gateway/providers/types.js';

// A door translates its caller's request into a chat request, whose messages are not the caller's
// items one for one (instructions and system come first, calls join the assistant text before
// them, a function output's images follow the tool results). A 422 on the chat request must still
// name the field the caller sent, so each chat message keeps where it came from.

/** Where one chat message came from in the caller's request. */
export interface MessageOrigin {
  /** The caller's field the message stands for: an item, a message, a block, `instructions`. */
  at: string;
  /** The caller's field that became its content, when that is not `at` itself. */
  content?: string;
  /** By chat content part: the caller's field it came from. */
  parts?: string[];
  /** By tool call: the caller's field that became its arguments (what chat's rules check of a call). */
  calls?: string[];
}

/** The origins of the messages of one translation, kept by message as they are built. */
export class MessageOrigins {
  private readonly origins = new Map<ChatMessage, MessageOrigin>();

  set(message: ChatMessage, origin: MessageOrigin): void {
    this.origins.set(message, origin);
  }

  get(message: ChatMessage): MessageOrigin | undefined {
    return this.origins.get(message);
  }

  /**
   * The caller's field a field of the chat request over `messages` came from: `messages.1.content.1`
   * becomes, say, `input.0.content.1`. Fields outside the messages, and of a message without an
   * origin, keep their names.
   */
  fieldOf(messages: readonly ChatMessage[]): (chatField: string) => string {
    const origins = messages.map((message) => this.origins.get(message));
    return (field) => {
      const match = /^messages\.(\d+)(?:\.(content|tool_calls)(?:\.(\d+))?(?=\.|$))?/.exec(field);
      const origin = match ? origins[Number(match[1])] : undefined;
      if (!match || !origin) return field;
      const [, , kind, index] = match;
      if (kind === 'content') return (index !== undefined ? origin.parts?.[Number(index)] : undefined) ?? origin.content ?? origin.at;
      if (kind === 'tool_calls' && index !== undefined) return origin.calls?.[Number(index)] ?? origin.at;
      return origin.at;
    };
  }
}

/** The errors with each field named by `fieldOf` (errors of two fields that name one field join). */
export function renameFields(errors: FieldErrors, fieldOf: (field: string) => string): FieldErrors {
  const renamed = noFieldErrors();
  for (const [field, messages] of Object.entries(errors)) (renamed[fieldOf(field)] ??= []).push(...messages);
  return renamed;
}
