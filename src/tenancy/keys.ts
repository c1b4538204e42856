import { hash, randomBytes } from 'node:crypto';
import type { Pool, Queryable } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { recordAudit } from '../audit/entries.js';
import { SCOPES, type KeyKind, type Scope } from './scopes.js';
import {
  findOrganizationByName,
  findPrincipalByHash,
  insertApiKey,
  listKeysOfOrganization,
  markKeyRevoked,
  setNonEuAcceptance,
  upsertOrganization,
  upsertWorkspace,
  type KeyRow,
  type Principal,
} from './store.js';

const KEY_PREFIX = 'pld_';
const KEY_PATTERN = /^pld_[A-Za-z0-9_-]{43}$/;

// One-shot hashing: every request hashes its key, and a Hash object per call costs more than the digest.
export function hashSecret(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}

export function isWellFormedKey(secret: string): boolean {
  return KEY_PATTERN.test(secret);
}

export interface CreatedKey {
  key: string;
  key_id: string;
  organization_id: string;
  workspace_id: string;
  kind: KeyKind;
  scopes: Scope[];
}

/** Creates the organization and workspace when absent, then the key; audited in the same transaction. */
export async function createKey(
  pool: Pool,
  input: { organization: string; workspace: string; kind: KeyKind; scopes?: Scope[]; by?: string },
): Promise<CreatedKey> {
  const secret = KEY_PREFIX + randomBytes(32).toString('base64url');
  const scopes = input.kind === 'organization' ? [...SCOPES] : [...new Set(input.scopes ?? [])];
  return withTransaction(pool, async (db) => {
    const organizationId = await upsertOrganization(db, input.organization);
    const workspaceId = await upsertWorkspace(db, organizationId, input.workspace);
    const keyId = await insertApiKey(db, {
      organizationId,
      workspaceId,
      hash: hashSecret(secret),
      prefix: secret.slice(0, KEY_PREFIX.length + 6),
      kind: input.kind,
      scopes,
    });
    await recordAudit(db, {
      organization_id: organizationId,
      workspace_id: workspaceId,
      actor: { key_id: null, kind: 'operator' },
      action: 'api_key.created',
      target: keyId,
      details: { kind: input.kind, scopes, ...(input.by ? { by: input.by } : {}) },
    });
    return { key: secret, key_id: keyId, organization_id: organizationId, workspace_id: workspaceId, kind: input.kind, scopes };
  });
}

export async function revokeKey(pool: Pool, keyId: string): Promise<boolean> {
  return withTransaction(pool, async (db) => {
    const revoked = await markKeyRevoked(db, keyId);
    if (!revoked) return false;
    await recordAudit(db, {
      organization_id: revoked.organization_id,
      workspace_id: revoked.workspace_id,
      actor: { key_id: null, kind: 'operator' },
      action: 'api_key.revoked',
      target: keyId,
      details: {},
    });
    return true;
  });
}

export async function listKeys(db: Queryable, organization: string): Promise<KeyRow[] | undefined> {
  const org = await findOrganizationByName(db, organization);
  return org ? listKeysOfOrganization(db, org.id) : undefined;
}

/** Records (by = who) or withdraws (by = null) the organization's non-EU acceptance, audited. */
export async function changeNonEuAcceptance(
  pool: Pool,
  organization: string,
  by: string | null,
  actor: { key_id: string | null; kind: 'organization' | 'operator' } = { key_id: null, kind: 'operator' },
): Promise<{ non_eu_accepted_at: Date | null; non_eu_accepted_by: string | null } | undefined> {
  return withTransaction(pool, async (db) => {
    const org = await findOrganizationByName(db, organization);
    if (!org) return undefined;
    const state = await setNonEuAcceptance(db, org.id, by);
    await recordAudit(db, {
      organization_id: org.id,
      workspace_id: null,
      actor,
      action: by === null ? 'non_eu_acceptance.withdrawn' : 'non_eu_acceptance.recorded',
      target: org.id,
      details: by === null ? {} : { by },
    });
    return state;
  });
}

interface CacheEntry {
  principal: Principal | undefined;
  expiresAt: number;
}

/**
 * Resolves bearer secrets to principals with a short in-memory cache, so a warm request costs no
 * key query. Entries live at most `ttlMs`, which bounds how long a key revoked by another
 * process (the admin CLI) keeps working, and how long another process routes by a workspace's
 * old settings or its organization's old non-EU acceptance after a change (this process forgets
 * them at once: forgetWorkspace, forgetOrganization).
 */
export class KeyResolver {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly db: Queryable,
    private readonly ttlMs = 4000,
    private readonly negativeTtlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  async resolve(secret: string): Promise<Principal | undefined> {
    const secretHash = hashSecret(secret);
    const cacheKey = secretHash.toString('base64');
    const now = Date.now();
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > now) return cached.principal;
    const principal = await findPrincipalByHash(this.db, secretHash);
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(cacheKey, { principal, expiresAt: now + (principal ? this.ttlMs : this.negativeTtlMs) });
    return principal;
  }

  forgetKey(keyId: string): void {
    this.forgetWhere((principal) => principal.keyId === keyId);
  }

  /** After a change of a workspace's routing settings, which every principal of it carries. */
  forgetWorkspace(workspaceId: string): void {
    this.forgetWhere((principal) => principal.workspaceId === workspaceId);
  }

  /** After a change of the organization's non-EU acceptance, which every principal of it carries. */
  forgetOrganization(organizationId: string): void {
    this.forgetWhere((principal) => principal.organizationId === organizationId);
  }

  private forgetWhere(matches: (principal: Principal) => boolean): void {
    for (const [cacheKey, entry] of this.cache) {
      if (entry.principal && matches(entry.principal)) this.cache.delete(cacheKey);
    }
  }
}
