import { DASHBOARD_SCRIPT } from "./page-script.js";

/**
 * `GET /_thaw/`: the live dashboard, one HTML page with no external request: uPlot comes from
 * `/_thaw/assets/` and every figure from the SSE stream `/_thaw/api/stream` (docs/dashboard.md).
 */
export function dashboardPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Thaw dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/_thaw/assets/uplot.css">
<style>
  * { box-sizing: border-box; }
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2430; }
  h1 { font-size: 1.3rem; margin: 0 0 .2rem; }
  h2 { font-size: 1.05rem; margin: 1.2rem 0 .5rem; }
  p.sub { color: #5b6576; margin: 0 0 .8rem; }
  :focus-visible { outline: 3px solid #2747a0; outline-offset: 2px; }
  .wrap { overflow-x: auto; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .3rem .55rem; border-bottom: 1px solid #dde2ea; white-space: nowrap; }
  th { font-weight: 600; color: #5b6576; }
  td.num { font-variant-numeric: tabular-nums; text-align: right; }
  .mode { padding: .05rem .45rem; border-radius: .6rem; font-size: .85em; }
  .proxy { background: #e8eefc; color: #2747a0; }
  .serve { background: #e3f5e8; color: #1f6b35; }
  .cold, .muted { color: #5b6576; }
  tr.problem td { color: #8a1f11; background: #fdecea; white-space: normal; }
  .controls { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; margin: .4rem 0; }
  select, button { font: inherit; padding: .25rem .5rem; }
  .layout { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 1.2rem; }
  #chart { min-height: 260px; width: 100%; overflow: hidden; }
  ol.events { list-style: none; margin: 0; padding: 0; max-height: 300px; overflow-y: auto; }
  ol.events li { padding: .3rem 0; border-bottom: 1px solid #eef1f5; overflow-wrap: anywhere; }
  ol.events time, .cs time { color: #5b6576; font-variant-numeric: tabular-nums; margin-right: .4rem; }
  ol.cold-starts { list-style: none; margin: 0; padding: 0; }
  .cs { margin: 0 0 1rem; }
  .timeline { display: flex; height: 1.1rem; border-radius: .2rem; overflow: hidden; background: #eef1f5; margin: .3rem 0; }
  .seg { min-width: 4px; }
  ol.phases { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: .2rem .9rem; }
  .swatch { display: inline-block; width: .7rem; height: .7rem; border-radius: .15rem; margin-right: .3rem; vertical-align: -.05rem; }
  .p-queued { background: #8a94a6; } .p-scaleDecision { background: #b35c00; } .p-podStarted { background: #7a3fa0; }
  .p-firstReady { background: #1f6b35; } .p-firstByte { background: #2747a0; }
  .p-podCreated { background: #a0522d; } .p-podScheduled { background: #8b6f00; } .p-sandboxReady { background: #5a4a8a; }
  .p-endpointsReady { background: #0f6f6f; }
  #conn.bad { color: #a4262c; }
  @media (max-width: 760px) {
    body { margin: .8rem; }
    .layout { grid-template-columns: minmax(0, 1fr); }
  }
</style>
</head>
<body>
<header>
  <h1>Thaw</h1>
  <p class="sub">Revisions scaled by this process. Stream: <span id="conn" role="status" aria-live="polite">connecting…</span></p>
</header>
<main>
<section aria-labelledby="h-revisions">
  <h2 id="h-revisions">Revisions</h2>
  <div class="wrap" tabindex="0" role="region" aria-label="revisions table, scrolls sideways">
  <table>
    <thead><tr>
      <th scope="col">revision</th><th scope="col">ready</th><th scope="col">desired</th><th scope="col">mode</th>
      <th scope="col">panic</th><th scope="col">stable conc.</th><th scope="col">panic conc.</th><th scope="col">target</th>
      <th scope="col"><a href="#excess-burst-note">excess burst</a></th><th scope="col">queue</th><th scope="col">last cold start</th>
    </tr></thead>
    <tbody id="rows"><tr><td colspan="11" class="cold">waiting for the first sample…</td></tr></tbody>
  </table>
  </div>
  <p class="muted" id="excess-burst-note">excess burst: request slots the ready pods have beyond
  target-burst-capacity (pods × per-pod capacity − target-burst-capacity − panic concurrency). Below 0 the
  activator stays in the request path (mode proxy) to spread a burst; at 0 or more, with pods wanted,
  requests go straight to the pods (mode serve).</p>
</section>
<section aria-labelledby="h-chart">
  <h2 id="h-chart">Last 10 minutes</h2>
  <div class="controls">
    <label for="revision">Revision</label>
    <select id="revision" aria-describedby="chart-desc"></select>
    <button type="button" id="pause" aria-pressed="false">Pause chart</button>
  </div>
  <div class="layout">
    <div>
      <div id="chart" role="img" aria-label="chart of observed concurrency, desired and ready pods"></div>
      <p id="chart-desc" class="muted">Observed concurrency (stable and panic windows), desired and ready pods, one sample a second.</p>
    </div>
    <div>
      <h3 id="h-scale" class="muted" style="margin:0 0 .3rem;font-size:.95rem">Scale events</h3>
      <ol id="scale-events" class="events" tabindex="0" aria-labelledby="h-scale"><li class="muted">none yet</li></ol>
    </div>
  </div>
</section>
<section aria-labelledby="h-cold">
  <h2 id="h-cold">Recent cold starts</h2>
  <ol id="cold-starts" class="cold-starts"><li class="muted">none yet</li></ol>
</section>
</main>
<footer><p class="muted">Chart by <a href="/_thaw/assets/uplot-license.txt">uPlot (MIT license)</a>, served by this process.</p></footer>
<script src="/_thaw/assets/uplot.js"></script>
<script>
${DASHBOARD_SCRIPT}
</script>
</body>
</html>
`;
}
