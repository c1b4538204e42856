import { actedBy, recordAudit } from '../audit/entries.js';
import type { Pool, Queryable } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { conflict, notFound, validationFailed, noFieldErrors, type FieldErrors } from '../errors.js';
import type { KeyCreateRequest, KeyUpdateRequest } from '../generated/openapi.js';
import { limitChanges, limitsFromBody, limitsFromColumns, type Limits } from '../limits/limits.js';
import { startLimitCounters } from '../limits/store.js';
import { announceChange } from './changes.js';
import { describedKey, newSecret, scopesOfKind } from './keys.js';
import type { Scope } from './scopes.js';
import {
  findKeyOfOrganization,
  findWorkspaceOfOrganization,
  insertApiKey,
  isKeyId,
  listKeyPage,
  revokeKeyOfOrganization,
  saveKeyChange,
  ensureWorkspace,
  workspaceNameProblem,
  type KeyPosition,
  type KeyRow,
  type Principal,
} from './store.js';

// Keys managed over the API (/v1/keys) by an organization key, within its own organization. Every
// change is audited in the transaction that makes it, in the workspace of the key it concerns
// (where the CLI's entries about that key are too); never with the secret.

/** What a key change has to reach: the principals cached by this process's key resolver. */
export interface KeyCache {
  forgetKey(keyId: string): void;
}

export interface KeyManagementDeps {
  pool: Pool;
  keys: KeyCache;
}

/** An expiry given in a body: a real instant in the future (a key that is born expired is a mistake). */
function futureInstant(value: string, now = Date.now()): Date {
  const instant = new Date(value);
  if (Number.isNaN(instant.getTime())) throw validationFailed({ expires_at: ['is not a date-time'] });
  if (instant.getTime() <= now) {
    throw validationFailed({ expires_at: [`must lie in the future (it is ${new Date(now).toISOString()} now); to stop a key at once, revoke it`] });
  }
  return instant;
}

const ORGANIZATION_SCOPES = 'an organization key holds every scope; scopes apply to restricted keys only';

export async function createKeyFor(
  deps: KeyManagementDeps,
  principal: Principal,
  body: KeyCreateRequest,
): Promise<{ secret: string; key: KeyRow }> {
  const errors: FieldErrors = noFieldErrors();
  if (body.kind === 'organization' && body.scopes !== undefined) errors.scopes = [ORGANIZATION_SCOPES];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const limits = limitsFromBody(body.limits);
  const expiresAt = body.expires_at ? futureInstant(body.expires_at) : null;
  const scopes = scopesOfKind(body.kind, body.scopes);

  return withTransaction(deps.pool, async (db) => {
    const workspace = (await findWorkspaceOfOrganization(db, principal.organizationId, body.workspace)) ?? (await newWorkspace(db, principal, body.workspace));
    const { secret, ...stored } = newSecret();
    const settings = { name: body.name, kind: body.kind, scopes, limits, expiresAt };
    const key = await insertApiKey(db, { organizationId: principal.organizationId, workspaceId: workspace.id, ...stored, ...settings });
    await recordAudit(db, {
      ...actedBy(principal),
      workspace_id: workspace.id,
      action: 'api_key.created',
      target: key.id,
      details: describedKey(settings),
    });
    return { secret, key };
  });
}

/**
 * A workspace named for the first time, created as the CLI's create-key creates it: a platform lead
 * gives a team its workspace with the team's first key. An id names an existing workspace only.
 */
async function newWorkspace(db: Queryable, principal: Principal, name: string): Promise<{ id: string; name: string }> {
  if (isKeyId(name)) throw validationFailed({ workspace: ['is not a workspace of this organization (give its id or its name; a new name creates it)'] });
  const problem = workspaceNameProblem(name);
  if (problem) throw validationFailed({ workspace: [problem] });
  const { id, created } = await ensureWorkspace(db, principal.organizationId, name);
  // Keys asked for at once under one new name make it once, audited once.
  if (created) await recordAudit(db, { ...actedBy(principal), workspace_id: id, action: 'workspace.created', target: id, details: { name } });
  return { id, name };
}

export function listKeysFor(
  db: Queryable,
  principal: Principal,
  page: { after?: KeyPosition; limit: number },
): Promise<(KeyRow & { position_us: string })[]> {
  return listKeyPage(db, principal.organizationId, page);
}

