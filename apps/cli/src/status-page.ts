/**
 * `GET /_thaw/`: one self-contained HTML page (no external assets) that polls `/_thaw/api/revisions` every
 * second and shows each revision's scale, mode and load, so people can watch a service wake and sleep.
 */
export function statusPage(pollMs = 1000): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Thaw status</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 2rem; color: #1d2430; }
  h1 { font-size: 1.3rem; margin: 0 0 .2rem; }
  p.sub { color: #5b6576; margin: 0 0 1rem; }
  table { border-collapse: collapse; min-width: 48rem; }
  th, td { text-align: left; padding: .35rem .7rem; border-bottom: 1px solid #dde2ea; }
  th { font-weight: 600; color: #5b6576; }
  td.num { font-variant-numeric: tabular-nums; text-align: right; }
  .mode { padding: .05rem .45rem; border-radius: .6rem; font-size: .85em; }
  .proxy { background: #e8eefc; color: #2747a0; }
  .serve { background: #e3f5e8; color: #1f6b35; }
  .cold { color: #8a94a6; }
  #error { color: #a4262c; }
</style>
</head>
<body>
<h1>Thaw</h1>
<p class="sub">Revisions scaled by this process; refreshed every ${Math.round(pollMs / 1000)} s. <span id="error"></span></p>
<table>
  <thead><tr>
    <th>revision</th><th>desired</th><th>ready</th><th>mode</th><th>panic</th>
    <th>stable conc.</th><th>panic conc.</th><th>excess burst</th><th>last cold start</th>
  </tr></thead>
  <tbody id="rows"><tr><td colspan="9" class="cold">loading…</td></tr></tbody>
</table>
<script>
(function () {
  var rows = document.getElementById("rows");
  var error = document.getElementById("error");
  function cell(text, cls) {
    var td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    return td;
  }
  function num(n) { return Number.isInteger(n) ? String(n) : n.toFixed(2); }
  function render(list) {
    rows.textContent = "";
    if (list.length === 0) {
      var tr0 = document.createElement("tr");
      tr0.appendChild(cell("no revisions", "cold"));
      rows.appendChild(tr0);
      return;
    }
    list.forEach(function (r) {
      var tr = document.createElement("tr");
      tr.setAttribute("data-revision", r.namespace + "/" + r.name);
      tr.appendChild(cell(r.namespace + "/" + r.name, r.readyPods === 0 ? "cold" : ""));
      tr.appendChild(cell(String(r.desiredScale), "num"));
      tr.appendChild(cell(String(r.readyPods), "num"));
      var mode = cell("");
      var badge = document.createElement("span");
      badge.className = "mode " + r.mode;
      badge.textContent = r.mode;
      mode.appendChild(badge);
      tr.appendChild(mode);
      tr.appendChild(cell(r.panic ? "yes" : "no"));
      tr.appendChild(cell(num(r.stableConcurrency), "num"));
      tr.appendChild(cell(num(r.panicConcurrency), "num"));
      tr.appendChild(cell(String(r.excessBurstCapacity), "num"));
      tr.appendChild(cell(r.lastColdStartMs === null ? "–" : r.lastColdStartMs + " ms", "num"));
      rows.appendChild(tr);
    });
  }
  function poll() {
    fetch("/_thaw/api/revisions", { cache: "no-store" })
      .then(function (res) { if (!res.ok) throw new Error("HTTP " + res.status); return res.json(); })
      .then(function (list) { error.textContent = ""; render(list); })
      .catch(function (e) { error.textContent = "cannot reach the API: " + e.message; })
      .then(function () { setTimeout(poll, ${pollMs}); });
  }
  poll();
})();
</script>
</body>
</html>
`;
}
