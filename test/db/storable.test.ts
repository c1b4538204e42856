import { expect } from 'chai';
import { storableJson, storableText } from '../../src/db/storable.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

describe('db/storable', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  const asJsonb = async (json: string) => (await db.pool.query<{ value: unknown }>('select $1::jsonb as value', [json])).rows[0]!.value;

  it('turns a NUL and lone surrogates into U+FFFD, which jsonb then takes', async () => {
    const value = { a: 'x\0y', b: 'high \ud800 alone', c: ['low \udc00 alone'] };
    let refused: unknown;
    await asJsonb(JSON.stringify(value)).catch((err: unknown) => (refused = err));
    expect((refused as Error | undefined)?.message).to.match(/Unicode|surrogate/);
    expect(await asJsonb(storableJson(value))).to.deep.equal({ a: 'x\uFFFDy', b: 'high \uFFFD alone', c: ['low \uFFFD alone'] });
  });

  it('leaves what is storable as it is: a pair, other escapes, an escaped backslash before u0000', () => {
    const value = { emoji: '😀 \ud83d\ude00', control: '\u0001\t', text: '\\u0000 and \\ud800', plain: 'ok' };
    expect(storableJson(value)).to.equal(JSON.stringify(value));
  });

  it('replaces the NUL of a string bound for a text column', () => {
    expect(storableText('a\0b\0')).to.equal('a\uFFFDb\uFFFD');
    expect(storableText('plain')).to.equal('plain');
  });
});