export async function getKeyFor(db: Queryable, principal: Principal, keyId: string): Promise<KeyRow> {
  const key = await findKeyOfOrganization(db, principal.organizationId, keyId);
  if (!key) throw notFound(`no API key ${keyId}`);
  return key;
}

export async function updateKeyFor(
  deps: KeyManagementDeps,
  principal: Principal,
  keyId: string,
  update: KeyUpdateRequest,
): Promise<KeyRow> {
  const limits = update.limits !== undefined ? limitsFromBody(update.limits) : undefined;
  const expiresAt = update.expires_at === undefined ? undefined : update.expires_at === null ? null : futureInstant(update.expires_at);

  const outcome = await withTransaction(deps.pool, async (db) => {
    const before = await findKeyOfOrganization(db, principal.organizationId, keyId, { lock: true });
    if (!before) throw notFound(`no API key ${keyId}`);
    if (before.revoked_at) throw conflict(`the API key ${keyId} was revoked at ${before.revoked_at.toISOString()}; a revoked key cannot be changed`);
    if (update.scopes !== undefined && before.kind === 'organization') throw validationFailed({ scopes: [ORGANIZATION_SCOPES] });

    const limitsBefore = limitsFromColumns(before);
    const after = {
      name: update.name === undefined ? before.name : update.name,
      scopes: update.scopes !== undefined ? scopesOfKind(before.kind, update.scopes) : before.scopes,
      limits: limits ?? limitsBefore,
      expiresAt: expiresAt !== undefined ? expiresAt : before.expires_at,
    };
    const changes = keyChanges(before, limitsBefore, after);
    if (Object.keys(changes).length === 0) return { key: before, changed: false };
    const key = await saveKeyChange(db, principal.organizationId, keyId, after);
    await announceChange(db, { kind: 'key', id: key.id });
    // Limits are counted only while they exist: a new one starts from what the key has used.
    if (changes.limits !== undefined) {
      await startLimitCounters(db, { kind: 'key', id: key.id }, { organizationId: principal.organizationId, workspaceId: key.workspace_id, limits: after.limits }, limitsBefore);
    }
    await recordAudit(db, {
      ...actedBy(principal),
      workspace_id: key.workspace_id,
      action: 'api_key.updated',
      target: key.id,
      details: { changes },
    });
    return { key, changed: true };
  });
  // Requests carry the key's scopes and limits in their cached principal: this process reads the
  // change on its next request; other processes when the NOTIFY sent with it reaches them.
  if (outcome.changed) deps.keys.forgetKey(keyId);
  return outcome.key;
}

/** Revokes the key; revoking a revoked key changes nothing and answers the key as it is. */
export async function revokeKeyFor(deps: KeyManagementDeps, principal: Principal, keyId: string): Promise<KeyRow> {
  const revoked = await withTransaction(deps.pool, async (db) => {
    const key = await revokeKeyOfOrganization(db, principal.organizationId, keyId);
    if (!key) return undefined;
    await announceChange(db, { kind: 'key', id: key.id });
    await recordAudit(db, {
      ...actedBy(principal),
      workspace_id: key.workspace_id,
      action: 'api_key.revoked',
      target: key.id,
      details: { name: key.name },
    });
    return key;
  });
  if (revoked) {
    deps.keys.forgetKey(keyId);
    return revoked;
  }
  return getKeyFor(deps.pool, principal, keyId);
}

function keyChanges(
  before: KeyRow,
  limitsBefore: Limits,
  after: { name: string | null; scopes: Scope[]; limits: Limits; expiresAt: Date | null },
): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (after.name !== before.name) changes.name = { from: before.name, to: after.name };
  const sameScopes = after.scopes.length === before.scopes.length && after.scopes.every((scope) => before.scopes.includes(scope));
  if (!sameScopes) changes.scopes = { from: before.scopes, to: after.scopes };
  const limits = limitChanges(limitsBefore, after.limits);
  if (Object.keys(limits).length > 0) changes.limits = limits;
  const expiryBefore = before.expires_at?.toISOString() ?? null;
  const expiryAfter = after.expiresAt?.toISOString() ?? null;
  if (expiryAfter !== expiryBefore) changes.expires_at = { from: expiryBefore, to: expiryAfter };
  return changes;
}
