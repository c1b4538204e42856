import type { RouterMiddleware } from '@koa/router';
import type { Next } from 'koa';
import { validationFailed } from '../errors.js';
import type { Scope } from '../tenancy/scopes.js';
import { requireScope } from './middleware/auth.js';
import { jsonBody } from './middleware/body.js';
import type { AppContext, AppRouter, AppState } from './state.js';
import type { OperationInfo, Validator } from './validation.js';

// Every HTTP operation is declared once, in spec/openapi.yaml: its method, path, scope, body and
// query schemas reach the router from there (x-operations, written by `npm run gen`), so a route
// cannot disagree with the spec. A route file names the operationId and gives the handler.

export type Handler = RouterMiddleware<AppState>;

export interface OperationOptions {
  /** Checks that run after the scope and before the body is read (e.g. organization keys only). */
  guard?: Handler[];
  /** Messages that replace the generic one of a field failing body validation. */
  bodyHints?: Record<string, string>;
}

/** Registers the spec's operations on one router (the `/v1` one, or the open one outside it). */
export class Operations {
  private readonly registered = new Set<string>();

  constructor(
    private readonly router: AppRouter,
    private readonly validator: Validator,
    private readonly bodyLimitBytes: number,
    /** What the router itself prefixes (`/v1`), taken off each operation's full path. */
    private readonly prefix = '',
  ) {}

  /** The operation `operationId`: the spec's scope, query and body checks, then `handlers`. */
  add(operationId: string, ...rest: [OperationOptions, ...Handler[]] | Handler[]): void {
    const options: OperationOptions = typeof rest[0] === 'function' ? {} : (rest.shift() as OperationOptions);
    const handlers = rest as Handler[];
    const operation = this.operation(operationId);
    const chain: Handler[] = [];
    if (operation.scope !== null) chain.push(requireScope(operation.scope as Scope));
    chain.push(...(options.guard ?? []));
    if (operation.query) chain.push(this.validator.query(operation.query));
    if (operation.body) chain.push(...this.bodyChecks(operation, options.bodyHints));
    this.router.register(koaPath(operation.fullPath.slice(this.prefix.length)), [operation.method], [...chain, ...handlers]);
  }

  private operation(operationId: string): OperationInfo {
    const operation = Object.hasOwn(this.validator.operations, operationId) ? this.validator.operations[operationId] : undefined;
    if (!operation) throw new Error(`operation ${operationId} is not in spec/openapi.yaml (run npm run gen after adding it)`);
    if (!operation.fullPath.startsWith(this.prefix)) throw new Error(`operation ${operationId} (${operation.fullPath}) is not under ${this.prefix}`);
    if (this.registered.has(operationId)) throw new Error(`operation ${operationId} has a route already`);
    this.registered.add(operationId);
    return operation;
  }

  private bodyChecks(operation: OperationInfo, hints: Record<string, string> = {}): Handler[] {
    const schema = operation.body!;
    if (operation.bodyRequired) return [jsonBody(this.bodyLimitBytes), this.validator.body(schema, hints)];
    // An optional body is checked only when one was sent.
    const validateIfSent = async (ctx: AppContext, next: Next): Promise<void> => {
      if (ctx.state.body !== undefined) {
        const errors = this.validator.check(schema, ctx.state.body);
        if (errors) throw validationFailed(errors);
      }
      await next();
    };
    return [jsonBody(this.bodyLimitBytes, { optional: true }), validateIfSent];
  }
}

/** `/keys/{id}` → `/keys/:id`. */
function koaPath(specPath: string): string {
  return specPath.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}
