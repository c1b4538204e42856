import { expect } from 'chai';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

// A key's limits saved again during a minute (the same value, raised and lowered back, lowered
// through a smaller one): the requests the key is answered in that minute never pass its
// requests_per_minute, and the key's counter counts every one of them.
describe("a key's requests_per_minute re-saved mid-minute", () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  const chat = (key: string, content: string) =>
    api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      body: { model: 'local/echo', max_tokens: 5, cache: false, messages: [{ role: 'user', content }] },
    });

  async function leasedOf(keyId: string): Promise<{ window_start: Date; leased: number; billed: number }[]> {
    const { rows } = await app.db.pool.query<{ window_start: Date; leased: number; billed: number }>(
      `select window_start, leased::float8 as leased, billed::float8 as billed
         from limit_counters where scope_kind = 'key' and scope_id = $1 and counter = 'requests'`,
      [keyId],
    );
    return rows;
  }

  // Each step: a number of chats (sequential, or at once), or the limits a PATCH saves.
  type Step = { chats: number; together?: boolean } | { patch: number };
  const scenarios: { name: string; steps: Step[] }[] = [
    { name: 'the same value', steps: [{ chats: 5 }, { patch: 10 }, { chats: 7 }] },
    { name: '100 then 10', steps: [{ chats: 5 }, { patch: 100 }, { patch: 10 }, { chats: 7 }] },
    { name: '100, 3, then 10', steps: [{ chats: 5 }, { patch: 100 }, { patch: 3 }, { patch: 10 }, { chats: 7 }] },
    // A block leased under 100 (five requests' worth) is held when the limit goes down to 3, then back to 10.
    { name: 'a request under 100, then 3, then 10', steps: [{ chats: 5 }, { patch: 100 }, { chats: 1 }, { patch: 3 }, { chats: 1 }, { patch: 10 }, { chats: 6 }] },
    { name: 'a request under 100, then 10', steps: [{ chats: 5 }, { patch: 100 }, { chats: 2 }, { patch: 10 }, { chats: 6 }] },
    { name: 'the same value, requests at once', steps: [{ chats: 5, together: true }, { patch: 10 }, { chats: 7, together: true }] },
    { name: '100 then 10, requests at once', steps: [{ chats: 5, together: true }, { patch: 100 }, { chats: 3, together: true }, { patch: 10 }, { chats: 7, together: true }] },
  ];

  it('answers at most requests_per_minute in the minute, and the counter counts every request answered', async function () {
    this.timeout(120_000);
    const { key, workspace_id: workspace } = await app.key({ org: 'resave', workspace: 'w' });
    for (const [index, scenario] of scenarios.entries()) {
      // All of a scenario in one fixed minute.
      await waitFor(async () => new Date().getUTCSeconds() < 50, { timeoutMs: 20_000, what: 'the start of a minute' });
      const minute = Math.floor(Date.now() / 60_000);
      const created = await api(app.baseUrl, '/v1/keys', {
        method: 'POST',
        key,
        body: { workspace, name: `resaved ${index}`, kind: 'restricted', scopes: ['chat.create'], limits: { requests_per_minute: 10 } },
      });
      expect(created.status, created.text).to.equal(201);
      const secret = created.body.data.key as string;
      const id = created.body.data.id as string;
      const statuses: number[] = [];
      let sent = 0;
      for (const step of scenario.steps) {
        if ('patch' in step) {
          const patched = await api(app.baseUrl, `/v1/keys/${id}`, { method: 'PATCH', key, body: { limits: { requests_per_minute: step.patch } } });
          expect(patched.status, patched.text).to.equal(200);
        } else if (step.together) {
          const answers = await Promise.all(Array.from({ length: step.chats }, () => chat(secret, `${scenario.name}: vraag ${sent++}`)));
          statuses.push(...answers.map((answer) => answer.status));
        } else {
          for (let i = 0; i < step.chats; i++) statuses.push((await chat(secret, `${scenario.name}: vraag ${sent++}`)).status);
        }
      }
      expect(Math.floor(Date.now() / 60_000), 'the scenario ran within one minute').to.equal(minute);
      const answered = statuses.filter((status) => status === 200).length;
      expect(statuses.every((status) => status === 200 || status === 429), `${scenario.name}: ${statuses.join(',')}`).to.equal(true);
      expect(answered, `${scenario.name}: ${statuses.join(',')}`).to.be.at.most(10);
      const counters = await leasedOf(id);
      expect(counters, scenario.name).to.have.length(1);
      // What the counter leased is what was answered: no block is held unused at the end.
      expect(counters[0]!.leased + counters[0]!.billed, `${scenario.name}: ${statuses.join(',')}`).to.equal(answered);
      // Sequential requests use every request of the limit; together, some may be refused early.
      if (scenario.steps.every((step) => 'patch' in step || !step.together)) expect(answered, `${scenario.name}: ${statuses.join(',')}`).to.equal(10);
    }
  });
});
