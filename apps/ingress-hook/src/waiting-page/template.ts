/**
 * The waiting page's template syntax (docs/waiting-page.md): HTML with `{{name}}` placeholders, spaces
 * inside the braces allowed. `{{` always opens a placeholder; write `&#123;&#123;` for literal braces.
 */
export const PLACEHOLDERS = {
  service: "the service's name (text, escaped)",
  namespace: "the service's namespace (text, escaped)",
  expected:
    'the expected start, e.g. "about 4 s", or "a few seconds" before any was measured (text, escaped)',
  retryAfter: "the expected start in whole seconds, the same as the Retry-After header (number)",
  refresh: "a <noscript> meta refresh that reloads the page after retryAfter seconds without JavaScript",
  script: "the inline script that follows the start, shows it in #thaw-status and reloads once ready",
} as const;

/** A placeholder's name. */
export type PlaceholderName = keyof typeof PLACEHOLDERS;

/** A parsed template: literal HTML and placeholders in order. */
export type Template = readonly (string | { readonly name: PlaceholderName })[];

/** Largest template accepted, in characters: a page of its kind needs a few KiB. */
export const MAX_TEMPLATE_CHARS = 64 * 1024;

/** Parses a template; an error names the line and column and what to change. */
export function parseTemplate(text: string): { ok: true; template: Template } | { ok: false; error: string } {
  if (text.length > MAX_TEMPLATE_CHARS) {
    return { ok: false, error: `is ${text.length} characters; at most ${MAX_TEMPLATE_CHARS} are allowed` };
  }
  const parts: (string | { name: PlaceholderName })[] = [];
  let at = 0;
  for (;;) {
    const open = text.indexOf("{{", at);
    if (open === -1) break;
    const close = text.indexOf("}}", open + 2);
    if (close === -1) {
      return {
        ok: false,
        error: `${where(text, open)}: "{{" is never closed with "}}" (write &#123;&#123; for literal braces)`,
      };
    }
    const name = text.slice(open + 2, close).trim();
    if (!Object.hasOwn(PLACEHOLDERS, name)) {
      const known = Object.keys(PLACEHOLDERS).join(", ");
      return { ok: false, error: `${where(text, open)}: unknown placeholder {{${name}}}; known: ${known}` };
    }
    if (open > at) parts.push(text.slice(at, open));
    parts.push({ name: name as PlaceholderName });
    at = close + 2;
  }
  if (at < text.length) parts.push(text.slice(at));
  return { ok: true, template: parts };
}

/** Fills a template: `text` values are escaped here; `html` values are markup the page built itself. */
export function renderTemplate(
  template: Template,
  values: {
    text: Record<"service" | "namespace" | "expected" | "retryAfter", string>;
    html: Record<"refresh" | "script", string>;
  },
): string {
  return template
    .map((p) => {
      if (typeof p === "string") return p;
      return p.name === "refresh" || p.name === "script"
        ? values.html[p.name]
        : escapeHtml(values.text[p.name]);
    })
    .join("");
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function where(text: string, index: number): string {
  const before = text.slice(0, index).split("\n");
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}
