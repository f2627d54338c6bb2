/**
 * One agent's tool state in one object: the loaded-tools manager (prefix + discovered tools), the
 * executor, and rendering in every format. An agent loop needs only `tools(format)` before each
 * model request and `execute(call)` for each tool call the model makes.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { type PreloadTool, PreloadFormat } from '@toolhub/contracts';

import type { CallOptions, ToolHubApi } from './client';
import { isToolHubCallError, type ToolHubCallError } from './errors';
import { type ExecutorOptions, type ToolCall, ToolCallExecutor, type ToolCallResult } from './execute';
import { LoadedTools, type LoadedToolsOptions } from './loaded-tools';
import { renderTools, type RenderedTools, type ToolFormat } from './render';

/** Options of {@link AgentToolkit.create}. */
export interface AgentToolkitOptions extends LoadedToolsOptions, Omit<ExecutorOptions, 'loaded'> {
  /**
   * The preload set: `'server'` fetches it with GetPreloadSet (no preload tools when the server does
   * not offer that call yet), or pass the tools yourself. @default 'server'
   */
  preload?: 'server' | readonly PreloadTool[];
}

/** Tools, rendering and execution for one agent (see the module comment). */
export class AgentToolkit {
  private constructor(
    readonly loaded: LoadedTools,
    readonly executor: ToolCallExecutor,
    /**
     * Why the server's preload set could not be fetched (the toolkit then starts with the meta-tools
     * only); undefined when it was fetched or passed in. Recreate the toolkit later to pick it up.
     */
    readonly preloadError?: ToolHubCallError,
  ) {}

  /**
   * Builds the toolkit, fetching the preload set when `preload` is `'server'`.
   * @throws ToolHubCallError when GetPreloadSet fails for any reason but UNIMPLEMENTED (an older
   *   server) or UNAVAILABLE (no registry running, after the client's retries).
   * @throws AgentKitError invalid_options for bad options.
   */
  static async create(api: ToolHubApi, options: AgentToolkitOptions = {}): Promise<AgentToolkit> {
    const { preload = 'server', ...rest } = options;
    let preloadTools: readonly PreloadTool[] = [];
    let preloadError: ToolHubCallError | undefined;
    if (preload === 'server') {
      try {
        preloadTools = (await api.getPreloadSet({ format: PreloadFormat.PRELOAD_FORMAT_COMPACT })).tools;
      } catch (err) {
        // Without a registry (or on an older server) there is no preload set; the meta-tools still
        // reach every tool, so the agent can work while the operator fixes that.
        if (!isToolHubCallError(err) || (err.grpcStatus !== GrpcStatus.UNIMPLEMENTED && err.grpcStatus !== GrpcStatus.UNAVAILABLE)) throw err;
        preloadError = err;
      }
    } else {
      preloadTools = preload;
    }
    const loaded = new LoadedTools(preloadTools, rest);
    return new AgentToolkit(loaded, new ToolCallExecutor(api, { ...rest, loaded }), preloadError);
  }

  /** Every tool to offer the model now: meta-tools, preload set, then discovered tools. */
  tools<F extends ToolFormat>(format: F): RenderedTools<F> {
    return renderTools(this.loaded.tools(), format);
  }

  /** Only the stable prefix (meta-tools + preload set); its fingerprint changes only when the preload set does. */
  prefix<F extends ToolFormat>(format: F): RenderedTools<F> {
    return renderTools(this.loaded.prefix, format);
  }

  /** Executes one tool call of the model; never throws. */
  execute(call: ToolCall, callOptions?: CallOptions): Promise<ToolCallResult> {
    return this.executor.execute(call, callOptions);
  }
}
