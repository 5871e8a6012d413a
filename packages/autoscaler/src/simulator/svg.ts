import type { SimulationResult } from "./simulate.js";

const W = 960;
const H = 360;
const PAD = { l: 56, r: 56, t: 28, b: 40 };

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

/**
 * Draws replicas (step line, left axis) and concurrency (line, right axis) over time, with panic periods
 * shaded, as a standalone SVG document.
 */
export function renderSvg(r: SimulationResult, title = "thaw-simulate"): string {
  const pts = r.timeline;
  const endMs = Math.max(1, r.endMs, pts.length > 0 ? (pts[pts.length - 1]?.tMs ?? 0) : 0);
  // The axis fits the line drawn: replicas, not the decider's wish (which max-scale may cap far below).
  const maxRep = niceMax(Math.max(1, ...pts.map((p) => p.replicas)));
  const maxConc = niceMax(Math.max(1, ...pts.map((p) => p.concurrency)));
  const pw = W - PAD.l - PAD.r;
  const ph = H - PAD.t - PAD.b;
  const x = (t: number) => (PAD.l + (t / endMs) * pw).toFixed(1);
  const yRep = (v: number) => (PAD.t + ph - (v / maxRep) * ph).toFixed(1);
  const yConc = (v: number) => (PAD.t + ph - (v / maxConc) * ph).toFixed(1);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${PAD.l}" y="16" font-size="13">${esc(title)}</text>`);
  for (const p of r.panicPeriods) {
    const x0 = Number(x(p.startMs));
    const x1 = Math.max(x0 + 1, Number(x(p.endMs)));
    out.push(`<rect x="${x0}" y="${PAD.t}" width="${(x1 - x0).toFixed(1)}" height="${ph}" fill="#f8d7d0"/>`);
  }
  for (let i = 0; i <= 4; i++) {
    const y = PAD.t + (ph * i) / 4;
    out.push(`<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    out.push(
      `<text x="${PAD.l - 6}" y="${y + 4}" text-anchor="end" fill="#1f5fbf">${(maxRep * (1 - i / 4)).toFixed(maxRep < 4 ? 1 : 0)}</text>`,
    );
    out.push(
      `<text x="${W - PAD.r + 6}" y="${y + 4}" fill="#c0591b">${(maxConc * (1 - i / 4)).toFixed(maxConc < 4 ? 1 : 0)}</text>`,
    );
  }
  for (let i = 0; i <= 5; i++) {
    const t = (endMs * i) / 5;
    out.push(`<text x="${x(t)}" y="${H - PAD.b + 16}" text-anchor="middle">${(t / 1000).toFixed(0)}s</text>`);
  }
  if (pts.length > 0) {
    let conc = "";
    let rep = "";
    let prevY = "";
    for (const p of pts) {
      conc += `${conc ? "L" : "M"}${x(p.tMs)},${yConc(p.concurrency)}`;
      const y = yRep(p.replicas);
      // A step line: only a change of replicas needs a vertical segment.
      if (!rep) rep = `M${x(p.tMs)},${y}`;
      else if (y !== prevY) rep += `H${x(p.tMs)}V${y}`;
      prevY = y;
    }
    rep += `H${x((pts[pts.length - 1] as { tMs: number }).tMs)}`;
    out.push(`<path d="${conc}" fill="none" stroke="#c0591b" stroke-width="1.2"/>`);
    out.push(`<path d="${rep}" fill="none" stroke="#1f5fbf" stroke-width="2"/>`);
  }
  out.push(`<line x1="${PAD.l}" x2="${PAD.l}" y1="${PAD.t}" y2="${PAD.t + ph}" stroke="#333"/>`);
  out.push(`<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${PAD.t + ph}" y2="${PAD.t + ph}" stroke="#333"/>`);
  out.push(
    `<text x="${W - PAD.r}" y="16" text-anchor="end"><tspan fill="#1f5fbf">■ replicas</tspan>  <tspan fill="#c0591b">■ concurrency</tspan>  <tspan fill="#e0a090">■ panic</tspan></text>`,
  );
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
