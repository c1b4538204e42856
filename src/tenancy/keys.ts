import { hash, randomBytes } from 'node:crypto';
import type { Pool, Queryable } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { recordAudit } from '../audit/entries.js';
import { announceChange } from './changes.js';
import { switchFirewallBackOn } from '../settings/routerSettings.js';
import { hasAnyLimit, NO_LIMITS, type Limits } from '../limits/limits.js';
import { SCOPES, type KeyKind, type Scope } from './scopes.js';
import {
  findKeyByHash,
  findOrganizationByName,
  insertApiKey,
  listKeysOfOrganization,
  markKeyRevoked,
  setNonEuAcceptance,
  upsertOrganization,
  upsertWorkspace,
  type KeyRow,
  type NewApiKey,
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
  /** Only when the key was given one (the CLI's --name). */
  name?: string;
  /** Only when the key was given any (the CLI's --rpm, --tpm, --credits-per-day, --credits-per-month). */
  limits?: Limits;
  /** Only when the key was given one (the CLI's --expires-at). */
  expires_at?: string;
}

/** A new secret, and what of it may be stored: its hash, and the first and last characters to recognise it by. */
export function newSecret(): { secret: string } & Pick<NewApiKey, 'hash' | 'prefix' | 'last4'> {
  const secret = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashSecret(secret), prefix: secret.slice(0, KEY_PREFIX.length + 6), last4: secret.slice(-4) };
}

/** Organization keys hold every scope; restricted keys exactly those chosen, once each. */
export function scopesOfKind(kind: KeyKind, scopes: readonly Scope[] | undefined): Scope[] {
  return kind === 'organization' ? [...SCOPES] : [...new Set(scopes ?? [])];
}

/** What an audit entry says about a key's settings: never its secret or hash. */
export function describedKey(key: { name: string | null; kind: KeyKind; scopes: Scope[]; limits: Limits; expiresAt: Date | null }) {
  return {
    name: key.name,
    kind: key.kind,
    scopes: key.scopes,
    ...(hasAnyLimit(key.limits) ? { limits: key.limits } : {}),
    ...(key.expiresAt ? { expires_at: key.expiresAt.toISOString() } : {}),
  };
}

/** The operator CLI's way: creates the organization and workspace when absent, then the key; audited in the same transaction. */
export async function createKey(
  pool: Pool,
  input: {
    organization: string;
    workspace: string;
    kind: KeyKind;
    scopes?: Scope[];
    name?: string;
    limits?: Limits;
    expiresAt?: Date;
    by?: string;
  },
): Promise<CreatedKey> {
  const { secret, ...stored } = newSecret();
  const scopes = scopesOfKind(input.kind, input.scopes);
  const settings = { name: input.name ?? null, kind: input.kind, scopes, limits: input.limits ?? NO_LIMITS, expiresAt: input.expiresAt ?? null };
  return withTransaction(pool, async (db) => {
    const organizationId = await upsertOrganization(db, input.organization);
    const workspaceId = await upsertWorkspace(db, organizationId, input.workspace);
    const key = await insertApiKey(db, { organizationId, workspaceId, ...stored, ...settings });
    await recordAudit(db, {
      organization_id: organizationId,
      workspace_id: workspaceId,
      actor: { key_id: null, kind: 'operator' },
      action: 'api_key.created',
      target: key.id,
      details: { ...describedKey(settings), ...(input.by ? { by: input.by } : {}) },
    });
    return {
      key: secret,
      key_id: key.id,
      organization_id: organizationId,
      workspace_id: workspaceId,
      kind: input.kind,
      scopes,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.limits && hasAnyLimit(input.limits) ? { limits: input.limits } : {}),
      ...(input.expiresAt ? { expires_at: input.expiresAt.toISOString() } : {}),
    };
  });
}

export async function revokeKey(pool: Pool, keyId: string): Promise<boolean> {
  return withTransaction(pool, async (db) => {
    const revoked = await markKeyRevoked(db, keyId);
    if (!revoked) return false;
    await announceChange(db, { kind: 'key', id: keyId });
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
    await announceChange(db, { kind: 'organization', id: org.id });
    const state = await setNonEuAcceptance(db, org.id, by);
    await recordAudit(db, {
      organization_id: org.id,
      workspace_id: null,
      actor,
      action: by === null ? 'non_eu_acceptance.withdrawn' : 'non_eu_acceptance.recorded',
      target: org.id,
      details: by === null ? {} : { by },
    });
    if (by === null) await switchFirewallBackOn(db, org.id, actor);
    return state;
  });
}

/** A key that would be valid but for its expiry: the caller is told when it expired. */
export class ExpiredKey {
  constructor(
    readonly keyId: string,
    readonly expiredAt: Date,
  ) {}
}

interface CacheEntry {
  /** undefined: no live key has this secret. */
  principal: Principal | undefined;
  /** When the key stops working, in epoch milliseconds (Infinity: never). */
  keyExpiresAt: number;
  expired: ExpiredKey | undefined;
  /** When this entry must be read again from the database. */
  expiresAt: number;
}

/**
 * Resolves bearer secrets to principals with a short in-memory cache, so a warm request costs no
 * key query. Entries live at most `ttlMs`, which bounds how long a change made by another process
 * keeps from applying here: a key revoked or changed over the API or by the admin CLI, a
 * workspace's settings, its organization's non-EU acceptance (this process forgets them at once:
 * forgetKey, forgetWorkspace, forgetOrganization). An expiry needs no such wait: it is compared
 * with the clock on every request, cached or not.
 */
export class KeyResolver {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly db: Queryable,
    private readonly ttlMs = 4000,
    private readonly negativeTtlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  /** The principal of a live key, an ExpiredKey, or undefined for an unknown or revoked one. */
  async identify(secret: string): Promise<Principal | ExpiredKey | undefined> {
    const secretHash = hashSecret(secret);
    const cacheKey = secretHash.toString('base64');
    const now = Date.now();
    let entry = this.cache.get(cacheKey);
    if (!entry || entry.expiresAt <= now) {
      const found = await findKeyByHash(this.db, secretHash);
      entry = {
        principal: found?.principal,
        keyExpiresAt: found?.expiresAt ? found.expiresAt.getTime() : Number.POSITIVE_INFINITY,
        expired: found?.expiresAt ? new ExpiredKey(found.principal.keyId, found.expiresAt) : undefined,
        expiresAt: now + (found ? this.ttlMs : this.negativeTtlMs),
      };
      if (this.cache.size >= this.maxEntries) this.cache.clear();
      this.cache.set(cacheKey, entry);
    }
    if (now >= entry.keyExpiresAt) return entry.expired;
    return entry.principal;
  }

  /** The principal of a live key, or undefined (unknown, revoked or expired). */
  async resolve(secret: string): Promise<Principal | undefined> {
    const identified = await this.identify(secret);
    return identified instanceof ExpiredKey ? undefined : identified;
  }

  /** After a change of the key (its scopes, limits, name, expiry) or its revocation. */
  forgetAllPrincipals(): void {
    this.cache.clear();
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
