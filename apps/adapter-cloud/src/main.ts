/** Placeholder entry point: adapter-cloud is built by a later issue (see README.md). */
process.stderr.write('adapter-cloud is not built yet; see apps/adapter-cloud/README.md.\n');
process.exit(1);
