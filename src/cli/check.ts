import { loadCatalog } from '../gateway/catalog.js';
import { configOrExit, EX_CONFIG } from '../process.js';

// `npm start` runs this before anything starts: the environment and the catalogue are checked
// once, and a mistake is one plain message and a stop, rather than web and worker restarting on it.
const config = configOrExit();
try {
  loadCatalog({ file: config.catalogFile });
} catch (err) {
  process.stderr.write(`polder: cannot start: ${(err as Error).message}\n`);
  process.exit(EX_CONFIG);
}
