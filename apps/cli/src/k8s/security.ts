/** Pod Security Standards `restricted`: what every rendered container and pod carries. */

/** A container securityContext that passes the `restricted` profile. */
export function restrictedContainer(readOnlyRootFilesystem: boolean): Record<string, unknown> {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ["ALL"] },
    readOnlyRootFilesystem,
    runAsNonRoot: true,
    seccompProfile: { type: "RuntimeDefault" },
  };
}

/**
 * A pod securityContext for `restricted`; `runAsUser` is numeric because kubelet cannot check that a named
 * image user is non-root (Thaw's images run as 1000).
 */
export function restrictedPod(runAsUser: number | undefined): Record<string, unknown> {
  return {
    ...(runAsUser !== undefined ? { runAsGroup: runAsUser, runAsUser } : {}),
    runAsNonRoot: true,
    seccompProfile: { type: "RuntimeDefault" },
  };
}

/** A writable /tmp for containers whose root filesystem is read-only. */
export const TMP_VOLUME = { name: "tmp", emptyDir: {} } as const;
/** The mount of {@link TMP_VOLUME}. */
export const TMP_MOUNT = { name: "tmp", mountPath: "/tmp" } as const;
