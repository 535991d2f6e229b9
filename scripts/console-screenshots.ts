// Screenshots of every main page of the web console, over a realistic workspace
// (test/helpers/demo-workspace.ts), into docs/console/ so anyone can see the console without
// running it. Starts its own service on a temporary data directory and Debian's Chromium
// (installed when missing, as the browser tests do).
//   npm run screenshots            (or: bun scripts/console-screenshots.ts [output directory])
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { loadConfig } from "../server/config.ts";
import { startService } from "../server/service.ts";
import { launchChromium } from "../test/helpers/chromium.ts";
import { seedDemoWorkspace, type DemoWorkspace } from "../test/helpers/demo-workspace.ts";
import { lastOutboxMail } from "../test/helpers/outbox.ts";
import { consolePages, settled, type ConsoleShot } from "./console-screenshots/pages.ts";

/**
 * The messaging pages need the gateway on a simulated network with paired numbers and traffic:
 * the browser test takes them (`CONSOLE_SCREENSHOTS=dir bun test test/web/console/messaging.test.ts`,
 * saved here as `{name}.png` and `{name}-dark.png`); the README lists them after these pages.
 */
const messagingShots = [
  { name: "messaging-connect", title: "Messaging: connecting with a gateway key (a wrong one refused)" },
  { name: "messaging-numbers", title: "Messaging: a project's numbers", dark: true },
  { name: "messaging-pair", title: "Messaging: pairing a number by its QR code" },
  { name: "messaging-messages", title: "Messaging: sending, and the messages" },
  { name: "messaging-message", title: "Messaging: a message's timeline and attempts" },
  { name: "messaging-pool", title: "Messaging: usage and the pool" },
  { name: "messaging-deliveries", title: "Messaging: webhook deliveries" },
  { name: "messaging-operations", title: "Messaging: operations with the root key", dark: true },
  { name: "messaging-operations-critical", title: "Messaging: operations while the store is down (critical)" },
];

/**
 * The replay pages need recordings sent through POST /r and compacted: the browser test takes them
 * (`CONSOLE_SCREENSHOTS=dir bun test test/web/console/replays.test.ts`, saved here as `{name}.png`
 * and `{name}-dark.png`); the README lists them after these pages.
 */
const replayShots = [
  { name: "replays-list", title: "Replays: recordings with their filters", dark: false },
  { name: "replay-player", title: "Replays: the player, with the session's events on the seek bar and beside it", dark: true },
];

const outputDir = process.argv[2] ?? join(import.meta.dir, "../docs/console");
const viewport = { width: 1280, height: 800 };
const shownWithinMs = 60_000;

const dataDir = mkdtempSync(join(tmpdir(), "console-screenshots-"));
const service = await startService(loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir }));
const browser = await launchChromium();
try {
  console.log("seeding the demo workspace…");
  const workspace: DemoWorkspace = await seedDemoWorkspace(service.url, (email, kind) => lastOutboxMail(dataDir, email, kind).token);
  mkdirSync(outputDir, { recursive: true });
  const taken: { shot: ConsoleShot; files: string[] }[] = [];
  const take = async (page: Page, shot: ConsoleShot) => {
    await page.goto(`${service.url}${shot.path}`);
    await settled(page);
    await shot.act?.(page);
    await settled(page);
    const files: string[] = [];
    for (const theme of shot.dark ? (["light", "dark"] as const) : (["light"] as const)) {
      await page.emulateMedia({ colorScheme: theme });
      await page.waitForSelector(`html[data-theme="${theme}"]`);
      const file = theme === "light" ? `${shot.name}.png` : `${shot.name}-dark.png`;
      await page.screenshot({ path: join(outputDir, file), animations: "disabled" });
      files.push(file);
      console.log(`wrote ${join(outputDir, file)}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
    taken.push({ shot, files });
  };

  const signedOut = await browser.newContext({ viewport, colorScheme: "light", reducedMotion: "reduce" });
  const visitor = await signedOut.newPage();
  visitor.setDefaultTimeout(shownWithinMs);
  await take(visitor, { name: "login", title: "Log in", path: "/login" });
  await signedOut.close();

  const context = await browser.newContext({ viewport, colorScheme: "light", reducedMotion: "reduce" });
  await context.addCookies([{ ...workspace.owner.sessionCookie(), url: service.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(shownWithinMs);
  for (const shot of consolePages(workspace)) await take(page, shot);
  writeFileSync(
    join(outputDir, "README.md"),
    [
      "# The console, page by page",
      "",
      "Taken by `npm run screenshots` (scripts/console-screenshots.ts) over a seeded workspace: a month of a product's events,",
      "saved insights on a dashboard, flags, an experiment, cohorts and a team (test/helpers/demo-workspace.ts). 1280x800.",
      "",
      ...taken.flatMap(({ shot, files }) => [`## ${shot.title}`, "", ...files.map((file) => `![${shot.title}](${file})`), ""]),
      "## Messaging",
      "",
      "Taken by the browser test test/web/console/messaging.test.ts (the gateway on the simulated network).",
      "",
      ...messagingShots.flatMap((shot) => [`### ${shot.title}`, "", `![${shot.title}](${shot.name}.png)`, ...(shot.dark ? [`![${shot.title}](${shot.name}-dark.png)`] : []), ""]),
      "## Session replay",
      "",
      "Taken by the browser test test/web/console/replays.test.ts (recordings sent through /r).",
      "",
      ...replayShots.flatMap((shot) => [`### ${shot.title}`, "", `![${shot.title}](${shot.name}.png)`, ...(shot.dark ? [`![${shot.title}](${shot.name}-dark.png)`] : []), ""]),
    ].join("\n"),
  );
} finally {
  await browser.close();
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
