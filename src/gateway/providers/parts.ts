import type { ChatMessage } from './types.js';

// Anthropic's document and search_result blocks travel through chat as content parts of their own
// (the Messages door makes them). A native Anthropic provider gets them as they are; a provider
// that knows no such part gets their text, which this is.

type ContentPart = Exclude<ChatMessage['content'], string | null | undefined>[number];

/** The text of a document or search_result part, or undefined for any other part. */
export function anthropicPartText(part: ContentPart): string | undefined {
  if (part.type === 'document' && part.document) {
    const { title, context, source } = part.document;
    const heading = [title, context].filter((line): line is string => typeof line === 'string' && line !== '');
    return heading.length > 0 ? `${heading.join('\n')}\n\n${source.data}` : source.data;
  }
  if (part.type === 'search_result' && part.search_result) {
    const { title, source, content } = part.search_result;
    return `${title}\n${source}\n\n${content.map((block) => block.text).join('\n')}`;
  }
  return undefined;
}

/**
 * `{citations}` as Anthropic configures them on a document or search result, copied with nothing
 * else in it (on text blocks they are not a setting, and are dropped).
 */
export function citationsOf(citations: unknown): { citations?: { enabled: boolean } } {
  const enabled = (citations as { enabled?: unknown } | null | undefined)?.enabled;
  return typeof enabled === 'boolean' ? { citations: { enabled } } : {};
}

/**
 * A document's title, context and citations setting, copied with nothing else in them (each left
 * out when absent or null): the Messages door, the firewall and the native adapter pass the same
 * three along.
 */
export function documentSettingsOf(settings: { title?: unknown; context?: unknown; citations?: unknown }): {
  title?: string;
  context?: string;
  citations?: { enabled: boolean };
} {
  return {
    ...(typeof settings.title === 'string' ? { title: settings.title } : {}),
    ...(typeof settings.context === 'string' ? { context: settings.context } : {}),
    ...citationsOf(settings.citations),
  };
}

/** Whether a part is one of Anthropic's that only a native provider takes as it is. */
export function isAnthropicPart(part: ContentPart): boolean {
  return part.type === 'document' || part.type === 'search_result';
}
