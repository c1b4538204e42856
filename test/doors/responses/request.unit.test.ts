import { expect } from 'chai';
import { ApiError } from '../../../src/errors.js';
import { chatRequestOf } from '../../../src/doors/responses/request.js';
import type { StoredTurn } from '../../../src/doors/responses/store.js';
import type { ResponseObject, ResponsesRequest } from '../../../src/doors/responses/types.js';

// The translation of a Responses request (and its stored chain) into one chat request.
describe('Responses request → chat request', () => {
  const refusal = (body: ResponsesRequest): Record<string, string[]> => {
    try {
      chatRequestOf(body, []);
    } catch (err) {
      expect(err).to.be.instanceOf(ApiError);
      expect((err as ApiError).status).to.equal(422);
      return (err as ApiError).errors!;
    }
    return expect.fail('expected a 422');
  };

  it('joins an assistant text and the function calls after it into one assistant message, and keeps a developer message at its place', () => {
    const { chat, notes } = chatRequestOf(
      {
        model: 'local/echo',
        instructions: 'Wees kort.',
        input: [
          { role: 'user', content: 'Zoek twee polissen' },
          { type: 'reasoning', id: 'rs_1', summary: [] } as never,
          { type: 'message', role: 'assistant', status: 'completed', id: 'msg_1', content: [{ type: 'output_text', text: 'Ik zoek ze.' }] } as never,
          { type: 'function_call', call_id: 'c1', name: 'zoek', arguments: '{"n":1}', id: 'fc_1', status: 'completed' } as never,
          { type: 'function_call', call_id: 'c2', name: 'zoek', arguments: '{"n":2}' },
          { type: 'function_call_output', call_id: 'c1', output: 'polis 1' },
          { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'polis 2' }] },
          { role: 'developer', content: 'Antwoord in het Nederlands.' },
        ],
      },
      [],
    );
    expect(chat.messages).to.deep.equal([
      { role: 'system', content: 'Wees kort.' },
      { role: 'user', content: 'Zoek twee polissen' },
      {
        role: 'assistant',
        content: 'Ik zoek ze.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'zoek', arguments: '{"n":1}' } },
          { id: 'c2', type: 'function', function: { name: 'zoek', arguments: '{"n":2}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'polis 1' },
      { role: 'tool', tool_call_id: 'c2', content: 'polis 2' },
      { role: 'system', content: 'Antwoord in het Nederlands.' },
    ]);
    expect(notes.join(' ')).to.contain('reasoning');
  });

  it('keeps text and reasoning between two calls of one turn in that turn: the calls and all the text are one assistant message', () => {
    const { chat } = chatRequestOf(
      {
        model: 'local/echo',
        input: [
          { role: 'user', content: 'Zoek twee polissen' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Eerst.' }] } as never,
          { type: 'function_call', call_id: 'c1', name: 'zoek', arguments: '{"n":1}' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Dan.' }] } as never,
          { type: 'reasoning', id: 'rs_2', summary: [] } as never,
          { type: 'function_call', call_id: 'c2', name: 'zoek', arguments: '{"n":2}' },
          { type: 'function_call_output', call_id: 'c1', output: 'polis 1' },
          { type: 'function_call_output', call_id: 'c2', output: 'polis 2' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Klaar.' }] } as never,
        ],
      },
      [],
    );
    expect(chat.messages.map((m) => [m.role, m.content, m.tool_calls?.map((c) => c.id)])).to.deep.equal([
      ['user', 'Zoek twee polissen', undefined],
      ['assistant', 'Eerst.\n\nDan.', ['c1', 'c2']],
      ['tool', 'polis 1', undefined],
      ['tool', 'polis 2', undefined],
      ['assistant', 'Klaar.', undefined],
    ]);
  });

  it('puts the stored turns first, without their instructions', () => {
    const turn: StoredTurn = {
      id: 'resp_1',
      end_user: null,
      input: [{ type: 'message', role: 'user', content: 'Eerst' }],
      response: {
        id: 'resp_1',
        instructions: 'Oude instructie',
        output: [
          { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'c9', name: 'kijk', arguments: '{}' },
        ],
      } as unknown as ResponseObject,
    };
    const { chat, input } = chatRequestOf(
      { model: 'local/echo', input: [{ type: 'function_call_output', call_id: 'c9', output: 'gezien' }], previous_response_id: 'resp_1' },
      [turn],
    );
    expect(chat.messages.map((m) => m.role)).to.deep.equal(['user', 'assistant', 'tool']);
    expect(JSON.stringify(chat.messages)).not.to.contain('Oude instructie');
    expect(input).to.deep.equal([{ type: 'function_call_output', call_id: 'c9', output: 'gezien' }]);
  });

  it('leaves out the function outputs of a chain whose turn with their calls is no longer stored', () => {
    // resp_1 (which made calls c1 and c2) was deleted; resp_2 answered their outputs.
    const second: StoredTurn = {
      id: 'resp_2',
      end_user: null,
      input: [
        { type: 'function_call_output', call_id: 'c1', output: 'een' },
        { type: 'function_call_output', call_id: 'c2', output: 'twee' },
      ],
      response: { id: 'resp_2', output: [{ id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Klaar.' }] }] } as unknown as ResponseObject,
    };
    const { chat, notes } = chatRequestOf({ model: 'local/echo', input: 'En nu?', previous_response_id: 'resp_2' }, [second]);
    expect(chat.messages).to.deep.equal([
      { role: 'assistant', content: 'Klaar.' },
      { role: 'user', content: 'En nu?' },
    ]);
    expect(notes).to.include('2 function output(s) of earlier turns left out: the turns with their calls are no longer stored');
  });

  it('maps tools, tool_choice, text.format, reasoning and max_output_tokens', () => {
    const { chat } = chatRequestOf(
      {
        model: 'local/echo',
        input: 'x',
        tools: [{ type: 'function', name: 'zoek', description: 'Zoekt', parameters: { type: 'object' }, strict: true }, { type: 'file_search' }],
        tool_choice: { type: 'function', name: 'zoek' },
        parallel_tool_calls: false,
        text: { format: { type: 'json_schema', name: 'klant', schema: { type: 'object' }, strict: true } },
        reasoning: { effort: 'low' },
        max_output_tokens: 50,
        temperature: 0.2,
        user: 'u1',
        metadata: { a: 'b' },
      },
      [],
    );
    expect(chat).to.deep.include({
      tools: [{ type: 'function', function: { name: 'zoek', description: 'Zoekt', parameters: { type: 'object' }, strict: true } }],
      tool_choice: { type: 'function', function: { name: 'zoek' } },
      parallel_tool_calls: false,
      response_format: { type: 'json_schema', json_schema: { name: 'klant', schema: { type: 'object' }, strict: true } },
      reasoning_effort: 'low',
      max_completion_tokens: 50,
      temperature: 0.2,
      user: 'u1',
    });
    expect(chat).not.to.have.property('metadata');
  });

  it('refuses what the door cannot serve, naming the field', () => {
    expect(refusal({ model: 'm', input: 'x', background: true })).to.have.property('background');
    expect(refusal({ model: 'm', input: 'x', tools: [{ type: 'web_search' }], tool_choice: 'required' })).to.have.property('tool_choice');
    expect(refusal({ model: 'm', input: 'x', tool_choice: { type: 'file_search' } })['tool_choice.type']![0]).to.contain('file_search');
    expect(refusal({ model: 'm', input: [{ type: 'item_reference', id: 'x' } as never] })).to.have.property('input.0.type');
    expect(refusal({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_audio' } as never] }] })).to.have.property('input.0.content.0.type');
    expect(refusal({ model: 'm', input: [{ type: 'function_call', name: 'f' }] })).to.have.keys('input.0.call_id', 'input.0.arguments');
    expect(refusal({ model: 'm' })).to.have.property('input');
  });

  it('takes an item without a type as a message, so that one without a role is refused rather than left out', () => {
    expect(refusal({ model: 'm', input: [{ content: 'Wat is mijn saldo?' } as never, { role: 'user', content: 'x' }] })).to.have.keys('input.0.role');
    // Nothing the model could answer is not sent as an empty chat, named as the chat's field.
    expect(refusal({ model: 'm', input: [{ type: 'reasoning', id: 'rs_1', summary: [] } as never] })).to.have.keys('input');
  });

  it('refuses a function output that answers no call before it, in input or in the stored turns', () => {
    const errors = refusal({ model: 'm', input: [{ type: 'function_call_output', call_id: 'c1', output: '42' }] });
    expect(errors).to.have.keys('input.0.call_id');
    expect(errors['input.0.call_id']![0]).to.contain('c1');
    // An output before its call answers nothing either.
    expect(
      refusal({
        model: 'm',
        input: [
          { role: 'user', content: 'x' },
          { type: 'function_call_output', call_id: 'c2', output: '42' },
          { type: 'function_call', call_id: 'c2', name: 'f', arguments: '{}' },
        ],
      }),
    ).to.have.keys('input.1.call_id');
  });

  it('refuses an input_image whose URL is neither https nor data', () => {
    for (const url of ['ftp://example.com/a.png', 'http://example.com/a.png', 'file:///etc/passwd']) {
      expect(refusal({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: url }] }] }), url).to.have.keys('input.0.content.0');
    }
    expect(refusal({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://example.com/a.png' }] }] })['input.0.content.0']![0]).to.contain('https or a data: URL');
    // A scheme in capitals is a scheme: the image goes on, to the chat service's rules for data URLs
    // (which read the scheme in any case, and send it on in lower case).
    const { chat } = chatRequestOf(
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'HTTPS://example.com/a.png' }, { type: 'input_image', image_url: 'DATA:image/png;base64,AAAA' }] }] },
      [],
    );
    expect(chat.messages[0]!.content).to.deep.equal([
      { type: 'image_url', image_url: { url: 'HTTPS://example.com/a.png' } },
      { type: 'image_url', image_url: { url: 'DATA:image/png;base64,AAAA' } },
    ]);
  });
});
