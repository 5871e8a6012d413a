import { request } from "node:http";

/**
 * The Docker Engine API subset the container scaler uses, over the engine's unix socket with node:http (no
 * client library: the dozen calls below are plain JSON over HTTP/1.1, and Docker's and Podman's clients
 * pull in far more than they would do here). Podman serves the same API with `podman system service`.
 * Paths are unversioned: both engines answer them with their current API version.
 */
export interface ContainerSummary {
  Id: string;
  Names: string[];
  Labels: Record<string, string> | null;
  State: string;
}

/** The fields of `GET /containers/{id}/json` the scaler reads (the whole body is kept to create replicas). */
export interface ContainerInspect {
  Id: string;
  Name: string;
  State: { Status: string; Running: boolean; Pid: number; ExitCode: number; Health?: { Status: string } };
  Config: {
    Labels: Record<string, string> | null;
    Env: string[] | null;
    StopSignal?: string;
    StopTimeout?: number;
    Healthcheck?: unknown;
    [k: string]: unknown;
  };
  HostConfig: { NetworkMode?: string; [k: string]: unknown };
  NetworkSettings?: { Ports?: Record<string, { HostIp: string; HostPort: string }[] | null> | null };
}

/** An engine answer other than 2xx: its status and the engine's own message. */
export class EngineError extends Error {
  readonly code = "ENGINE_API";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Bound on a response body read into memory (inspect bodies are a few KB). */
const MAX_BODY = 4 * 1024 * 1024;

/** A Docker Engine API client on one unix socket. */
export class EngineClient {
  constructor(readonly socketPath: string) {}

  /** `GET /_ping`: rejects when nothing answers on the socket. */
  async ping(): Promise<void> {
    await this.#call("GET", "/_ping");
  }

  /** Containers, stopped ones included, matching every `label` filter (`key` or `key=value`). */
  list(labels: readonly string[] = []): Promise<ContainerSummary[]> {
    const filters = encodeURIComponent(JSON.stringify({ label: labels }));
    return this.#json("GET", `/containers/json?all=true&filters=${filters}`) as Promise<ContainerSummary[]>;
  }

  /** The container, or undefined when the engine has none by that name or id. */
  async inspect(idOrName: string): Promise<ContainerInspect | undefined> {
    try {
      return (await this.#json(
        "GET",
        `/containers/${encodeURIComponent(idOrName)}/json`,
      )) as ContainerInspect;
    } catch (e) {
      if (e instanceof EngineError && e.status === 404) return undefined;
      throw e;
    }
  }

  /** True when the engine has the image `ref` (`GET /images/{name}/json`). */
  async hasImage(ref: string): Promise<boolean> {
    try {
      await this.#call("GET", `/images/${encodeURIComponent(ref)}/json`);
      return true;
    } catch (e) {
      if (e instanceof EngineError && e.status === 404) return false;
      throw e;
    }
  }

  /** Starts it (304, already running, is fine). */
  async start(id: string): Promise<void> {
    await this.#call("POST", `/containers/${encodeURIComponent(id)}/start`, undefined, [304]);
  }

  /** Stops it with its own stop signal, then SIGKILL after its own stop timeout (no `t` given). */
  async stop(id: string): Promise<void> {
    await this.#call("POST", `/containers/${encodeURIComponent(id)}/stop`, undefined, [304]);
  }

  /** Creates a container from a create body (`Config` fields plus `HostConfig`); resolves with its id. */
  async create(name: string, body: Record<string, unknown>): Promise<string> {
    const out = (await this.#json("POST", `/containers/create?name=${encodeURIComponent(name)}`, body)) as {
      Id: string;
    };
    return out.Id;
  }

  /** Removes it, stopping it first if it still runs. */
  async remove(id: string): Promise<void> {
    await this.#call("DELETE", `/containers/${encodeURIComponent(id)}?force=true`, undefined, [404]);
  }

  /** Resolves with the exit code once the container is no longer running. */
  async wait(id: string): Promise<number> {
    const out = (await this.#json(
      "POST",
      `/containers/${encodeURIComponent(id)}/wait?condition=not-running`,
    )) as {
      StatusCode: number;
    };
    return out.StatusCode;
  }

  /**
   * Runs `cmd` in the running container (the exec API) and resolves with its exit code once it ended.
   * Attached, not detached: Podman 4.3 never marks a detached exec as ended; the start call's answer
   * ends with the command.
   */
  async exec(id: string, cmd: readonly string[]): Promise<number | undefined> {
    const made = (await this.#json("POST", `/containers/${encodeURIComponent(id)}/exec`, {
      Cmd: cmd,
      // Podman refuses an attached start with no stream; the output is read (bounded) and dropped.
      AttachStdout: true,
      AttachStderr: true,
    })) as { Id: string };
    const exec = `/exec/${encodeURIComponent(made.Id)}`;
    await this.#call("POST", `${exec}/start`, { Detach: false, Tty: false });
    const state = (await this.#json("GET", `${exec}/json`)) as { ExitCode: number | null };
    return state.ExitCode ?? undefined;
  }

  async #json(method: string, path: string, body?: unknown): Promise<unknown> {
    const text = await this.#call(method, path, body);
    return JSON.parse(text);
  }

  #call(method: string, path: string, body?: unknown, okAlso: readonly number[] = []): Promise<string> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          socketPath: this.socketPath,
          method,
          path,
          headers: {
            host: "engine",
            ...(payload
              ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
              : {}),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            text += c;
            if (text.length > MAX_BODY)
              res.destroy(new Error(`engine answer to ${method} ${path} is too large`));
          });
          res.on("error", reject);
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            if ((status >= 200 && status < 300) || okAlso.includes(status)) return resolve(text);
            let message = text.trim();
            try {
              message = (JSON.parse(text) as { message?: string }).message ?? message;
            } catch {}
            reject(new EngineError(status, `${method} ${path}: ${status} ${message}`));
          });
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  }
}
