import { systemClock } from "@thaw/clock";
import type { EndpointPod } from "@thaw/kubernetes";
import { EndpointSliceHub, kubeConfigFor } from "@thaw/kubernetes/node";
import { EmulatedApiServer, endpointSlice, waitFor } from "@thaw/kubernetes/node/testing";

// An emulated API server on loopback (no real cluster here), holding the EndpointSlice of Service
// `hello`: one ready pod, one still starting.
const api = new EmulatedApiServer();
await api.start();
const slice = (bReady: boolean) =>
  endpointSlice({
    service: "hello",
    port: 8012,
    endpoints: [
      { ip: "10.0.0.5", pod: "hello-a", ready: true },
      { ip: "10.0.0.6", pod: "hello-b", ready: bReady },
    ],
  });
api.apply("endpointslices", "default", slice(false));

// Follow the Service: one informer (list, then watch) however many subscribers; pods merged per pod.
const hub = new EndpointSliceHub({
  kubeConfig: kubeConfigFor({ server: api.url }),
  clock: systemClock,
  random: Math.random,
});
let pods: EndpointPod[] = [];
const stop = hub.subscribePods({ namespace: "default", service: "hello", portName: "http" }, (p) => {
  pods = p;
});
const ready = () =>
  pods
    .filter((p) => p.routable)
    .map((p) => `${p.name} ${p.address}`)
    .join(", ");
await waitFor(() => pods.length === 2, "the listed slice");
console.log(`ready: ${ready()}`); // → ready: hello-a 10.0.0.5:8012

// The kubelet reports hello-b ready: the watch brings the change.
api.apply("endpointslices", "default", slice(true));
await waitFor(() => pods.every((p) => p.routable), "hello-b ready");
console.log(`ready: ${ready()}`); // → ready: hello-a 10.0.0.5:8012, hello-b 10.0.0.6:8012

stop();
hub.close();
await api.close();
