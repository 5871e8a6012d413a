import { DEFAULT_TEMPLATE } from "./default-template.js";
import { renderTemplate, type Template } from "./template.js";

/** Request header the page's script polls with; the hook answers it and never passes it to the app. */
export const POLL_HEADER = "x-thaw-wait";
/** The poll's value of {@link POLL_HEADER}; the hook's "still starting" answer carries `waiting`. */
export const POLL_VALUE = "poll";

/** What the page says about the revision. */
export interface PageFacts {
  service: string;
  namespace: string;
  /** Measured expected start (ms); undefined before any cold start was measured. */
  expectedMs: number | undefined;
  retryAfterSeconds: number;
}

/**
 * The page for a person whose request is held: 503 (so crawlers and caches do not keep it) with
 * Retry-After and `Cache-Control: no-store`; HEAD gets the head only.
 */
export function waitingPageResponse(method: string, facts: PageFacts, template?: Template): Response {
  const retry = String(facts.retryAfterSeconds);
  // Without JavaScript the page reloads itself; never sooner than 2 s, so a page that finds the service
  // still starting is not reloaded in a tight loop.
  const refresh = `<noscript><meta http-equiv="refresh" content="${Math.max(2, facts.retryAfterSeconds)}"></noscript>`;
  const html = renderTemplate(template ?? DEFAULT_TEMPLATE, {
    text: {
      service: facts.service,
      namespace: facts.namespace,
      expected: expectedText(facts.expectedMs),
      retryAfter: retry,
    },
    html: { refresh, script: pageScript(facts.expectedMs) },
  });
  const headers = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "retry-after": retry,
    // Only the page's own inline script and style; nothing from elsewhere, nothing framed.
    "content-security-policy":
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
    "x-thaw-wait": "page",
  };
  return new Response(method === "HEAD" ? null : html, { status: 503, headers });
}

/** The poll's answer while the revision is still starting: 503 marked `waiting`, never cached. */
export function pollWaitingResponse(facts: PageFacts): Response {
  const body = JSON.stringify({ ready: false, expectedMs: facts.expectedMs ?? null });
  return new Response(body, {
    status: 503,
    headers: {
      "content-type": "application/json",
      "cache-control": "no-store",
      "retry-after": String(facts.retryAfterSeconds),
      [POLL_HEADER]: "waiting",
    },
  });
}

/** The poll's answer once the revision is ready: anything but `waiting` makes the page reload. */
export function pollReadyResponse(): Response {
  return new Response(JSON.stringify({ ready: true }), {
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "no-store", [POLL_HEADER]: "ready" },
  });
}

function expectedText(ms: number | undefined): string {
  return ms === undefined ? "a few seconds" : `about ${Math.max(1, Math.ceil(ms / 1000))} s`;
}

/**
 * The page's script: long-polls its own URL with the poll header (the hook holds each poll until the
 * revision is ready or ~15 s passed) and reloads the page on any answer but "waiting"; shows the time
 * waited in #thaw-status, an aria-live region. Only a number is interpolated.
 */
function pageScript(expectedMs: number | undefined): string {
  const expected = expectedMs === undefined ? "null" : String(Math.round(expectedMs));
  return `<script>
(function () {
  var status = document.getElementById("thaw-status");
  var expected = ${expected};
  var began = Date.now();
  function show() {
    if (!status) return;
    var s = Math.round((Date.now() - began) / 1000);
    status.textContent = "Starting: " + s + " s" + (expected === null ? "" : " of about " + Math.ceil(expected / 1000) + " s") + ".";
  }
  var ticker = setInterval(show, 1000);
  function poll() {
    fetch(location.href, { headers: { "${POLL_HEADER}": "${POLL_VALUE}" }, cache: "no-store", credentials: "same-origin" }).then(
      function (r) {
        if (r.headers.get("${POLL_HEADER}") === "waiting") { setTimeout(poll, 100); return; }
        clearInterval(ticker);
        if (status) status.textContent = "Ready. Loading the page.";
        location.reload();
      },
      function () { setTimeout(poll, 1000); }
    );
  }
  poll();
})();
</script>`;
}
