// The Slack format: whole bodies as a local receiver (standing in for Slack's incoming webhook)
// gets them, checked against Block Kit's documented shape and limits (header: plain_text of 150
// characters at most; section: mrkdwn text of 3,000 at most, or at most 10 fields of 2,000 at
// most; context: mrkdwn elements), a fallback text that reads alone, mentions of `config.to`,
// hostile names that can neither link nor notify, and every limit at its edge.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFindingsDelivery, type FindingsDelivery } from "../../../server/findings/delivery/findings-delivery.ts";
import { slackFindingBody } from "../../../server/findings/delivery/slack-payload.ts";
import { mention } from "../../../server/findings/delivery/slack-text.ts";
import type { RegionFindingsDestination } from "../../../server/findings/findings-types.ts";
import type { RegionStore } from "../../../storage/region-store.ts";
import { destination, finding, project, projectId, removeDirs, startReceiver, t0, tempStore, type Receiver } from "./fixtures.ts";

const findingLink = "<https://analytics.example.com/projects/0191f0a0-0000-7000-8000-000000000001/findings/0191f0a0-0000-7000-8000-00000000f001|Open the finding>";
const projectLink = "<https://analytics.example.com/projects/0191f0a0-0000-7000-8000-000000000001|Project>";
const mentions = "<@U024BE7LH> <!subteam^S0614TZR7> <!here> @ops-team";

/** Throws unless `body` is an incoming-webhook body in Block Kit's documented shape and limits; returns every mrkdwn text in it. */
function checkSlackShape(body: any): string[] {
  const mrkdwn: string[] = [body.text];
  expect(Object.keys(body).every((key) => ["text", "blocks", "channel"].includes(key))).toBe(true);
  expect(typeof body.text).toBe("string");
  expect(body.text.length).toBeGreaterThan(0);
  expect(Array.isArray(body.blocks)).toBe(true);
  expect(body.blocks.length).toBeLessThanOrEqual(50);
  const checkMrkdwn = (object: any, max: number) => {
    expect(Object.keys(object).sort()).toEqual(["text", "type"]);
    expect(object.type).toBe("mrkdwn");
    expect(object.text.length).toBeGreaterThan(0);
    expect(object.text.length).toBeLessThanOrEqual(max);
    mrkdwn.push(object.text);
  };
  for (const block of body.blocks) {
    if (block.type === "header") {
      expect(Object.keys(block).sort()).toEqual(["text", "type"]);
      expect(block.text.type).toBe("plain_text");
      expect(block.text.text.length).toBeGreaterThan(0);
      expect(block.text.text.length).toBeLessThanOrEqual(150);
    } else if (block.type === "section") {
      if ("fields" in block) {
        expect(Object.keys(block).sort()).toEqual(["fields", "type"]);
        expect(block.fields.length).toBeGreaterThan(0);
        expect(block.fields.length).toBeLessThanOrEqual(10);
        for (const field of block.fields) checkMrkdwn(field, 2000);
      } else {
        expect(Object.keys(block).sort()).toEqual(["text", "type"]);
        checkMrkdwn(block.text, 3000);
      }
    } else if (block.type === "context") {
      expect(Object.keys(block).sort()).toEqual(["elements", "type"]);
      expect(block.elements.length).toBeGreaterThan(0);
      expect(block.elements.length).toBeLessThanOrEqual(10);
      for (const element of block.elements) checkMrkdwn(element, 3000);
    } else throw new Error(`unexpected block type ${block.type}`);
  }
  // An entity cut in half would show as text and could pair with a later `;`.
  for (const text of mrkdwn) expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
  return mrkdwn;
}

/** Every `<…>` token (links, mentions) in Slack mrkdwn. */
const angleTokens = (texts: string[]) => texts.flatMap((text) => text.match(/<[^>]*>/g) ?? []);

const dirs: string[] = [];
let store: RegionStore;
let delivery: FindingsDelivery;
let receiver: Receiver;
const slack = (overrides: Partial<RegionFindingsDestination> = {}) =>
  destination({ id: "d-slack", kind: "slack", name: "Growth channel", signing_secret: null, secret: receiver.url, config: { to: ["U024BE7LH", "S0614TZR7", "here", "ops-team"], channel: "#growth" }, ...overrides });

