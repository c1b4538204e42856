/**
 * How long to wait before attempt `failures + 1` at something that depends on the database:
 * doubling from `initialMs` up to `maxMs`, each delay drawn from its upper half. The draw keeps
 * many processes that lost the same database from coming back at the same instant (a reconnect
 * storm on a server that has just recovered); the cap bounds how long a recovered database goes
 * unnoticed.
 */
export function backoffDelay(failures: number, { initialMs, maxMs }: { initialMs: number; maxMs: number }, random = Math.random): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(failures, 30));
  return Math.round(ceiling * (0.5 + random() / 2));
}
