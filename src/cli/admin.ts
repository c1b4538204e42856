import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createPool } from '../db/pool.js';
import { changeNonEuAcceptance, createKey, listKeys, revokeKey } from '../tenancy/keys.js';
import { isScope, type KeyKind, type Scope } from '../tenancy/scopes.js';

// The operator CLI: `npm run --silent admin -- <command> …`. Each command prints one JSON line.
const USAGE = `usage: npm run --silent admin -- <command>
  create-key --org <name> --workspace <name> [--kind organization|restricted] [--scopes a,b]
  revoke-key <key_id>
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      workspace: { type: 'string' },
      kind: { type: 'string' },
      scopes: { type: 'string' },
      by: { type: 'string' },
    },
  });
  const config = loadConfig();
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
        if (kind === 'organization' && values.scopes) {
          throw new UsageError('--scopes applies to restricted keys; organization keys have every scope');
        }
        print(await createKey(pool, { organization: required(values, 'org'), workspace: required(values, 'workspace'), kind, scopes }));
        return 0;
      }
      case 'revoke-key': {
        const keyId = positionals[0];
        if (!keyId) throw new UsageError('revoke-key needs a key_id');
        const revoked = UUID.test(keyId) && (await revokeKey(pool, keyId));
        if (!revoked) {
          process.stderr.write(`no live key with id ${keyId}\n`);
          return 1;
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
            prefix: k.key_prefix,
            workspace_id: k.workspace_id,
            workspace: k.workspace_name,
            kind: k.kind,
            scopes: k.scopes,
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
        throw new UsageError(command ? `unknown command ${command}` : 'a command is required');
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
    process.stderr.write(`admin: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
