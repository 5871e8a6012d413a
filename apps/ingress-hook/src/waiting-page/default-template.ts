import { parseTemplate, type Template } from "./template.js";

/** The built-in waiting page: small, accessible, no outside assets; light and dark by the user's setting. */
const DEFAULT_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{service}} is starting</title>
{{refresh}}
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; }
  main { max-width: 32rem; padding: 2rem; text-align: center; }
  h1 { font-size: 1.5rem; margin: 0 0 1rem; }
  .spinner { width: 2.5rem; height: 2.5rem; margin: 0 auto 1.5rem; border-radius: 50%;
    border: .3rem solid currentColor; border-right-color: transparent; animation: spin 1s linear infinite; }
  @keyframes spin { to { transform: rotate(1turn); } }
  @media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
</style>
</head>
<body>
<main>
  <div class="spinner" aria-hidden="true"></div>
  <h1>{{service}} is starting</h1>
  <p>It was asleep to save resources and usually takes {{expected}} to wake up. This page reloads by itself once it is ready.</p>
  <p id="thaw-status" role="status" aria-live="polite">Starting.</p>
</main>
{{script}}
</body>
</html>
`;

const parsed = parseTemplate(DEFAULT_HTML);
if (!parsed.ok) throw new Error(`the built-in waiting page does not parse: ${parsed.error}`);

/** The built-in template, parsed. */
export const DEFAULT_TEMPLATE: Template = parsed.template;
