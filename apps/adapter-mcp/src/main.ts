/** Placeholder entry point: adapter-mcp is built by a later issue (see README.md). */
process.stderr.write('adapter-mcp is not built yet; see apps/adapter-mcp/README.md.\n');
process.exit(1);
