import { createServer } from 'node:net';
import { loadCatalog } from '../gateway/catalog.js';
import { configOrExit, EX_CONFIG } from '../process.js';

// `npm start` runs this before anything starts: the environment, the catalogue and the port are
// checked once, and a mistake is one plain message and a stop, rather than web and worker
// restarting on it (or a second worker beside the first npm start's).
function fail(message: string): never {
  process.stderr.write(`polder: cannot start: ${message}\n`);
  process.exit(EX_CONFIG);
}

const config = configOrExit();
try {
  loadCatalog({ file: config.catalogFile });
} catch (err) {
  fail((err as Error).message);
}

/** Whether the port can be listened on as web does (every address), or why not. */
function listenable(port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen(port, () => server.close(() => resolve(undefined)));
  });
}

/** Whether what holds the port answers as a Polder web does (GET /healthz → {"status":"ok"}). */
async function isPolderWeb(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
    const body = (await response.json()) as { status?: unknown };
    return response.status === 200 && body.status === 'ok';
  } catch {
    return false;
  }
}

for (const [name, port] of [['PORT', config.port], ['METRICS_PORT', config.metricsPort]] as const) {
  if (port === undefined) continue;
  const err = await listenable(port);
  if (!err) continue;
  if (err.code === 'EADDRINUSE' && name === 'PORT' && (await isPolderWeb(port))) {
    fail(`a Polder web is already listening on port ${port} (another npm start?); stop it, or set PORT to a free port`);
  }
  if (err.code === 'EADDRINUSE') fail(`port ${port} (${name}) is already in use by another program; stop it, or set ${name} to a free port`);
  fail(`cannot listen on port ${port} (${name}): ${err.code ?? err.message}`);
}
