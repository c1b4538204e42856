import type { Pool } from '../../db/pool.js';
import { noFieldErrors, notFound, validationFailed, type FieldErrors } from '../../errors.js';
import type { Catalog } from '../../gateway/catalog.js';
import type { Adapters } from '../../gateway/providers/index.js';
import type { LimitGate } from '../../limits/gate.js';
import type { EraseRequest, FactCorrection, FactSubmitRequest } from '../../generated/openapi.js';
import { eraseEndUser, forgetFactEverywhere } from '../../memory/erasure.js';
import { correctFact } from '../../memory/factCorrection.js';
import { refuseIfMemoryCannotBeEmbedded } from '../../memory/embedder.js';
import { findFact, findFacts, findSubmission, LIST_LIMIT, listFacts, SEARCH_MAX_LIMIT, submitFact } from '../../memory/facts.js';
import { isMicrosecondPosition, keysetPage } from '../cursor.js';
import type { Operations } from '../operations.js';
import type { Principal } from '../../tenancy/store.js';
import { presentErasure, presentFact, presentSubmission } from '../presenters/fact.js';
import { createOnce, principalOf } from '../state.js';

export function factRoutes(
  api: Operations,
  { pool, catalog, adapters, gate }: { pool: Pool; catalog: Catalog; adapters: Adapters; gate: LimitGate },
): void {
  // 202: the submission is recorded and queued; the facts are queryable once the job has run.
  api.add('submitFact', async (ctx) => {
    const body = ctx.state.body as FactSubmitRequest;
    const admit = async (principal: Principal) => {
      refuseIfMemoryCannotBeEmbedded(catalog, principal.settings);
      await gate.refuseIfBudgetSpent(principal);
    };
    // The answer is about the end-user it names: their erasure deletes it with the submission, and a
    // retry after it is refused (422) rather than storing the erased fact again (memory/erasure.ts).
    await createOnce(ctx, pool, { kind: 'facts', status: 202, admit, endUser: body.user_ref ?? null }, async (db, principal) => ({
      status: 'accepted',
      // The id the facts.extracted webhook names, so a caller can match the two.
      submission_id: await submitFact(db, principal, body),
    }));
  });

  // A listing is paged (newest first, `next_cursor` while more exist); a search answers its best
  // `limit` matches at once: a ranking has no stable position for a cursor to resume from.
  api.add('listFacts', async (ctx) => {
    const { q, cursor, limit, user_ref } = ctx.state.query as { user_ref?: string; q?: string; cursor?: string; limit?: number };
    if (q !== undefined) {
      const errors: FieldErrors = noFieldErrors();
      if (cursor !== undefined) errors.cursor = ['is not taken with q: a search answers its best matches at once, up to limit'];
      if (limit !== undefined && limit > SEARCH_MAX_LIMIT) errors.limit = [`must be <= ${SEARCH_MAX_LIMIT} with q`];
      if (Object.keys(errors).length > 0) throw validationFailed(errors);
      const facts = await findFacts({ pool, catalog, adapters }, principalOf(ctx), {
        q,
        ...(user_ref !== undefined ? { user_ref } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      ctx.body = { data: facts.map(presentFact), next_cursor: null };
      return;
    }
    const scope = { workspaceId: principalOf(ctx).workspaceId, userRef: user_ref ?? null };
    const { rows, next_cursor } = await keysetPage(
      { ...(cursor !== undefined ? { cursor } : {}), limit: limit ?? LIST_LIMIT },
      isMicrosecondPosition,
      (page) => listFacts(pool, scope, page),
      (row) => ({ us: row.position_us, id: row.id }),
    );
    ctx.body = { data: rows.map(presentFact), next_cursor };
  });

  api.add('getFact', async (ctx) => {
    const id = ctx.params.id!;
    const fact = await findFact(pool, principalOf(ctx).workspaceId, id);
    if (!fact) throw notFound(`no fact ${id}`);
    ctx.body = presentFact(fact);
  });

  api.add('getFactSubmission', async (ctx) => {
    const id = ctx.params.id!;
    const submission = await findSubmission(pool, principalOf(ctx).workspaceId, id);
    if (!submission) throw notFound(`no fact submission ${id}`);
    ctx.body = presentSubmission(submission);
  });

  api.add('correctFact', async (ctx) => {
    const { content } = ctx.state.body as FactCorrection;
    ctx.body = presentFact(await correctFact({ pool, catalog, adapters, gate }, principalOf(ctx), ctx.params.id!, content));
  });

  api.add('deleteFact', async (ctx) => {
    const id = ctx.params.id!;
    if (!(await forgetFactEverywhere(pool, principalOf(ctx), id))) throw notFound(`no fact ${id}`);
    ctx.body = { deleted: 1 };
  });

  // The end-user comes in the query or in an optional JSON body; the query wins when both do.
  api.add('eraseEndUser', async (ctx) => {
    const inQuery = (ctx.state.query as { user_ref?: string }).user_ref;
    const inBody = (ctx.state.body as EraseRequest | undefined)?.user_ref;
    // An erasure cannot be undone: two different end-users named is a mistake to refuse, not to guess.
    if (inQuery !== undefined && inBody !== undefined && inQuery !== inBody) {
      throw validationFailed({ user_ref: [`names two end-users (${JSON.stringify(inQuery)} in the query, ${JSON.stringify(inBody)} in the body); send one`] });
    }
    const userRef = inQuery ?? inBody;
    if (userRef === undefined) {
      throw validationFailed({ user_ref: ['is required: pass ?user_ref=<end-user> or a JSON body {"user_ref": "<end-user>"}'] });
    }
    ctx.body = presentErasure(await eraseEndUser(pool, principalOf(ctx), userRef, ctx.state.log));
  });
}
