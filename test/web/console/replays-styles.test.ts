// A recording's own CSS in the player: the player's iframe inherits the console's CSP, which
// refuses the recorded <style> element and `style` attribute; the player applies the same CSS
// through CSSOM (web/console/pages/replays/replay-styles.ts), so the page shows as recorded.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { postIngest } from "../../ingest/helpers.ts";
import { metaEvent, moveEvent, replayBody, replayOk, rrweb } from "../../ingest/replay/helpers.ts";
import { startDataPages, type DataPagesFixture } from "./data-pages-fixture.ts";

let fixture: DataPagesFixture;
const t0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const sessionId = Bun.randomUUIDv7();

/** document → html → (head → style, body → h1 "Checkout" with a style attribute), in rrweb-snapshot's serialized form. */
const styledPage = {
  type: 0,
  id: 1,
  childNodes: [
    { type: 1, id: 2, name: "html", publicId: "", systemId: "" },
    {
      type: 2, id: 3, tagName: "html", attributes: {},
      childNodes: [
        { type: 2, id: 4, tagName: "head", attributes: {}, childNodes: [{ type: 2, id: 8, tagName: "style", attributes: { _cssText: "h1 { font-size: 50px; }" }, childNodes: [] }] },
        { type: 2, id: 5, tagName: "body", attributes: {}, childNodes: [{ type: 2, id: 6, tagName: "h1", attributes: { style: "color: rgb(255, 0, 0);" }, childNodes: [{ type: 3, id: 7, textContent: "Checkout" }] }] },
      ],
    },
  ],
};

/** Chrome's refusals of the recorded inline CSS: expected, the CSS is applied another way. */
const recordedStyleRefusal = /^console error: Applying inline style violates the following Content Security Policy directive 'style-src 'self''/;

beforeAll(async () => {
  fixture = await startDataPages("Styled shop", { REPLAY_FLUSH_INTERVAL_MS: "0" });
  const events = [metaEvent(t0, "https://shop.example/"), { type: rrweb.fullSnapshot, timestamp: t0 + 1, data: { node: styledPage, initialOffset: { left: 0, top: 0 } } }, moveEvent(t0 + 5_000)];
  const reply = await postIngest(fixture.service.url, replayBody(fixture.key, [{ session_id: sessionId, seq: 0, distinct_id: "styled", platform: "web", mode: "dom", events }]), { path: "/r" });
  expect([reply.status, reply.body]).toEqual([200, replayOk(1)]);
  await fixture.service.nodes.get("eu")!.maintainReplays();
}, 120_000);
afterAll(() => fixture?.close());

test("the recorded <style> and style attribute apply in the player; a rebuild after seeking keeps one sheet per <style>", async () => {
  const page = await fixture.open(`/replays/${sessionId}`, "Recording");
  const frame = (await (await page.waitForSelector(".replay-stage iframe")).contentFrame())!;
  await frame.waitForSelector("h1");
  const styled = await frame.evaluate(() => {
    const doc = (globalThis as unknown as { document: { querySelector(selector: string): unknown; adoptedStyleSheets: { cssRules: { length: number } }[] } }).document;
    const heading = doc.querySelector("h1");
    const style = (globalThis as unknown as { getComputedStyle(element: unknown): { color: string; fontSize: string } }).getComputedStyle(heading);
    return { color: style.color, fontSize: style.fontSize, adopted: doc.adoptedStyleSheets.map((sheet) => sheet.cssRules.length) };
  });
  // rrweb's three rules, then the recorded <style>'s one.
  expect(styled).toEqual({ color: "rgb(255, 0, 0)", fontSize: "50px", adopted: [3, 1] });
  // Seeking rebuilds the page: the sheets are those of the page as rebuilt, not piled up.
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await page.getByLabel("Seek").fill("0");
  await page.getByLabel("Elapsed and total time").filter({ hasText: "0:00 / 0:05" }).waitFor();
  await frame.waitForSelector("h1");
  expect(await frame.evaluate(() => (globalThis as unknown as { document: { adoptedStyleSheets: unknown[] } }).document.adoptedStyleSheets.length)).toBe(2);
  expect(fixture.tab.problems.filter((problem) => !recordedStyleRefusal.test(problem))).toEqual([]);
});
