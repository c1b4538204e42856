import { Ajv } from 'ajv';
import { isBlank } from '../blank.js';
import { storableText } from '../db/storable.js';
import type { Firewall } from '../firewall/index.js';
import type { Catalog, ChatModel } from '../gateway/catalog.js';
import { withoutParameters } from '../gateway/chatRequest.js';
import { firstThatAnswers } from '../gateway/fallback.js';
import type { Adapters } from '../gateway/providers/index.js';
import type { UpstreamChatRequest } from '../gateway/providers/types.js';
import { planRoute } from '../gateway/routing.js';
import { answerTokens } from '../gateway/tokens.js';
import type { UsageMeter } from '../metering/usageLines.js';
import type { WorkspaceSettings } from '../tenancy/store.js';

// Fact extraction by the workspace's extraction model, in two asks, as mem0 does it: first the
// atomic facts of the submission, then, for those that resemble facts already held, what to do
// with each (add, update, delete, or nothing). Both answers are JSON constrained by a schema.
// The calls go through the gateway's routing plan, so the workspace policy and the EU rule apply
// exactly as for a chat call: external endpoints only with the organization's acceptance. And as
// in a chat, the personal data in what is sent (the submission, the facts held) is masked, and
// the facts the model answers with are restored before they are stored.

export interface ExtractionModel {
  catalog: Catalog;
  adapters: Adapters;
  modelId: string;
  nonEuAccepted: boolean;
  settings: Pick<WorkspaceSettings, 'allowedProviders' | 'allowedModels'>;
  signal: AbortSignal;
  /** Counts the tokens of every answer, for the extraction's usage. */
  meter: UsageMeter;
  /**
   * Masks every text sent and restores every text answered; one per job, so a value keeps its
   * placeholder across both questions. Undefined sends in clear (the workspace's firewall is off).
   */
  firewall: Firewall | undefined;
}

/** The model answered, but not with what the schema asked for: worth another attempt. */
export class UnusableAnswer extends Error {
  override name = 'UnusableAnswer';
}

export type ReconcileEvent = 'ADD' | 'UPDATE' | 'DELETE' | 'NONE';

export interface Decision {
  event: ReconcileEvent;
  /** The existing fact's id for UPDATE, DELETE and NONE; null for ADD. */
  id: string | null;
  /** The fact's text after the decision (for ADD and UPDATE). */
  text: string;
}

interface FactsAnswer {
  facts: string[];
}

interface ActionsAnswer {
  actions: { event: ReconcileEvent; id: string | null; text: string }[];
}

// The JSON Schemas the model is asked to follow, and that its answer is checked against. Strict
// structured output wants every property required and no others.
const FACTS_FORMAT = {
  type: 'json_schema' as const,
  json_schema: {
    name: 'facts',
    strict: true,
    schema: {
      type: 'object',
      properties: { facts: { type: 'array', items: { type: 'string' } } },
      required: ['facts'],
      additionalProperties: false,
    },
  },
};
const ACTIONS_FORMAT = {
  type: 'json_schema' as const,
  json_schema: {
    name: 'memory_actions',
    strict: true,
    schema: {
      type: 'object',
      properties: {
        actions: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              event: { type: 'string', enum: ['ADD', 'UPDATE', 'DELETE', 'NONE'] },
              id: { type: ['string', 'null'] },
              text: { type: 'string' },
            },
            required: ['event', 'id', 'text'],
            additionalProperties: false,
          },
        },
      },
      required: ['actions'],
      additionalProperties: false,
    },
  },
};

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
const validFacts = ajv.compile<FactsAnswer>(FACTS_FORMAT.json_schema.schema);
const validActions = ajv.compile<ActionsAnswer>(ACTIONS_FORMAT.json_schema.schema);

const PERSONAL_EXTRACTION = `You keep the long-term memory of an assistant about one of its end-users.
Read the user's message and list the facts about the user that are worth remembering in later conversations: who they are, their circumstances, relationships, preferences, plans, and anything they ask to be remembered.
Rules:
- One piece of information per fact, understandable on its own without the message.
- Write each fact in the first person, as the user would state it, in the language of the message.
- Leave out questions, greetings, small talk, requests to the assistant, and anything that is not about the user.
- Do not invent or infer what the message does not say.
- When there is nothing worth remembering, return an empty list.
Answer only with JSON of the form {"facts": ["..."]}.`;

const SHARED_EXTRACTION = `You keep the shared knowledge base of an organisation's assistant.
Read the text and list the facts in it that are worth remembering for later conversations (policies, properties, decisions, how things work).
Rules:
- One piece of information per fact, understandable on its own without the text.
- Write each fact as a plain statement in the language of the text.
- Leave out questions, greetings, small talk and instructions to the assistant.
- Do not invent or infer what the text does not say.
- When there is nothing worth remembering, return an empty list.
Answer only with JSON of the form {"facts": ["..."]}.`;

const RECONCILIATION = `You keep a long-term memory consistent. You get the memories held now, each with an id, and facts newly learned.
Decide for each new fact, comparing it with the memories:
- ADD: it is new information. id null, text the fact.
- UPDATE: it refines, completes or corrects a memory about the same thing. id that memory's id, text the memory rewritten to hold both (the newer information wins).
- DELETE: it shows a memory is no longer true and should be forgotten, and the new fact does not replace it. id that memory's id, text the memory.
- NONE: the memories already say it. id the memory's id, text the memory.
Only use ids from the list. Keep the language of the facts.
Answer only with JSON of the form {"actions": [{"event": "ADD", "id": null, "text": "..."}]}.`;

