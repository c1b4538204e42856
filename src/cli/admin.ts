import { parseArgs } from 'node:util';
import { DEFAULT_DATABASE_URL } from '../config.js';
import { createPool } from '../db/pool.js';
import { parseInstant } from '../http/period.js';
import { limitsFromColumns, SMALLEST_CREDIT_LIMIT, type Limits } from '../limits/limits.js';
import { changeNonEuAcceptance, createKey, listKeys, revokeKey } from '../tenancy/keys.js';
import { isScope, type KeyKind, type Scope } from '../tenancy/scopes.js';
import { findKeyRevokedAt, workspaceNameProblem } from '../tenancy/store.js';
import { configOrExit, databaseProblem } from '../process.js';

// The operator CLI: `npm run --silent admin -- <command> …`. Each command prints one JSON line.
const USAGE = `usage: npm run --silent admin -- <command>
  create-key --org <name> --workspace <name> [--kind organization|restricted] [--scopes a,b]
             [--name <text>] [--rpm <n>] [--tpm <n>] [--credits-per-day <x>] [--credits-per-month <x>]
             [--expires-at <ISO 8601 date or date-time, in the future>]
  revoke-key <key_id>              (a key already revoked stays revoked: exit 0, as DELETE /v1/keys/{id})
  list-keys --org <name>
  accept-non-eu --org <name> --by <who>
  withdraw-non-eu --org <name>`;

class UsageError extends Error {}

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function parseScopes(raw: string | undefined): Scope[] {
  if (!raw) return [];
  const scopes = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
  return scopes as Scope[];
}

// The API's bounds (spec/openapi.yaml, Limits), so that a key made here could be made there too.
const MAX_RATE = 1_000_000_000;
const MAX_CREDITS = 100_000_000_000;

function parseRate(values: Record<string, string | undefined>, name: string): number | null {
  const raw = values[name];
  if (raw === undefined) return null;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > MAX_RATE) {
    throw new UsageError(`--${name} must be a whole number from 1 to ${MAX_RATE} (per minute); leave it out for no limit`);
  }
  return value;
}

function parseCredits(values: Record<string, string | undefined>, name: string): number | null {
  const raw = values[name];
  if (raw === undefined) return null;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || value < SMALLEST_CREDIT_LIMIT || value > MAX_CREDITS) {
    throw new UsageError(
      `--${name} must be a number of credits from ${SMALLEST_CREDIT_LIMIT.toFixed(8)} to ${MAX_CREDITS}; leave it out for no limit`,
    );
  }
  return value;
}

function parseLimits(values: Record<string, string | undefined>): Limits {
  return {
    requests_per_minute: parseRate(values, 'rpm'),
    tokens_per_minute: parseRate(values, 'tpm'),
    credits_per_day: parseCredits(values, 'credits-per-day'),
    credits_per_month: parseCredits(values, 'credits-per-month'),
  };
}

function parseName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.trim() === '' || raw.length > 120) throw new UsageError('--name must be 1 to 120 characters, not only spaces');
  return raw;
}

