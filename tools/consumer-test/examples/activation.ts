import { Breaker, QueueFullError, SingleFlightActivator, withGate } from "@thaw/activation";
import { ManualClock } from "@thaw/clock/testing";

// A breaker as the queue-proxy keeps one per pod: 1 request at a time, 1 more may wait, the rest get 503.
const breaker = new Breaker({ maxConcurrency: 1, queueDepth: 1, initialCapacity: 1 });
let release!: () => void;
const first = withGate(breaker, undefined, () => new Promise<void>((r) => (release = r)));
const second = withGate(breaker, undefined, () => "second ran");
const third = withGate(breaker, undefined, () => "third ran").catch((e: unknown) =>
  e instanceof QueueFullError ? `third refused: ${e.message}` : Promise.reject(e),
);
console.log(await third); // → third refused: pending request queue full
release();
await first;
console.log(await second); // → second ran

// Single-flight activation: many requests for a cold revision, one poke to the scaler.
const clock = new ManualClock(0);
let pokes = 0;
const activator = new SingleFlightActivator({ clock, poke: () => void pokes++ });
const waits = [1, 2, 3].map(() => activator.wait("default/hello-00001", { timeoutMs: 10_000 }));
await clock.advance(800); // the pod takes 800 ms to start
activator.update("default/hello-00001", ["10.0.0.7:8012"]); // the prober found it ready
const results = await Promise.all(waits);
console.log(`${pokes} poke, ${results.length} requests sent to ${results[0]?.endpoints.join(",")}`); // → 1 poke, 3 requests sent to 10.0.0.7:8012
console.log(`cold start waited ${results[0]?.waitedMs} ms`); // → cold start waited 800 ms
