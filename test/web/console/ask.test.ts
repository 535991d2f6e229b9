// The Ask panel in headless Chromium against the real service and a local chat-completions
// server with scripted tool calls (a hosted model cannot be reached from here): a question
// answered with the insights' own chart for the Query IR it ran, its table equal to
// POST /query's answer, the SQL it cites equal to include_sql's, the steps folded, saved as an
// insight; the conversation in the URL, listed beside the thread and read back after a reload;
// a hostile event name and a hostile answer shown as text; a service without a model says how
// to configure one.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { screenshotThemes, waitForPage } from "../../helpers/console-browser.ts";
import { startFakeChatModel, type FakeChatModel } from "../../helpers/fake-chat-model.ts";
import { rfc3339 } from "../../ingest/helpers.ts";
import { expectNothingRan, hostile, nativeEvent, startDataPages, type DataPagesFixture } from "./data-pages-fixture.ts";

let model: FakeChatModel;
let fixture: DataPagesFixture;

const question = "How many times did people do the odd event each day last week?";
const hostileAnswer = `It happened 3 times. ${hostile.scriptEnd} ${hostile.markup}`;
const dayMs = 86_400_000;
const todayStart = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
/** The Query IR the scripted model runs: the hostile event per day over the last 7 days. */
const hostileTrend = {
  ir_version: 1,
  date_range: { from: "-7d" },
  insight: { kind: "trends", interval: "day", series: [{ event: hostile.markup, math: "total" }] },
};

beforeAll(async () => {
  model = await startFakeChatModel();
  fixture = await startDataPages("Ask shop", { ASK_BASE_URL: model.url, ASK_MODEL: "test-model", ASK_API_KEY: "sk-test-console" });
  await fixture.send([
    nativeEvent({ event: hostile.markup, distinct_id: "u1", timestamp: rfc3339(todayStart - 2 * dayMs + 3_600_000) }),
    nativeEvent({ event: hostile.markup, distinct_id: "u2", timestamp: rfc3339(todayStart - 2 * dayMs + 7_200_000) }),
    nativeEvent({ event: hostile.markup, distinct_id: "u1", timestamp: rfc3339(todayStart - dayMs + 3_600_000) }),
  ]);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
  await model?.close();
});

