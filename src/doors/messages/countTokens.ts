import { DEFAULT_FIREWALL_MAX_CHARS } from '../../config.js';
import { createFirewall } from '../../firewall/index.js';
import { validationFailed } from '../../errors.js';
import type { Catalog } from '../../gateway/catalog.js';
import { upstreamPrompt } from '../../gateway/chatFirewall.js';
import { checkChatRules, NO_MODEL } from '../../gateway/chatRequest.js';
import { chainOf, checkModelChain } from '../../gateway/routing.js';
import type { ChatCompletionRequest, MessagesCountTokensRequest } from '../../generated/openapi.js';
import type { Principal } from '../../tenancy/store.js';
import { countPromptTokensPaced } from '../../gateway/tokens.js';
import { countRequestOf, fieldsOf } from './request.js';

/**
 * The input tokens of a Messages request as it would leave: translated, then masked when the
 * firewall is on (placeholders are not the length of what they hide). No provider is asked and
 * nothing is billed; the figure is the gateway's tokenizer's, the one it bills by when a provider
 * reports no usage.
 */
export async function countInputTokens(
  principal: Principal,
  body: MessagesCountTokensRequest,
  catalog: Catalog,
  firewallMaxChars = DEFAULT_FIREWALL_MAX_CHARS,
): Promise<number> {
  // Counted for a model, as Anthropic's count_tokens is: one the request could not be sent to is a 422 as there.
  if (body.model === undefined && body.models === undefined) throw validationFailed({ model: [NO_MODEL] });
  checkModelChain(catalog, { ...chainOf(body), type: 'chat', settings: principal.settings });
  const request = countRequestOf(body);
  // What the chat rules refuse of the request (a tool_result no tool_use asked for, an image of no
  // image type) is refused here too: counted, it was a 200 for a request that /v1/messages refuses.
  checkChatRules({ model: body.model, models: body.models, ...request } as ChatCompletionRequest, fieldsOf(body));
  const firewallOn = body.firewall ?? principal.settings.firewallDefault;
  const firewall = firewallOn ? createFirewall({ language: body.firewall_language ?? principal.settings.firewallLanguage }) : undefined;
  const { messages, tools } = await upstreamPrompt(firewall, request, { maxChars: firewallMaxChars });
  return countPromptTokensPaced({ messages, tools });
}
