// Session recording by our SDK in Chromium, against the service's real replay ingest (POST /r)
// through a loopback proxy that keeps what the page posted: recorder.js is loaded only when
// recording is on; typed values, masked text and blocked elements never leave the page;
// chunks carry the session, window, distinct id and a sequence number that continues on the
// next page; a new session takes a new full snapshot; a sampled-out session stops recording.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createToken, regionTokenFor } from "../../helpers/accounts.ts";
import { bearer, call } from "../../helpers/client.ts";
import { isUuidV7 } from "../../../storage/uuid-index.ts";
import { jsonOf, startIngestProxy, type IngestProxy } from "./ingest-proxy.ts";
import { startSdkBench, until, type SdkBench } from "./sdk-site.ts";

let bench: SdkBench;
let proxy: IngestProxy;

beforeAll(async () => {
  bench = await startSdkBench();
  proxy = startIngestProxy(bench.dedicated.service.url);
}, 600_000);
afterAll(async () => {
  proxy?.stop();
  await bench?.dispose();
});

const secretTyped = "hunter2-typed-secret";
const editedSecret = "typed-into-an-editor";
const body = `<h1>Checkout</h1>
  <label>Card <input id="card" type="text"></label>
  <div id="editor" contenteditable="true"></div>
  <p class="private">Private address 221B</p>
  <div class="no-record"><span>Blocked balance 4242</span></div>
  <a id="next" href="/two">Next</a>`;

const recordingScript = (distinctId: string, recording: Record<string, unknown> = {}) => `
  svcAnalytics.init(${JSON.stringify(bench.dedicated.key)}, ${JSON.stringify({
    api_host: proxy.ingestUrl, flush_interval_ms: 100, bootstrap: { distinct_id: distinctId },
    session_recording: { enabled: true, mask_text_selector: ".private", block_selector: ".no-record", ...recording },
  })});`;

interface Chunk {
  session_id: string;
  window_id: string;
  seq: number;
  distinct_id: string;
  platform: string;
  mode: string;
  events: { type: number; timestamp: number; data: Record<string, unknown> }[];
}

const replayPosts = (sessionId?: string) =>
  proxy.posts.filter(({ path }) => path === "/ingest/eu/r").filter((post) => !sessionId || (jsonOf(post).chunks as Chunk[]).some((chunk) => chunk.session_id === sessionId));
const chunksOf = (sessionId: string): Chunk[] => replayPosts(sessionId).flatMap((post) => (jsonOf(post).chunks as Chunk[]).filter((chunk) => chunk.session_id === sessionId));
/** rrweb's incremental Input events (type 3, source 5). */
const inputEvents = (chunks: Chunk[]) => chunks.flatMap((chunk) => chunk.events.filter((event) => event.type === 3 && event.data.source === 5));

test("recorder.js is loaded only when recording is on", async () => {
  const site = bench.site({ "/": { script: recordingScript("no-recording", { enabled: false }) } });
  const tab = await bench.browser.newPage();
  const scripts: string[] = [];
  tab.on("request", (request) => request.resourceType() === "script" && scripts.push(new URL(request.url()).pathname));
  await tab.goto(`${site.url}/`);
  expect(scripts).toEqual(["/sdk/v1/analytics.js"]);
  await tab.evaluate("svcAnalytics.startSessionRecording()");
  await tab.waitForFunction("window.svcAnalyticsRecorder !== undefined");
  expect(scripts).toEqual(["/sdk/v1/analytics.js", "/sdk/v1/recorder.js"]);
  const sessionId = (await tab.evaluate("svcAnalytics.getSessionId()")) as string;
  await until("a first chunk", () => chunksOf(sessionId).length > 0);
  await tab.evaluate("svcAnalytics.stopSessionRecording()");
  await tab.close();
  site.stop();
}, 60_000);

