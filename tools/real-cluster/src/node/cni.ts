import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** The CNI network every pod of a node joins: its name, also the bridge's host-local allocation folder. */
export const POD_NETWORK = "thaw-pods";

/**
 * Writes `<confDir>/10-thaw-pods.conflist`: a `cni0` bridge inside the node's namespace, gateway at the
 * pod range's first address, host-local addresses kept under `dataDir` (not the host-wide
 * /var/lib/cni, which other nodes would share). No ipMasq and no portmap: both run the `iptables`
 * command, which this host lacks, and nothing needs them (no host ports; pods talk only inside the
 * namespace's world). The CRI plugin runs the loopback plugin for `lo` on its own.
 */
export function writePodNetwork(confDir: string, podCidr: string, dataDir: string): string {
  const path = join(confDir, "10-thaw-pods.conflist");
  const conf = {
    cniVersion: "1.0.0",
    name: POD_NETWORK,
    plugins: [
      {
        type: "bridge",
        bridge: "cni0",
        isGateway: true,
        ipMasq: false,
        // A pod reaching its own Service lands back on its own port: the bridge must send it back.
        hairpinMode: true,
        ipam: {
          type: "host-local",
          ranges: [[{ subnet: podCidr }]],
          routes: [{ dst: "0.0.0.0/0" }],
          dataDir,
        },
      },
    ],
  };
  writeFileSync(path, `${JSON.stringify(conf, null, 2)}\n`);
  return path;
}
