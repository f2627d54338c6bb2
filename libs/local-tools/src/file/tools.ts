/** The file category: file_read, file_list, file_stat and (unless read-only) file_write. */
import type { ToolDefinition } from '@toolhub/adapter-sdk';

import { fileListTool } from './list';
import { type FileToolsOptions, withFileDefaults } from './options';
import { fileReadTool } from './read';
import { RootQuota } from './quota';
import { Sandbox } from './sandbox';
import { fileStatTool } from './stat';
import { fileWriteTool } from './write';

/**
 * The file tools, confined to `options.root`. The root is resolved (through symbolic links) on
 * every call, so it may be created or remounted after the tools are.
 * @throws LocalToolsError invalid_options for a missing root or bad limits.
 */
export function createFileTools(options: FileToolsOptions): ToolDefinition[] {
  const resolved = withFileDefaults(options);
  const sandbox = new Sandbox(resolved.root);
  const tools = [fileReadTool(sandbox, resolved), fileListTool(sandbox, resolved), fileStatTool(sandbox)];
  if (resolved.allowWrite) tools.push(fileWriteTool(sandbox, resolved, new RootQuota(resolved.maxRootBytes, resolved.maxRootFiles)));
  return tools;
}