test("two pages of one session: masked and blocked content never posted, sequence numbers continue, every chunk accepted", async () => {
  const script = recordingScript("recorded-visitor");
  const site = bench.site({ "/": { title: "Checkout", body, script }, "/two": { title: "Two", body: "<h1>Two</h1><p>Thanks</p>", script } });
  const context = await bench.browser.newContext();
  const tab = await context.newPage();
  await tab.goto(`${site.url}/`);
  const sessionId = (await tab.evaluate("svcAnalytics.getSessionId()")) as string;
  await tab.waitForFunction("window.svcAnalyticsRecorder !== undefined");
  await tab.locator("#card").pressSequentially(secretTyped);
  await until("the typed input recorded", () => inputEvents(chunksOf(sessionId)).length > 0);
  await tab.locator("#editor").pressSequentially(editedSecret);
  await until("the editor's change recorded", () => JSON.stringify(chunksOf(sessionId)).includes("*".repeat(editedSecret.length)));
  const firstPageSeqs = chunksOf(sessionId).map((chunk) => chunk.seq);
  await tab.click("#next");
  await tab.waitForURL(`${site.url}/two`);
  expect(await tab.evaluate("svcAnalytics.getSessionId()")).toBe(sessionId);
  await until("the second page's full snapshot", () => chunksOf(sessionId).some((chunk) => chunk.seq > Math.max(...firstPageSeqs) && chunk.events.some((event) => event.type === 2)));
  await context.close();

  await until("every request answered", () => replayPosts(sessionId).every((post) => post.answer !== undefined));
  const posts = replayPosts(sessionId);
  const postedText = posts.map((post) => JSON.stringify(jsonOf(post))).join("\n");
  for (const secret of [secretTyped, "hunter2", editedSecret, "Private address", "221B", "Blocked balance", "4242"]) expect([secret, postedText.includes(secret)]).toEqual([secret, false]);
  // The masked input's value and the masked text as asterisks; the blocked element as an empty placeholder.
  expect(inputEvents(chunksOf(sessionId)).map((event) => event.data.text)).toContain("*".repeat(secretTyped.length));
  expect(postedText).toContain("*".repeat("Private address 221B".length));
  expect(postedText).toContain("rr_width");

  // A chunk in flight as the page left is sent again by beacon: the same chunk, counted once.
  const chunks = [...new Map(chunksOf(sessionId).map((chunk) => [JSON.stringify(chunk), chunk])).values()];
  // Sequence numbers are the session's age in ms when each chunk was cut: distinct, and the second page's above the first's.
  const seqs = chunks.map((chunk) => chunk.seq).sort((a, b) => a - b);
  expect(new Set(seqs).size).toBe(seqs.length);
  expect(Math.min(...chunks.filter((chunk) => !firstPageSeqs.includes(chunk.seq)).map((chunk) => chunk.seq))).toBeGreaterThan(Math.max(...firstPageSeqs));
  const windows = new Set(chunks.map((chunk) => chunk.window_id));
  expect([windows.size, isUuidV7([...windows][0])]).toEqual([1, true]);
  expect(new Set(chunks.map((chunk) => `${chunk.distinct_id} ${chunk.platform} ${chunk.mode}`))).toEqual(new Set(["recorded-visitor web dom"]));
  // Each page starts with its Meta and FullSnapshot events, the second page's after the first page's.
  const snapshots = chunks.flatMap((chunk) => chunk.events.filter((event) => event.type === 4).map(() => chunk.seq));
  expect(snapshots.length).toBe(2);
  expect(snapshots[0]).toBe(seqs[0]);
  // Every request gzipped (the first page's tail by beacon: plain text), within the limits, and answered with every chunk
  // accepted, but for a chunk that was in flight as the page left and came again by beacon: that copy is a duplicate.
  const encodings = posts.map((post) => post.headers["content-encoding"] ?? post.headers["content-type"]);
  expect(encodings.filter((encoding) => encoding !== "gzip" && encoding !== "text/plain;charset=UTF-8")).toEqual([]);
  const postedBefore = new Set<string>();
  for (const post of posts) {
    const sent = jsonOf(post) as { api_key: string; chunks: Chunk[] };
    const resent = sent.chunks.filter((chunk) => postedBefore.has(JSON.stringify(chunk)));
    expect([sent.api_key, sent.chunks.length <= 50, JSON.parse(post.answer!.text)]).toEqual([
      bench.dedicated.key, true, {
        accepted: sent.chunks.length - resent.length, sampled_out: [],
        rejected: resent.map((chunk) => ({ session_id: chunk.session_id, seq: chunk.seq, reason: "duplicate", message: "this chunk (session_id, seq) was stored before; resending it is safe" })),
      },
    ]);
    for (const chunk of sent.chunks) postedBefore.add(JSON.stringify(chunk));
  }
  site.stop();
}, 60_000);

