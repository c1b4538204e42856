import { ensureTemplate } from './db.js';

// Mocha root hooks: the migrated template database is built once, before any test file runs.
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    await ensureTemplate();
  },
};
