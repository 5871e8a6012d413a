import { type ControlPlane, type ControlPlaneOptions, startControlPlane } from "../control-plane.js";
import { createNodeNetwork, type NodeNetwork } from "./netns.js";
import { type Node, startNode } from "./node.js";

/** A control plane and one real node, joined over the node's network namespace. */
export interface NodeCluster {
  readonly controlPlane: ControlPlane;
  readonly node: Node;
  readonly net: NodeNetwork;
  /** Milliseconds to the control plane ready, then to the node Ready. */
  readonly startMs: { controlPlane: number; node: number };
  /** Stops the node, then the control plane, then removes the namespace. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Makes the node's namespace first (its host end is where the API server binds, so pods and the
 * kubelet reach it), starts the control plane on it with the node's pod range as the cluster CIDR,
 * then the node. A failure at any step stops what already runs and removes the namespace.
 */
export async function startNodeCluster(
  o: Omit<ControlPlaneOptions, "bindAddress" | "clusterCidr"> = {},
): Promise<NodeCluster> {
  const net = createNodeNetwork();
  let controlPlane: ControlPlane | undefined;
  let node: Node | undefined;
  const stop = async () => {
    await node?.stop();
    await controlPlane?.stop();
    net.remove();
  };
  try {
    const t0 = Date.now();
    controlPlane = await startControlPlane({ ...o, bindAddress: net.hostIp, clusterCidr: net.podCidr });
    const t1 = Date.now();
    node = await startNode({
      controlPlane,
      net,
      ...(o.serviceCidr ? { serviceCidr: o.serviceCidr } : {}),
      ...(o.keep ? { keep: true } : {}),
    });
    const startMs = { controlPlane: t1 - t0, node: Date.now() - t1 };
    return { controlPlane, node, net, startMs, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
