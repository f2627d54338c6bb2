/**
 * Entry of the local tools' worker threads. `scripts/build.mjs` bundles every `src/*-worker.ts`
 * beside `main.js`, where ToolWorkerPool looks for `local-tools-worker.js`.
 */
import { runToolWorker } from '@toolhub/local-tools';

runToolWorker();
