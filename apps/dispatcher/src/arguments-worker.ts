/**
 * Entry of the dispatcher's argument-validation worker threads. `scripts/build.mjs` bundles every
 * `src/*-worker.ts` beside `main.js`, where ArgumentWorkerPool looks for `arguments-worker.js`.
 */
import { runArgumentsWorker } from '@toolhub/dispatcher-core';

runArgumentsWorker();
