/**
 * Test helper: a page in Debian's chromium, driven by playwright-core (which downloads no browser of its own), as a
 * user opens it: from a file:// URL, with no network. Without /usr/bin/chromium it throws and says how to get it: a
 * skipped browser test would let a broken report ship.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";
// Headless as root in a sandbox-less container, and no background traffic: this machine has no network, and
// chromium's own update/sync/QUIC probes would otherwise be refused at every start.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * The page in chromium, as a user opens it: written to `work`, loaded from its file:// URL, its charts drawn.
 * `listen` attaches the page's listeners before it loads (dialogs, errors, requests).
 */
export async function openInChromium(
  work: string,
  html: string,
  listen: (page: Page) => void,
): Promise<{ context: BrowserContext; page: Page }> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} not found: install Debian's chromium (apt-get install chromium; .ci/run does) to run the HTML report test`,
    );
  }
  const file = join(work, "report.html");
  writeFileSync(file, html);
  const context = await chromium.launchPersistentContext(join(work, "profile"), {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  listen(page);
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  await page.waitForSelector("figure.chart canvas");
  return { context, page };
}
