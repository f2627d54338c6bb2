/** Placeholder entry point: registry is built by a later issue (see README.md). */
process.stderr.write('registry is not built yet; see apps/registry/README.md.\n');
process.exit(1);
