import { type Browser, chromium } from "playwright-core";

// As root there is no sandbox, and on a closed network no background networking, updates or sync.
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Launches the machine's Chromium (/usr/bin/chromium, the Debian package .ci/run installs) headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: FLAGS });
}
