import { systemClock } from "@thaw/clock";
import {
  type ActivatorClient,
  hostTableResolver,
  IngressHook,
  type ThawIngressVariables,
  thawIngress,
} from "@thaw/ingress-hook";
import { Hono } from "hono";

// The activator the hook asks for cold revisions. In production: httpActivatorClient({ baseUrl, fetch, clock })
// against @thaw/activator's POST /v1/activate; here an in-memory one that wakes a pod in no time.
let activations = 0;
const activator: ActivatorClient = {
  async activate(req) {
    activations++;
    console.log(`activating ${req.namespace}/${req.name}`);
    return { kind: "ready", endpoints: ["10.0.0.7:8012"], coldStart: true };
  },
};

const hook = new IngressHook({
  clock: systemClock,
  random: Math.random,
  resolvers: [hostTableResolver([{ namespace: "default", name: "hello", hosts: ["hello.localhost"] }])],
  activator,
});

// The gateway declares the variable the middleware sets, so `c.var.thaw` is typed.
const gateway = new Hono<{ Variables: ThawIngressVariables }>();
gateway.use("*", thawIngress({ hook }));
gateway.all("*", (c) => c.text(`${c.var.thaw.key} via ${c.var.thaw.upstream} (warm: ${c.var.thaw.warm})`));

const cold = await gateway.request("http://hello.localhost/"); // → activating default/hello
console.log(await cold.text()); // → default/hello via 10.0.0.7:8012 (warm: false)
const warm = await gateway.request("http://hello.localhost/");
console.log(await warm.text()); // → default/hello via 10.0.0.7:8012 (warm: true)
const unknown = await gateway.request("http://other.localhost/");
console.log(unknown.status, `${activations} activation`); // → 404 1 activation
