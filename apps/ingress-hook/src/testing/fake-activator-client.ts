import type { ActivateRequest } from "@thaw/protocol";
import type { ActivationOutcome, ActivatorClient } from "../decision/activator-client.js";

/** An in-memory activator for unit tests: answers are released by the test, calls are counted. */
export class FakeActivatorClient implements ActivatorClient {
  readonly calls: ActivateRequest[] = [];
  #pending: { req: ActivateRequest; resolve: (o: ActivationOutcome) => void }[] = [];

  activate(req: ActivateRequest): Promise<ActivationOutcome> {
    this.calls.push(req);
    return new Promise((resolve) => this.#pending.push({ req, resolve }));
  }

  /** Settles every pending call with `outcome`; returns how many there were. */
  answer(outcome: ActivationOutcome): number {
    const n = this.#pending.length;
    for (const p of this.#pending.splice(0)) p.resolve(outcome);
    return n;
  }
}
