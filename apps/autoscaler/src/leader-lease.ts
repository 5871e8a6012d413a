/**
 * The Lease the autoscaler replicas elect their leader on when THAW_LEASE_NAME is unset; `thaw k8s render`
 * reads it too, so the rendered Role grants exactly this Lease.
 */
export const DEFAULT_LEASE_NAME = "thaw-autoscaler";