test("after 30 minutes without activity the recording goes on in a new session, from a new full snapshot in its first chunk", async () => {
  const site = bench.site({ "/": { body, script: recordingScript("idle-visitor") } });
  const tab = await bench.browser.newPage();
  await tab.goto(`${site.url}/`);
  const before = (await tab.evaluate("svcAnalytics.getSessionId()")) as string;
  await until("the first session's snapshot", () => chunksOf(before).length > 0);
  await tab.evaluate(`(() => {
    const key = "svca_" + ${JSON.stringify(bench.dedicated.key)} + "_session";
    const session = JSON.parse(localStorage.getItem(key));
    localStorage.setItem(key, JSON.stringify({ ...session, last: session.last - 30 * 60000 - 1000 }));
  })()`);
  await tab.click("h1");
  const after = (await tab.evaluate("svcAnalytics.getSessionId()")) as string;
  expect(after === before).toBe(false);
  const chunks = await until("the new session's chunks", () => {
    const found = chunksOf(after);
    return found.some((chunk) => chunk.events.some((event) => event.type === 2)) && found;
  });
  const first = chunks.reduce((earliest, chunk) => (chunk.seq < earliest.seq ? chunk : earliest));
  expect(first.events.slice(0, 2).map((event) => event.type)).toEqual([4, 2]);
  await tab.close();
  site.stop();
}, 60_000);

test("with consent pending nothing is recorded; granting consent loads the recorder and records", async () => {
  const site = bench.site({ "/": { body, script: recordingScript("consenting-visitor").replace('"api_host"', '"consent":"pending","api_host"') } });
  const tab = await bench.browser.newPage();
  const scripts: string[] = [];
  tab.on("request", (request) => request.resourceType() === "script" && scripts.push(new URL(request.url()).pathname));
  await tab.goto(`${site.url}/`);
  const sessionId = (await tab.evaluate("svcAnalytics.getSessionId()")) as string;
  // The pageview is sent (consent pending), the recorder is not loaded.
  await until("the pageview", () => proxy.posts.some(({ path, body }) => path === "/ingest/eu/e" && jsonOf({ body }).batch[0].distinct_id === "consenting-visitor"));
  expect(scripts).toEqual(["/sdk/v1/analytics.js"]);
  await tab.evaluate(`svcAnalytics.setConsent("granted")`);
  await until("the first chunk", () => chunksOf(sessionId).length > 0);
  expect(scripts).toEqual(["/sdk/v1/analytics.js", "/sdk/v1/recorder.js"]);
  // A fresh recording: its first chunk begins with the page's Meta event.
  expect(chunksOf(sessionId)[0]!.events[0]!.type).toBe(4);
  await tab.close();
  site.stop();
}, 60_000);