// Said only when the model will see placeholders: a model that rewrites "[PERSON_1]" as "the
// person" leaves nothing to restore.
const PLACEHOLDERS = `Personal details in the input are replaced by placeholders such as [PERSON_1] or [EMAIL_2]. Keep each placeholder exactly as written wherever its detail belongs in a fact.`;

const masked = (model: ExtractionModel, text: string) => (model.firewall ? model.firewall.mask(text) : text);
const restored = (model: ExtractionModel, text: string) => (model.firewall ? model.firewall.restore(text) : text);

/** The longest fact kept, as the API bounds a fact's content: a longer one is no atomic fact. */
const MAX_FACT_CHARS = 10_000;

/** A fact as the model wrote it, restored and made storable; '' for none, a blank one, or one past MAX_FACT_CHARS. */
function factText(model: ExtractionModel, written: string): string {
  const text = storableText(restored(model, written).trim());
  return text.length > MAX_FACT_CHARS || isBlank(text) ? '' : text;
}

/** Asks the extraction model for JSON of `format`'s schema; throws the routing or chain error. */
async function askForJson(model: ExtractionModel, system: string, user: string, format: typeof FACTS_FORMAT | typeof ACTIONS_FORMAT): Promise<unknown> {
  const instructions = model.firewall && model.firewall.vault.size > 0 ? `${system}\n${PLACEHOLDERS}` : system;
  const plan = planRoute<ChatModel>(model.catalog, model.adapters, {
    chain: [model.modelId],
    chainField: 'model',
    type: 'chat',
    parameters: ['response_format', 'temperature', 'max_tokens'],
    nonEuAccepted: model.nonEuAccepted,
    settings: model.settings,
  });
  const request: UpstreamChatRequest = {
    messages: [
      { role: 'system', content: instructions },
      { role: 'user', content: user },
    ],
    // Extraction should say the same thing every time it reads the same text.
    temperature: 0,
    response_format: format,
  };
  // Capped at the model's answer cap: a model that runs on is not billed (or stored) without end.
  const served = await firstThatAnswers(plan, (candidate) =>
    candidate.adapter.complete(candidate.target, withoutParameters({ ...request, max_tokens: candidate.model.maxOutputTokens }, candidate.dropped), model.signal),
  );
  model.meter.add(served.candidate.model, served.candidate.target.provider.id, answerTokens(served.result, request));
  const content = served.result.choices[0]?.message.content ?? '';
  const json = withoutCodeFence(content);
  try {
    return JSON.parse(json);
  } catch {
    throw new UnusableAnswer(`${served.candidate.model.id} did not answer with JSON`);
  }
}

/**
 * A model that does not take response_format may still wrap its JSON in a code fence. The closing
 * fence is cut without a pattern: `\s*```\s*$` would rescan a run of whitespace from each of its
 * positions, and the answer may hold (echo) anything the user wrote.
 */
function withoutCodeFence(content: string): string {
  const opened = content.replace(/^\s*```(?:json)?\s*/i, '');
  const trimmed = opened.trimEnd();
  return trimmed.endsWith('```') ? trimmed.slice(0, -3).trimEnd() : opened;
}

/** The atomic facts of `content`, as the model states them (trimmed, non-empty, no repeats). */
export async function extractWithModel(model: ExtractionModel, content: string, personal: boolean): Promise<string[]> {
  const answer = await askForJson(model, personal ? PERSONAL_EXTRACTION : SHARED_EXTRACTION, masked(model, content), FACTS_FORMAT);
  if (!validFacts(answer)) throw new UnusableAnswer(`${model.modelId} answered JSON without a list of facts`);
  return [...new Set(answer.facts.map((f) => factText(model, f)).filter((f) => f !== ''))];
}

/**
 * What to do with each new fact given the similar existing ones. The model sees the existing
 * facts under small numbers ("0", "1", …), not their ids: it copies those reliably, and an id it
 * makes up cannot point at a fact it was not shown. A decision naming no shown fact is dropped,
 * except an UPDATE, which becomes an ADD (the information is still new).
 */
export async function reconcileWithModel(
  model: ExtractionModel,
  existing: { id: string; content: string }[],
  candidates: string[],
): Promise<Decision[]> {
  // Each text masked on its own (the JSON around them is ours), with the job's vault: a value the
  // first question replaced keeps its placeholder, so the model can tell two facts about it apart.
  const shown = existing.map((fact, index) => ({ id: String(index), text: masked(model, fact.content) }));
  const user = JSON.stringify({ memories: shown, new_facts: candidates.map((text) => masked(model, text)) });
  const answer = await askForJson(model, RECONCILIATION, user, ACTIONS_FORMAT);
  if (!validActions(answer)) throw new UnusableAnswer(`${model.modelId} answered JSON without a list of actions`);
  const idOf = (shownId: string | null) => (shownId !== null && /^\d+$/.test(shownId) ? existing[Number(shownId)]?.id : undefined);
  return answer.actions.flatMap((action): Decision[] => {
    const text = factText(model, action.text);
    const id = idOf(action.id);
    switch (action.event) {
      case 'ADD':
        return text ? [{ event: 'ADD', id: null, text }] : [];
      case 'UPDATE':
        if (!text) return [];
        return [id ? { event: 'UPDATE', id, text } : { event: 'ADD', id: null, text }];
      case 'DELETE':
        return id ? [{ event: 'DELETE', id, text }] : [];
      case 'NONE':
        return id ? [{ event: 'NONE', id, text }] : [];
    }
  });
}
