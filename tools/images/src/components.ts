/** The images Thaw ships: one per component, each built from infra/docker/<name>.Dockerfile. */
export interface Component {
  /** Image name and Dockerfile name. */
  name: string;
  /** Workspace folder whose package.json gives the version (the image tag) and the run-time tree. */
  workspace: string;
  /** False for an image that takes its files straight from the context (no build stage). */
  built: boolean;
}

/** Every component image, in build order. */
export const COMPONENTS: readonly Component[] = [
  { name: "queue-proxy", workspace: "apps/queue-proxy", built: true },
  { name: "activator", workspace: "apps/activator", built: true },
  { name: "autoscaler", workspace: "apps/autoscaler", built: true },
  { name: "ingress-hook", workspace: "apps/ingress-hook", built: true },
  { name: "cli", workspace: "apps/cli", built: true },
  { name: "example-hello", workspace: "examples/hello", built: false },
];