test("a question answered with its chart, the SQL it cites and its steps, saved as an insight; the conversation kept and read back", async () => {
  model.script([
    { toolCalls: [{ name: "run_query", arguments: { query: hostileTrend } }] },
    { content: hostileAnswer },
  ]);
  const page = fixture.tab.page;
  await fixture.open("/setup", "Send your first event");
  await page.getByRole("link", { name: "Ask", exact: true }).click();
  await waitForPage(page, "Ask");
  await page.getByText("Your questions are kept here.").waitFor();
  await page.getByLabel("Your question").fill(question);
  await page.getByRole("button", { name: "Ask", exact: true }).click();
  const answer = page.getByRole("article", { name: "Answer" });
  await answer.locator("canvas").first().waitFor();

  expect(await answer.locator(".ask-answer-text").textContent()).toBe(hostileAnswer);
  expect(await page.locator(".ask-question").textContent()).toBe(question);
  expect(await answer.locator(".chart-legend").textContent()).toContain(hostile.markup);
  await page.waitForURL(/[?&]conversation=/);
  const conversationId = new URL(page.url()).searchParams.get("conversation")!;

  // The cited SQL is exactly what include_sql gives for the query it ran, and the table its numbers.
  const direct = await fixture.region("POST", "/query", { query: hostileTrend, include_sql: true });
  expect(direct.status).toBe(200);
  expect(await answer.getByLabel("SQL", { exact: true }).textContent()).toBe(direct.body.sql);
  await answer.getByRole("button", { name: "Table" }).click();
  await answer.locator("table tbody tr").first().waitFor();
  const [series, total, ...values] = await answer.locator("table tbody tr").first().locator("td").allTextContents();
  expect(series).toContain(hostile.markup);
  expect([total, ...values]).toEqual([direct.body.result.rows[0].total, ...direct.body.result.rows[0].values].map(String));
  expect(direct.body.result.rows[0].total).toBe(3);
  await answer.getByRole("button", { name: "Chart" }).click();

  await answer.getByText("Steps taken (1)").click();
  expect(await answer.locator(".ask-step-tool").allTextContents()).toEqual(["run_query"]);
  expect(JSON.parse((await answer.getByLabel("Arguments of step 1", { exact: true }).textContent())!)).toEqual({ query: hostileTrend });
  await expectNothingRan(page);
  await screenshotThemes(page, "ask-answer");

  await answer.getByRole("button", { name: "Save as insight" }).click();
  const link = answer.getByRole("link", { name: question });
  await link.waitFor();
  const insights = await fixture.tab.context.request.get(`${fixture.service.url}/app/projects/${fixture.projectId}/insights`);
  const saved = (await insights.json()).insights;
  expect(saved).toHaveLength(1);
  expect(saved[0]).toMatchObject({ name: question, created_via: "ask", query: hostileTrend });
  expect(await link.getAttribute("href")).toBe(`/projects/${fixture.projectId}/insights/${saved[0].id}`);

  const history = page.getByRole("complementary", { name: "Conversations" });
  await history.locator(".ask-history-item").first().waitFor();
  expect(await history.locator(".ask-history-item").first().getAttribute("href")).toBe(`/projects/${fixture.projectId}/ask?conversation=${conversationId}`);

  await page.reload();
  await waitForPage(page, "Ask");
  const restored = page.getByRole("article", { name: "Answer" });
  await restored.locator("canvas").first().waitFor();
  expect(await restored.locator(".ask-answer-text").textContent()).toBe(hostileAnswer);
  expect(await restored.getByLabel("SQL", { exact: true }).textContent()).toBe(direct.body.sql);

  await link.waitFor({ state: "detached" });
  await page.locator(".ask-answer").getByRole("button", { name: "Save as insight" }).waitFor();
  await expectNothingRan(page);
  expect(fixture.tab.problems).toEqual([]);
}, 60_000);

test("a follow-up answered from the SQL tool shows its rows as a table", async () => {
  const sql = "SELECT event, count(*) AS times FROM events GROUP BY event";
  model.script([
    { toolCalls: [{ name: "run_sql", arguments: { sql } }] },
    { content: "Here are the counts per event." },
  ]);
  const page = fixture.tab.page;
  await page.getByLabel("Ask a follow-up").fill("And per event, with SQL?");
  await page.getByRole("button", { name: "Ask", exact: true }).click();
  const answers = page.getByRole("article", { name: "Answer" });
  await answers.nth(1).locator("table").waitFor();
  const second = answers.nth(1);
  expect(await second.locator("table thead th").allTextContents()).toEqual(["event", "times"]);
  expect(await second.locator("table tbody td").allTextContents()).toEqual([hostile.markup, "3"]);
  expect(await second.getByLabel("SQL", { exact: true }).textContent()).toBe(sql);
  expect(await second.getByRole("button", { name: "Save as insight" }).count()).toBe(0);
  await expectNothingRan(page);
  expect(fixture.tab.problems).toEqual([]);
}, 60_000);

test("without a model configured, Ask says how to configure one", async () => {
  const bare = await startDataPages("No model shop");
  try {
    const page = bare.tab.page;
    await bare.open("/ask", "Ask");
    await page.getByLabel("Your question").fill("Anything?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    const text = (await alert.textContent())!;
    expect(text).toStartWith("The language model is not available. Ask has no language model configured: set ASK_BASE_URL");
    for (const setting of ["ASK_BASE_URL", "ASK_MODEL"]) expect(text).toContain(setting);
    // The question stays, to be asked again once a model is set.
    expect(await page.getByLabel("Your question").inputValue()).toBe("Anything?");
    await screenshotThemes(page, "ask-unavailable");
    // The refused request is the one error the page may log.
    expect(bare.tab.problems.filter((problem) => !problem.includes("status of 503"))).toEqual([]);
  } finally {
    await bare.close();
  }
}, 60_000);