test("a large recording is split into requests within the limits: about 1 MB (one larger event alone), at most 50 chunks of at most 20,000 events", async () => {
  const site = bench.site({
    "/": {
      // A 1.5 MB page (its full snapshot is one event larger than a request should be), then 400 additions of 5 KB each.
      body: `<div id="big">${"lorem ipsum ".repeat(125_000)}</div><div id="grows"></div>`,
      script: `${recordingScript("large-visitor")}
        let added = 0;
        const add = () => {
          const block = document.createElement("p");
          block.textContent = "block " + added + " " + "x".repeat(5000);
          document.getElementById("grows").appendChild(block);
          if (++added < 400) setTimeout(add, 1);
          else window.grown = true;
        };
        add();`,
    },
  });
  const tab = await bench.browser.newPage();
  await tab.goto(`${site.url}/`);
  const sessionId = (await tab.evaluate("svcAnalytics.getSessionId()")) as string;
  await tab.waitForFunction("window.grown === true");
  await until("the last addition recorded", () => JSON.stringify(chunksOf(sessionId)).includes("block 399 "));
  // The proxy keeps a request as it passes and its answer once it comes back.
  await until("every request answered", () => replayPosts(sessionId).every((post) => post.answer !== undefined));
  const posts = replayPosts(sessionId);
  for (const post of posts) {
    const sent = jsonOf(post) as { chunks: Chunk[] };
    const characters = JSON.stringify(sent).length;
    const single = sent.chunks.length === 1 && sent.chunks[0]!.events.length === 1;
    expect([sent.chunks.length <= 50, sent.chunks.every((chunk) => chunk.events.length <= 20_000), characters <= 1_000_000 || single]).toEqual([true, true, true]);
    expect(JSON.parse(post.answer!.text)).toEqual({ accepted: sent.chunks.length, sampled_out: [], rejected: [] });
  }
  // The full snapshot travelled alone; the additions needed more than one request.
  expect(posts.some((post) => JSON.stringify(jsonOf(post)).length > 1_000_000)).toBe(true);
  expect(posts.length).toBeGreaterThan(2);
  const seqs = [...new Map(chunksOf(sessionId).map((chunk) => [JSON.stringify(chunk), chunk.seq])).values()];
  expect(new Set(seqs).size).toBe(seqs.length);
  await tab.close();
  site.stop();
}, 60_000);

test("a session the region samples out stops recording, also on the next page", async () => {
  const { secret } = await createToken(bench.dedicated.owner, ["replays:read", "replays:write"]);
  const token = await regionTokenFor(bench.dedicated.service, secret, bench.dedicated.project.id, ["replays:read", "replays:write"]);
  const policy = await call(bench.dedicated.service.url, "PUT", "/region/eu/replays/policy", { headers: bearer(token), body: { sample_rate: 0, min_duration_ms: 0, flag_key: null } });
  expect(policy.status).toBe(200);

  const script = recordingScript("sampled-visitor");
  const site = bench.site({ "/": { body, script }, "/two": { body, script } });
  const context = await bench.browser.newContext();
  const tab = await context.newPage();
  await tab.goto(`${site.url}/`);
  const sessionId = (await tab.evaluate("svcAnalytics.getSessionId()")) as string;
  const [answered] = await until("the sampled-out answer", () => {
    const done = replayPosts(sessionId).filter((post) => post.answer);
    return done.length > 0 && done;
  });
  expect(JSON.parse(answered!.answer!.text)).toEqual({ accepted: 0, sampled_out: [sessionId], rejected: [] });
  const postsAfterAnswer = replayPosts(sessionId).length;
  // Activity, the next flushes, a second page of the session and its page hide: nothing more is posted.
  await tab.locator("#card").pressSequentially("more typing");
  await tab.click("#next");
  await tab.waitForURL(`${site.url}/two`);
  await tab.evaluate(`svcAnalytics.capture("on_page_two")`);
  const eventsBefore = proxy.posts.filter(({ path }) => path === "/ingest/eu/e").length;
  await tab.goto("about:blank");
  await until("the second page's last events", () => proxy.posts.filter(({ path }) => path === "/ingest/eu/e").length > eventsBefore);
  expect(replayPosts(sessionId).length).toBe(postsAfterAnswer);
  await context.close();
  site.stop();
}, 60_000);
