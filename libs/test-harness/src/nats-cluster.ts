/** A three-node nats-server cluster with JetStream on loopback, for tests of node loss. */
import { freePort } from './ports';
import { type NatsServerHandle, startNatsServer } from './nats';

/** A running cluster; each node can be killed and restarted on its port and store. */
export interface NatsClusterHandle {
  readonly nodes: NatsServerHandle[];
  /** Every node's client URL, comma-separated (what NATS_URL takes). */
  readonly urls: string;
  /** Server names, by index (`n0`, `n1`, …), as JetStream reports leaders. */
  readonly names: string[];
  dispose(): Promise<void>;
}

/**
 * Starts `size` nats-servers (JetStream on, cluster `toolhub`, routes to each other) on free
 * loopback ports. JetStream needs a quorum, so the cluster serves streams once two of three run.
 * @throws Error when nats-server is missing or a node does not start.
 */
export async function startNatsCluster(size = 3): Promise<NatsClusterHandle> {
  const clusterPorts = await Promise.all(Array.from({ length: size }, () => freePort()));
  const routes = clusterPorts.map((p) => `nats://127.0.0.1:${p}`);
  const names = clusterPorts.map((_, i) => `n${i}`);
  const nodes = await Promise.all(
    clusterPorts.map((cport, i) =>
      startNatsServer({
        args: ['-n', names[i]!, '--cluster_name', 'toolhub', '--cluster', `nats://127.0.0.1:${cport}`, '--routes', routes.filter((_, j) => j !== i).join(',')],
        timeoutMs: 30_000,
      }),
    ),
  );
  return {
    nodes,
    urls: nodes.map((n) => n.url).join(','),
    names,
    dispose: async () => void (await Promise.all(nodes.map((n) => n.dispose()))),
  };
}
