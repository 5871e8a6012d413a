import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The queue-proxy as a container beside the app's (`container.queueProxy: container`): what it is named,
 * labelled and created with. Its attach process is sidecar-main.ts.
 */

/** Label on a queue-proxy container Thaw made: the app container it serves (so a stale one is Thaw's to remove). */
export const SIDECAR_LABEL = "thaw.queue-proxy-of";

/**
 * Environment sidecar-main.ts reads beside ATTACH_ENV's socket, name and replica, and the pod's
 * QUEUE_PROXY_RUNNER_ENV (the queue-proxy's variables, the drain's bound).
 */
export const SIDECAR_ENV = { image: "THAW_QUEUE_PROXY_IMAGE" } as const;

/** Thaw's queue-proxy image as `npm run images` (tools/images) tags it: `localhost/thaw/queue-proxy:<version>`. */
export function defaultQueueProxyImage(): string {
  const require = createRequire(import.meta.url);
  const root = dirname(dirname(require.resolve("@thaw/queue-proxy")));
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  return `localhost/thaw/queue-proxy:${version}`;
}

/** The queue-proxy container of app container `app`: `web-1` → `web-1-queue-proxy`. */
export function sidecarName(app: string): string {
  return `${app}-queue-proxy`;
}

/**
 * The create body of the queue-proxy container of `app` (its id `appId`): the image, Knative's variables,
 * the app's network namespace (`container:<id>`, as the containers of a Kubernetes pod share one), and the
 * restricted profile the Kubernetes render gives it (no capabilities, no privilege gain, read-only root;
 * the image runs as uid 1000). Stopped with SIGTERM, which makes it drain, and killed after `stopTimeoutS`.
 */
export function sidecarBody(o: {
  image: string;
  env: Readonly<Record<string, string>>;
  app: string;
  appId: string;
  stopTimeoutS: number;
}): Record<string, unknown> {
  return {
    Image: o.image,
    Env: Object.entries(o.env).map(([k, v]) => `${k}=${v}`),
    Labels: { [SIDECAR_LABEL]: o.app },
    StopSignal: "SIGTERM",
    StopTimeout: o.stopTimeoutS,
    HostConfig: {
      NetworkMode: `container:${o.appId}`,
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
    },
  };
}