/** A bare date means midnight UTC, as in the API's query parameters. */
function parseExpiry(raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined;
  const instant = parseInstant(raw);
  if (!instant) throw new UsageError(`--expires-at must be an ISO 8601 date or date-time (2027-01-31 or 2027-01-31T18:00:00Z), not ${JSON.stringify(raw)}`);
  if (instant.getTime() <= Date.now()) throw new UsageError(`--expires-at must lie in the future; ${instant.toISOString()} has passed`);
  return instant;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const OPTIONS = {
  org: { type: 'string' },
  workspace: { type: 'string' },
  kind: { type: 'string' },
  scopes: { type: 'string' },
  by: { type: 'string' },
  name: { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  'credits-per-day': { type: 'string' },
  'credits-per-month': { type: 'string' },
  'expires-at': { type: 'string' },
} as const;
type OptionName = keyof typeof OPTIONS;

// What each command takes: any other option, a positional argument too many, or an option given
// twice is a usage error rather than silently ignored (or silently the last one winning).
const COMMANDS: Record<string, { options: OptionName[]; positionals: string[] }> = {
  'create-key': {
    options: ['org', 'workspace', 'kind', 'scopes', 'name', 'rpm', 'tpm', 'credits-per-day', 'credits-per-month', 'expires-at'],
    positionals: [],
  },
  'revoke-key': { options: [], positionals: ['key_id'] },
  'list-keys': { options: ['org'], positionals: [] },
  'accept-non-eu': { options: ['org', 'by'], positionals: [] },
  'withdraw-non-eu': { options: ['org'], positionals: [] },
};

function parseCommandLine(command: string, args: string[]): { values: Partial<Record<OptionName, string>>; positionals: string[] } {
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(command ? `unknown command ${command}` : 'a command is required');
  const { values, positionals, tokens } = parseArgs({ args, allowPositionals: true, tokens: true, options: OPTIONS });
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (!spec.options.includes(token.name as OptionName)) throw new UsageError(`${command} does not take --${token.name}`);
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once`);
    seen.add(token.name);
  }
  if (positionals.length > spec.positionals.length) {
    const extra = positionals.slice(spec.positionals.length).map((p) => JSON.stringify(p)).join(' ');
    throw new UsageError(
      spec.positionals.length === 0
        ? `${command} takes no arguments besides its options; unexpected ${extra}`
        : `${command} takes one ${spec.positionals.join(' ')}; unexpected ${extra}`,
    );
  }
  return { values: values as Partial<Record<OptionName, string>>, positionals };
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { values, positionals } = parseCommandLine(command ?? '', rest);
  const config = configOrExit();
  const pool = createPool(config.databaseUrl, 2);
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
  try {
    switch (command) {
      case 'create-key': {
        const kind = (values.kind ?? 'organization') as KeyKind;
        if (kind !== 'organization' && kind !== 'restricted') {
          throw new UsageError('--kind must be organization or restricted');
        }
        const scopes = parseScopes(values.scopes);
        if (kind === 'organization' && values.scopes !== undefined) {
          throw new UsageError('--scopes applies to restricted keys; organization keys have every scope');
        }
        if (kind === 'restricted' && scopes.length === 0) {
          // The API makes such a key too (POST /v1/keys: "none given, none held"), so it is made, with a warning.
          process.stderr.write(
            'admin: warning: this restricted key has no scopes, so every call that needs a scope is refused (403); ' +
              'give them with --scopes a,b (see help), or PATCH /v1/keys/{id} later\n',
          );
        }
        const name = parseName(values.name);
        const expiresAt = parseExpiry(values['expires-at']);
        const workspace = required(values, 'workspace');
        // The API's rule, so that every workspace the CLI makes can be named over the API.
        const problem = workspaceNameProblem(workspace);
        if (problem) throw new UsageError(`--workspace ${problem}`);
        print(
          await createKey(pool, {
            organization: required(values, 'org'),
            workspace,
            kind,
            scopes,
            limits: parseLimits(values),
            ...(name !== undefined ? { name } : {}),
            ...(expiresAt ? { expiresAt } : {}),
          }),
        );
        return 0;
      }
      case 'revoke-key': {
        const keyId = positionals[0];
        if (!keyId) throw new UsageError('revoke-key needs a key_id');
        if (!UUID.test(keyId) || !(await revokeKey(pool, keyId))) {
          // Revoking a revoked key is not an error, as DELETE /v1/keys/{id} answers 200 again: it stays revoked.
          const revokedAt = UUID.test(keyId) ? await findKeyRevokedAt(pool, keyId) : undefined;
          if (!revokedAt) {
            process.stderr.write(`admin: no key with id ${keyId}\n`);
            return 1;
          }
          process.stderr.write(`admin: key ${keyId} was already revoked, at ${revokedAt.toISOString()}\n`);
        }
        print({ key_id: keyId, revoked: true });
        return 0;
      }
      case 'list-keys': {
        const org = required(values, 'org');
        const keys = await listKeys(pool, org);
        if (!keys) {
          process.stderr.write(`no organization named ${org}\n`);
          return 1;
        }
        print({
          organization: org,
          keys: keys.map((k) => ({
            key_id: k.id,
            name: k.name,
            prefix: k.key_prefix,
            last4: k.key_last4,
            workspace_id: k.workspace_id,
            workspace: k.workspace_name,
            kind: k.kind,
            scopes: k.scopes,
            limits: limitsFromColumns(k),
            expires_at: k.expires_at?.toISOString() ?? null,
            last_used_at: k.last_used_at?.toISOString() ?? null,
            created_at: k.created_at.toISOString(),
            revoked_at: k.revoked_at?.toISOString() ?? null,
          })),
        });
        return 0;
      }
      case 'accept-non-eu':
      case 'withdraw-non-eu': {
        const org = required(values, 'org');
        const by = command === 'accept-non-eu' ? required(values, 'by') : null;
        const state = await changeNonEuAcceptance(pool, org, by);
        if (!state) {
          process.stderr.write(`no organization named ${org}\n`);
          return 1;
        }
        print({
          organization: org,
          non_eu_accepted: state.non_eu_accepted_at !== null,
          accepted_at: state.non_eu_accepted_at?.toISOString() ?? null,
          accepted_by: state.non_eu_accepted_by,
        });
        return 0;
      }
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } finally {
    await pool.end();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
      process.exit(2);
    }
    const problem = databaseProblem(err, process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
    process.stderr.write(`admin: ${problem ?? (err as Error).message}\n`);
    process.exit(1);
  },
);