beforeAll(() => {
  ({ store } = tempStore(dirs));
  receiver = startReceiver();
  store.findingsConfig.upsert([project([slack()])]);
  delivery = startFindingsDelivery(store, { start: false, now: () => t0 });
});

afterAll(async () => {
  await delivery.stop();
  receiver.close();
  store.close();
  removeDirs(dirs);
});

describe("Slack messages", () => {
  test("a finding is posted to the incoming webhook in Block Kit's shape, with a fallback that reads alone", async () => {
    delivery.outbox.enqueue(projectId, finding(), ["d-slack"]);
    expect(await delivery.runner.runDue(t0)).toBe(1);
    expect(receiver.requests.length).toBe(1);
    const request = receiver.requests[0]!;
    expect(request.path).toBe("/hooks/T000/B000/secretpart");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["webhook-signature"]).toBeUndefined();
    const body = JSON.parse(request.body);
    expect(body).toEqual({
      text: `:warning: Warning finding: signup fell to 120 from a usual 400 (-70%) — rule "Signups per day", 2026-11-27 00:00 – 2026-11-28 00:00 UTC. ${findingLink} ${mentions}`,
      blocks: [
        { type: "header", text: { type: "plain_text", text: ":warning: Warning: Signups per day", emoji: true } },
        { type: "section", text: { type: "mrkdwn", text: `${mentions}\n*signup fell to 120 from a usual 400 (-70%)*\n${findingLink}` } },
        {
          type: "section",
          fields: [
            { type: "mrkdwn", text: '*Target*\nvolume of event "signup"' },
            { type: "mrkdwn", text: "*Period*\n2026-11-27 00:00 – 2026-11-28 00:00 UTC" },
            { type: "mrkdwn", text: "*Value*\n120" },
            { type: "mrkdwn", text: "*Baseline*\n400" },
            { type: "mrkdwn", text: "*Change*\n-280 (-70%)" },
            { type: "mrkdwn", text: "*Severity*\nWarning" },
            { type: "mrkdwn", text: "*Cadence*\nDaily" },
          ],
        },
        { type: "context", elements: [{ type: "mrkdwn", text: `Rule "Signups per day" · raised 2026-11-28 05:59 UTC · ${projectLink}` }] },
      ],
      channel: "#growth",
    });
    checkSlackShape(body);
  });

  test("other targets, an anomaly score and no channel or recipients", () => {
    const plain = slack({ config: { to: [], channel: null } });
    const body = JSON.parse(
      slackFindingBody(project([plain]), plain, finding({ severity: "critical", cadence: "hourly", target: { kind: "funnel_conversion", from_event: "signup", to_event: "purchase" }, value: 0.123456, baseline: 0.25, change: -0.126544, relativeChange: -0.506176, anomalyZ: 4.25 })),
    );
    checkSlackShape(body);
    expect(body.channel).toBeUndefined();
    expect(body.text.startsWith(":rotating_light: Critical finding: signup fell")).toBe(true);
    expect(body.blocks[0].text.text).toBe(":rotating_light: Critical: Signups per day");
    expect(body.blocks[1].text.text).toBe(`*signup fell to 120 from a usual 400 (-70%)*\n${findingLink}`);
    expect(body.blocks[2].fields.map((field: { text: string }) => field.text)).toEqual([
      '*Target*\nconversion from "signup" to "purchase"',
      "*Period*\n2026-11-27 00:00 – 2026-11-28 00:00 UTC",
      "*Value*\n0.1235",
      "*Baseline*\n0.25",
      "*Change*\n-0.1265 (-50.6%)",
      "*Anomaly z-score*\n4.25",
      "*Severity*\nCritical",
      "*Cadence*\nHourly",
    ]);
    const metric = JSON.parse(slackFindingBody(project([plain]), plain, finding({ severity: "info", target: { kind: "metric", key: "mrr" }, relativeChange: null, change: 1500, value: 1500, baseline: 0 })));
    expect(metric.blocks[2].fields.slice(0, 5).map((field: { text: string }) => field.text)).toEqual(['*Target*\nmetric "mrr"', "*Period*\n2026-11-27 00:00 – 2026-11-28 00:00 UTC", "*Value*\n1,500", "*Baseline*\n0", "*Change*\n+1,500"]);
    const warnings = JSON.parse(slackFindingBody(project([plain]), plain, finding({ target: { kind: "ingestion_warnings" } })));
    expect(warnings.blocks[2].fields[0].text).toBe("*Target*\ningestion warnings (every reason)");
  });

  test("hostile event and rule names can neither link nor mention", () => {
    const hostile = "<!channel> & <https://evil.example|click me> <@U999>";
    const plain = slack();
    const body = JSON.parse(slackFindingBody(project([plain]), plain, finding({ ruleName: hostile, target: { kind: "event_volume", event: hostile }, summary: `${hostile} fell to 3` })));
    const texts = checkSlackShape(body);
    // The only links and mentions are ours: the console links and config.to's mentions.
    expect(angleTokens(texts).sort()).toEqual(
      [findingLink, findingLink, projectLink, "<@U024BE7LH>", "<!subteam^S0614TZR7>", "<!here>", "<@U024BE7LH>", "<!subteam^S0614TZR7>", "<!here>"].sort(),
    );
    const escaped = "&lt;!channel&gt; &amp; &lt;https://evil.example|click me&gt; &lt;@U999&gt;";
    expect(body.blocks[1].text.text).toBe(`${mentions}\n*${escaped} fell to 3*\n${findingLink}`);
    expect(body.blocks[2].fields[0].text).toBe(`*Target*\nvolume of event "${escaped}"`);
    expect(body.blocks[3].elements[0].text).toBe(`Rule "${escaped}" · raised 2026-11-28 05:59 UTC · ${projectLink}`);
    // plain_text is never parsed for links or mentions: the header shows the name as typed.
    expect(body.blocks[0].text).toEqual({ type: "plain_text", text: `:warning: Warning: ${hostile}`, emoji: true });
    expect(body.text).toBe(`:warning: Warning finding: ${escaped} fell to 3 — rule "${escaped}", 2026-11-27 00:00 – 2026-11-28 00:00 UTC. ${findingLink} ${mentions}`);
  });

  test("line breaks and control characters in names become spaces", () => {
    const plain = slack({ config: { to: [], channel: null } });
    const body = JSON.parse(slackFindingBody(project([plain]), plain, finding({ ruleName: "Signups\n<!here>\u001b[31m", target: { kind: "event_volume", event: "a\r\nb\u2028c" } })));
    checkSlackShape(body);
    expect(body.blocks[0].text.text).toBe(":warning: Warning: Signups <!here> [31m");
    expect(body.blocks[2].fields[0].text).toBe('*Target*\nvolume of event "a b c"');
    // In the context line the name is quoted as JSON (its escapes shown as typed).
    expect(body.blocks[3].elements[0].text).toBe(`Rule "Signups\\n&lt;!here&gt;\\u001b[31m" · raised 2026-11-28 05:59 UTC · ${projectLink}`);
  });

  test("config.to: member and group ids mention, broadcast words notify, anything else is escaped text", () => {
    expect(["U024BE7LH", "W012A3CDE", "S0614TZR7", "@here", "channel", "everyone", "@alice", "bob", "<!channel>", "u024be7lh"].map(mention)).toEqual([
      "<@U024BE7LH>",
      "<@W012A3CDE>",
      "<!subteam^S0614TZR7>",
      "<!here>",
      "<!channel>",
      "<!everyone>",
      "@alice",
      "@bob",
      "@&lt;!channel&gt;",
      "@u024be7lh",
    ]);
    // Mentions stop before 500 characters (whole mentions only).
    const many = slack({ config: { to: Array.from({ length: 100 }, (_, index) => `U${String(index).padStart(9, "0")}`), channel: null } });
    const body = JSON.parse(slackFindingBody(project([many]), many, finding()));
    const line = body.blocks[1].text.text.split("\n")[0];
    expect(line.length).toBeLessThanOrEqual(500);
    // Each mention is 13 characters and a space: 35 make 489, a 36th would make 503.
    expect(line.split(" ").length).toBe(35);
    expect(line.endsWith("<@U000000034>")).toBe(true);
  });

  test("every text is cut to Slack's limits at its edge", () => {
    const plain = slack({ config: { to: [], channel: null } });
    const render = (overrides: Parameters<typeof finding>[0]) => {
      const body = JSON.parse(slackFindingBody(project([plain]), plain, finding(overrides)));
      checkSlackShape(body);
      return body;
    };
    // ":warning: Warning: " is 19 characters: a 131-character name fills the header's 150 exactly.
    expect(render({ ruleName: "r".repeat(131) }).blocks[0].text.text).toBe(`:warning: Warning: ${"r".repeat(131)}`);
    expect(render({ ruleName: "r".repeat(132) }).blocks[0].text.text).toBe(`:warning: Warning: ${"r".repeat(130)}…`);
    // A summary of ampersands (5 characters each once escaped) is cut between entities.
    const section = render({ summary: "&".repeat(5000) }).blocks[1].text.text as string;
    expect(section.length).toBeLessThanOrEqual(3000);
    expect(section).toBe(`*${"&amp;".repeat(Math.floor((3000 - 1 - 2 - 1 - findingLink.length - 1) / 5))}…*\n${findingLink}`);
    // A field's value is cut to 2,000 with its label kept; a summary that just fits is not cut.
    const target = render({ target: { kind: "event_volume", event: "e".repeat(3000) } }).blocks[2].fields[0].text as string;
    expect(target.length).toBe(2000);
    expect(target.startsWith('*Target*\nvolume of event "eee')).toBe(true);
    expect(target.endsWith("e…")).toBe(true);
    const fits = 3000 - 2 - 1 - findingLink.length;
    expect(render({ summary: "s".repeat(fits) }).blocks[1].text.text).toBe(`*${"s".repeat(fits)}*\n${findingLink}`);
    expect(render({ summary: "s".repeat(fits + 1) }).blocks[1].text.text).toBe(`*${"s".repeat(fits - 1)}…*\n${findingLink}`);
    // A character outside the BMP is never split.
    const emoji = render({ ruleName: "😀".repeat(100) }).blocks[0].text.text as string;
    expect(emoji).toBe(`:warning: Warning: ${"😀".repeat(65)}…`);
    expect(render({ summary: "x".repeat(10_000) }).text.length).toBeLessThanOrEqual(3000);
  });

  test("send test posts a test message to Slack", async () => {
    const before = receiver.requests.length;
    const attempt = await delivery.outbox.sendTest(projectId, "d-slack");
    expect({ ...attempt, durationMs: 0 }).toEqual({ destinationId: "d-slack", attempt: 1, at: "2026-11-28T06:00:00.000Z", status: 200, ok: true, error: null, durationMs: 0 });
    const body = JSON.parse(receiver.requests[before]!.body);
    checkSlackShape(body);
    expect(body).toEqual({
      text: `:white_check_mark: Test message for the findings destination "Growth channel": findings raised in this project will be sent here. <https://analytics.example.com/projects/0191f0a0-0000-7000-8000-000000000001|Open the project> ${mentions}`,
      blocks: [
        { type: "header", text: { type: "plain_text", text: ":white_check_mark: Test message", emoji: true } },
        {
          type: "section",
          text: { type: "mrkdwn", text: `${mentions}\nThis is a test of the findings destination *Growth channel*: findings raised in this project will be sent here.\n<https://analytics.example.com/projects/0191f0a0-0000-7000-8000-000000000001|Open the project>` },
        },
        { type: "context", elements: [{ type: "mrkdwn", text: 'Sent by the "send test" action at 2026-11-28 06:00 UTC' }] },
      ],
      channel: "#growth",
    });
  });
});
