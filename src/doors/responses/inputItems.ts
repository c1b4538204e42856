import { validationFailed } from '../../errors.js';
import type { InputItem } from './types.js';

// GET /v1/responses/{id}/input_items: what the caller sent as one stored response's `input`, as
// OpenAI lists it: every item with an id and a status, a message's content as parts, paged by item
// id. Items the caller gave an id keep it; the others get one that follows from the response id and
// their place, the same on every read.

export interface InputItemQuery {
  limit?: number;
  order?: 'asc' | 'desc';
  after?: string;
}

export interface InputItemPage {
  object: 'list';
  data: Record<string, unknown>[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

const ID_PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

export function inputItemPage(responseId: string, input: readonly InputItem[], query: InputItemQuery): InputItemPage {
  const listed = input.map((item, index) => listedItem(responseId, item, index));
  if (query.order !== 'asc') listed.reverse();
  let start = 0;
  if (query.after !== undefined) {
    start = listed.findIndex((item) => item.id === query.after) + 1;
    if (start === 0) throw validationFailed({ after: ['is not the id of an input item of this response'] });
  }
  const limit = query.limit ?? 20;
  const data = listed.slice(start, start + limit);
  return {
    object: 'list',
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: start + limit < listed.length,
  };
}

function listedItem(responseId: string, item: InputItem, index: number): Record<string, unknown> {
  const type = typeof item.type === 'string' ? item.type : 'message';
  const id = typeof item.id === 'string' ? item.id : `${ID_PREFIX[type] ?? 'item'}_in_${responseId.slice('resp_'.length, 'resp_'.length + 40)}${index.toString(16).padStart(4, '0')}`;
  const listed: Record<string, unknown> = { ...item, id, type, status: typeof item.status === 'string' ? item.status : 'completed' };
  if (type === 'message' && typeof item.content === 'string') {
    listed.content = [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }];
  }
  return listed;
}
