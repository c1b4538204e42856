import type { Pool } from '../../db/pool.js';
import { notFound, validationFailed } from '../../errors.js';
import type { Catalog } from '../../gateway/catalog.js';
import type { Adapters } from '../../gateway/providers/index.js';
import type { EraseRequest, FactSubmitRequest } from '../../generated/openapi.js';
import { eraseEndUser, forgetFactEverywhere } from '../../memory/erasure.js';
import { findFacts, submitFact } from '../../memory/facts.js';
import { requireScope } from '../middleware/auth.js';
import { jsonBody } from '../middleware/body.js';
import { presentErasure, presentFact } from '../presenters/fact.js';
import { createOnce, principalOf, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

export interface FactRouteDeps {
  pool: Pool;
  catalog: Catalog;
  adapters: Adapters;
  validator: Validator;
  bodyLimitBytes: number;
}

export function factRoutes(router: AppRouter, { pool, catalog, adapters, validator, bodyLimitBytes }: FactRouteDeps): void {
  // 202: the submission is recorded and queued; the facts are queryable once the job has run.
  router.post('/recall/facts', requireScope('memory.write'), jsonBody(bodyLimitBytes), validator.body('FactSubmitRequest'), async (ctx) => {
    const body = ctx.state.body as FactSubmitRequest;
    await createOnce(ctx, pool, { kind: 'facts', status: 202 }, async (db, principal) => {
      await submitFact(db, principal, body);
      return { status: 'accepted' };
    });
  });

  router.get('/recall/facts', requireScope('memory.read'), validator.query('listFactsQuery'), async (ctx) => {
    const facts = await findFacts({ pool, catalog, adapters }, principalOf(ctx), ctx.state.query as { user_ref?: string; q?: string });
    ctx.body = { data: facts.map(presentFact) };
  });

  router.delete('/memory/facts/:id', requireScope('memory.write'), async (ctx) => {
    const id = ctx.params.id!;
    if (!(await forgetFactEverywhere(pool, principalOf(ctx).workspaceId, id))) throw notFound(`no fact ${id}`);
    ctx.body = { deleted: 1 };
  });

  // The end-user comes in the query or in an optional JSON body; the query wins when both do.
  router.delete(
    '/memory',
    requireScope('memory.write'),
    validator.query('eraseEndUserQuery'),
    jsonBody(bodyLimitBytes, { optional: true }),
    async (ctx, next) => {
      const body = ctx.state.body;
      if (body !== undefined) {
        const errors = validator.check('EraseRequest', body);
        if (errors) throw validationFailed(errors);
      }
      await next();
    },
    async (ctx) => {
      const userRef = (ctx.state.query as { user_ref?: string }).user_ref ?? (ctx.state.body as EraseRequest | undefined)?.user_ref;
      if (userRef === undefined) {
        throw validationFailed({ user_ref: ['is required: pass ?user_ref=<end-user> or a JSON body {"user_ref": "<end-user>"}'] });
      }
      ctx.body = presentErasure(await eraseEndUser(pool, principalOf(ctx), userRef));
    },
  );
}
