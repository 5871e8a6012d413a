/**
 * Go's strconv parsers as Knative's ConfigMap and annotation readers call them: no trimming, no leniency,
 * so a value Knative refuses is refused here too.
 */

/** The exact set strconv.ParseBool accepts. */
const GO_BOOLS: Readonly<Record<string, boolean>> = {
  "1": true,
  t: true,
  T: true,
  TRUE: true,
  true: true,
  True: true,
  "0": false,
  f: false,
  F: false,
  FALSE: false,
  false: false,
  False: false,
};

/** strconv.ParseBool: one of 1 t T TRUE true True 0 f F FALSE false False, else undefined. */
export function parseGoBool(text: string): boolean | undefined {
  return Object.hasOwn(GO_BOOLS, text) ? GO_BOOLS[text] : undefined;
}

const DECIMAL = /^[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9][0-9_]*)?$/;
const HEX = /^[+-]?0[xX](?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+)[pP][+-]?[0-9][0-9_]*$/;
const SPECIAL = /^(?:[+-]?(?:inf|infinity)|nan)$/i;

/**
 * strconv.ParseFloat(s, 64): decimal and hexadecimal (`0x1p-2`) literals, `_` between digits, `Inf`,
 * `Infinity` and `NaN` in any case; a value that overflows float64 is an error (undefined), as in Go.
 */
export function parseGoFloat(text: string): number | undefined {
  if (SPECIAL.test(text)) {
    const t = text.toLowerCase();
    return t === "nan" ? Number.NaN : t.startsWith("-") ? -Infinity : Infinity;
  }
  let n: number;
  if (HEX.test(text)) {
    if (!underscoresOk(text, true)) return undefined;
    const t = text.replace(/_/g, "");
    const neg = t[0] === "-";
    const body = t.replace(/^[+-]?0[xX]/, "");
    const [mant = "", exp = "0"] = body.split(/[pP]/);
    const [whole = "", fracPart = ""] = mant.split(".");
    const digits = whole + fracPart;
    if (digits === "") return undefined;
    n = Number(BigInt(`0x${digits}`)) * 2 ** (Number(exp) - 4 * fracPart.length);
    if (neg) n = -n;
  } else if (DECIMAL.test(text) && /[0-9]/.test(text.split(/[eE]/)[0] ?? "")) {
    if (!underscoresOk(text, false)) return undefined;
    n = Number(text.replace(/_/g, ""));
  } else return undefined;
  return Number.isFinite(n) ? n : undefined;
}

/** Go's underscoreOK: `_` only between digits (or right after a base prefix), never last. */
function underscoresOk(text: string, hex: boolean): boolean {
  let s = text;
  if (s[0] === "+" || s[0] === "-") s = s.slice(1);
  let saw = "^";
  let i = 0;
  if (hex) {
    i = 2;
    saw = "0";
  }
  for (; i < s.length; i++) {
    const c = (s[i] as string).toLowerCase();
    if ((c >= "0" && c <= "9") || (hex && c >= "a" && c <= "f")) saw = "0";
    else if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
    } else {
      if (saw === "_") return false;
      saw = "!";
    }
  }
  return saw !== "_";
}

/** strconv.ParseInt(s, 10, 32): an optional sign and decimal digits within int32, else undefined. */
export function parseGoInt32(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= -2147483648 && n <= 2147483647 ? n : undefined;
}

/** strconv.Atoi on a 64-bit platform: like {@link parseGoInt32} within int64 (beyond 2^53 the number is rounded). */
export function parseGoInt64(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? Number(n) : undefined;
}

/** Turns a YAML/JSON scalar into the string Knative would have found in a ConfigMap or annotation. */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  return undefined;
}
