/**
 * The dashboard's browser script (plain ES5, no build step): follows `/_thaw/api/stream`, keeps the last
 * 10 minutes of samples, and draws the table, the uPlot chart, the scale events and the cold-start
 * timelines. `window.thawDashboard` holds the data the page shows (people debugging, the browser test).
 */
export const DASHBOARD_SCRIPT = `(function () {
  "use strict";
  var WINDOW_MS = 600000;
  var PHASES = [
    ["queued", "queued"], ["scaleDecision", "scale decision"], ["podCreated", "pod created"],
    ["podScheduled", "scheduled"], ["sandboxReady", "sandbox ready"], ["podStarted", "pod process started"],
    ["firstReady", "first ready probe"], ["endpointsReady", "in endpoints"], ["firstByte", "first byte"]
  ];
  var state = { samples: [], scales: [], coldStarts: [], selected: null, paused: false, connected: false };
  window.thawDashboard = state;
  function $(id) { return document.getElementById(id); }
  var conn = $("conn"), rows = $("rows"), pick = $("revision"), pause = $("pause");
  var scaleList = $("scale-events"), coldList = $("cold-starts"), chartEl = $("chart");
  var chart = null, pending = false;

  function num(n) { return n === null || n === undefined ? "\\u2013" : Number.isInteger(n) ? String(n) : n.toFixed(2); }
  function keyOf(r) { return r.namespace + "/" + r.revision; }
  function clock(t) { return new Date(t).toISOString().slice(11, 19); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function latest() { return state.samples.length ? state.samples[state.samples.length - 1] : null; }

  /** [seconds[], stable[], panic[], desired[], ready[]] of the selected revision (uPlot's data layout). */
  state.chartData = function () {
    var xs = [], stable = [], panic = [], desired = [], ready = [];
    state.samples.forEach(function (s) {
      var r = s.revisions.find(function (x) { return keyOf(x) === state.selected; });
      if (!r) return;
      xs.push(s.t / 1000); stable.push(r.stableConcurrency); panic.push(r.panicConcurrency);
      desired.push(r.desired); ready.push(r.ready);
    });
    return [xs, stable, panic, desired, ready];
  };

  function renderTable(s) {
    rows.textContent = "";
    if (!s || s.revisions.length === 0) {
      var tr0 = el("tr"); var td0 = el("td", "no revisions", "cold"); td0.colSpan = 11;
      tr0.appendChild(td0); rows.appendChild(tr0); return;
    }
    s.revisions.forEach(function (r) {
      var tr = el("tr");
      tr.setAttribute("data-revision", keyOf(r));
      tr.appendChild(el("td", keyOf(r), r.ready === 0 ? "cold" : ""));
      tr.appendChild(el("td", String(r.ready), "num"));
      tr.appendChild(el("td", String(r.desired), "num"));
      var mode = el("td"); mode.appendChild(el("span", r.mode, "mode " + r.mode)); tr.appendChild(mode);
      tr.appendChild(el("td", r.panic ? "yes" : "no"));
      tr.appendChild(el("td", num(r.stableConcurrency), "num"));
      tr.appendChild(el("td", num(r.panicConcurrency), "num"));
      tr.appendChild(el("td", num(r.target), "num"));
      // Below 0 the pods lack target-burst-capacity's spare room, so the activator stays in the path.
      var ebc = r.excessBurstCapacity;
      tr.appendChild(el("td", ebc + (ebc < 0 ? " (activator in path)" : " (spare)"), "num"));
      tr.appendChild(el("td", num(r.queueDepth), "num"));
      tr.appendChild(el("td", r.lastColdStartMs === null ? "\\u2013" : r.lastColdStartMs + " ms", "num"));
      rows.appendChild(tr);
      // What keeps it warm: the schedule window in force, or a wake hint, with its min-scale.
      var w = r.warm;
      if (w && (w.window || w.hintUntilMs)) {
        var text = w.window
          ? "\u23f0 schedule window " + w.window.name + ": min-scale " + w.window.minScale +
            (w.window.untilMs ? " until " + new Date(w.window.untilMs).toLocaleString() : "")
          : "\u23f0 wake hint: kept at 1 pod until " + new Date(w.hintUntilMs).toLocaleTimeString();
        var wr = el("tr", null, "warm");
        wr.setAttribute("data-warm-of", keyOf(r));
        var wtd = el("td", text); wtd.colSpan = 11;
        wr.appendChild(wtd); rows.appendChild(wr);
      }
      // What is wrong with its pods (the app exited, wrong port, crash loop), right under the revision.
      if (r.podProblem) {
        var pr = el("tr", null, "problem");
        pr.setAttribute("data-problem-of", keyOf(r));
        var ptd = el("td", "\\u26a0 " + r.podProblem); ptd.colSpan = 11; ptd.setAttribute("role", "status");
        pr.appendChild(ptd); rows.appendChild(pr);
      }
    });
  }

  function renderPicker(s) {
    var keys = s ? s.revisions.map(keyOf) : [];
    if (state.selected === null || keys.indexOf(state.selected) === -1) state.selected = keys[0] || null;
    var have = Array.prototype.map.call(pick.options, function (o) { return o.value; });
    if (have.join("\\n") === keys.join("\\n")) return;
    pick.textContent = "";
    keys.forEach(function (k) { var o = el("option", k); o.value = k; pick.appendChild(o); });
    if (state.selected) pick.value = state.selected;
  }

  function renderChart() {
    if (state.paused || typeof uPlot === "undefined") return;
    var data = state.chartData();
    chartEl.setAttribute("aria-label", "chart of observed concurrency, desired and ready pods of " +
      (state.selected || "no revision") + " over the last 10 minutes");
    if (chart) { chart.setData(data); return; }
    var step = uPlot.paths && uPlot.paths.stepped ? uPlot.paths.stepped({ align: 1 }) : undefined;
    chart = new uPlot({
      width: Math.max(200, chartEl.clientWidth), height: 240,
      scales: { x: { time: true } },
      series: [
        {},
        { label: "stable conc.", stroke: "#2747a0", width: 2 },
        { label: "panic conc.", stroke: "#7a3fa0", width: 1 },
        { label: "desired", stroke: "#b35c00", width: 2, dash: [6, 4], paths: step },
        { label: "ready", stroke: "#1f6b35", width: 2, paths: step }
      ],
      axes: [{}, { label: "requests / pods" }]
    }, data, chartEl);
  }

  function renderScales() {
    scaleList.textContent = "";
    if (state.scales.length === 0) { scaleList.appendChild(el("li", "none yet", "muted")); return; }
    state.scales.slice(-50).reverse().forEach(function (e) {
      var li = el("li");
      li.setAttribute("data-revision", e.namespace + "/" + e.revision);
      li.appendChild(el("time", clock(e.t)));
      li.appendChild(el("strong", e.namespace + "/" + e.revision + " " + e.from + " \\u2192 " + e.to));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("span", e.reason, "reason"));
      scaleList.appendChild(li);
    });
  }

  function renderColdStarts() {
    coldList.textContent = "";
    if (state.coldStarts.length === 0) { coldList.appendChild(el("li", "none yet", "muted")); return; }
    state.coldStarts.slice(-10).reverse().forEach(function (c) {
      var li = el("li", null, "cs");
      li.setAttribute("data-id", c.id);
      li.setAttribute("data-revision", c.namespace + "/" + c.revision);
      var head = el("div");
      head.appendChild(el("time", clock(c.startedAt)));
      head.appendChild(el("strong", c.namespace + "/" + c.revision));
      head.appendChild(document.createTextNode(" cold start " + c.totalMs + " ms"));
      li.appendChild(head);
      var names = {}; PHASES.forEach(function (p) { names[p[0]] = p[1]; });
      var bar = el("div", null, "timeline");
      bar.setAttribute("role", "img");
      bar.setAttribute("aria-label", c.phases.map(function (p) { return names[p.phase] + " " + p.ms + " ms"; }).join(", "));
      var legend = el("ol", null, "phases");
      c.phases.forEach(function (p) {
        var seg = el("div", null, "seg p-" + p.phase);
        seg.style.flexGrow = String(Math.max(p.ms, 1));
        seg.title = names[p.phase] + ": " + p.ms + " ms";
        seg.setAttribute("data-phase", p.phase);
        bar.appendChild(seg);
        var item = el("li");
        item.setAttribute("data-phase", p.phase);
        item.appendChild(el("span", null, "swatch p-" + p.phase));
        item.appendChild(document.createTextNode(names[p.phase] + " "));
        item.appendChild(el("b", p.ms + " ms", "ms"));
        legend.appendChild(item);
      });
      li.appendChild(bar);
      li.appendChild(legend);
      coldList.appendChild(li);
    });
  }

  function render() {
    pending = false;
    var s = latest();
    renderPicker(s);
    renderTable(s);
    renderChart();
    renderScales();
    renderColdStarts();
  }
  // A replay brings hundreds of events at once: draw once for all of them.
  function schedule() { if (!pending) { pending = true; setTimeout(render, 30); } }

  pick.addEventListener("change", function () { state.selected = pick.value; renderChart(); });
  pause.addEventListener("click", function () {
    state.paused = !state.paused;
    pause.setAttribute("aria-pressed", String(state.paused));
    pause.textContent = state.paused ? "Resume chart" : "Pause chart";
    renderChart();
  });
  window.addEventListener("resize", function () {
    if (chart) chart.setSize({ width: Math.max(200, chartEl.clientWidth), height: 240 });
  });

  var es = new EventSource("/_thaw/api/stream");
  // Every (re)connect starts with the server's replay: start from empty so nothing is counted twice.
  es.onopen = function () {
    state.samples = []; state.scales = []; state.coldStarts = []; state.connected = true;
    conn.textContent = "live"; conn.className = "";
  };
  es.onerror = function () {
    state.connected = false;
    conn.textContent = "cannot reach the stream, retrying\\u2026"; conn.className = "bad";
  };
  es.addEventListener("sample", function (m) {
    var s = JSON.parse(m.data);
    state.samples.push(s);
    while (state.samples.length && state.samples[0].t < s.t - WINDOW_MS) state.samples.shift();
    schedule();
  });
  es.addEventListener("scale", function (m) {
    state.scales.push(JSON.parse(m.data));
    if (state.scales.length > 200) state.scales.shift();
    schedule();
  });
  es.addEventListener("coldstart", function (m) {
    state.coldStarts.push(JSON.parse(m.data));
    if (state.coldStarts.length > 50) state.coldStarts.shift();
    schedule();
  });
})();`;
