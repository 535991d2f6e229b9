// The SQL page in headless Chromium against the real service: a statement run with Ctrl+Enter
// shows exactly what POST /sql answers for it; the statement lives in the URL; the CSV download
// is RFC 4180 with formula-like text neutralised; a syntax error is shown with DuckDB's message
// and its line marked; the tables' columns insert their names; and hostile event names, keys
// and values are shown as text with nothing run.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { screenshotThemes } from "../../helpers/console-browser.ts";
import { expectNothingRan, hostile, nativeEvent, startDataPages, type DataPagesFixture, type PageGlobals } from "./data-pages-fixture.ts";

let fixture: DataPagesFixture;
let page: Page;

const formulaSql = "SELECT distinct_id, p_note, p_n\nFROM events\nWHERE event = 'formula'\nORDER BY distinct_id";

beforeAll(async () => {
  fixture = await startDataPages("SQL shop");
  await fixture.send([
    nativeEvent({ event: "formula", distinct_id: "u1", properties: { note: '=HYPERLINK("http://evil.example","x")', n: 1 } }),
    nativeEvent({ event: "formula", distinct_id: "u2", properties: { note: '+1,"quoted"\nline', n: -2 } }),
    nativeEvent({ event: "formula", distinct_id: "u3", properties: { note: "@SUM(A1)", n: 2.5 } }),
    nativeEvent({ event: "formula", distinct_id: "u4", properties: { note: "-3" } }),
    nativeEvent({ event: hostile.markup, distinct_id: hostile.scriptUrl, properties: { [hostile.scriptEnd]: hostile.markup } }),
  ]);
}, 120_000);
afterAll(() => fixture?.close());

const editor = () => page.getByLabel("Statement", { exact: true });
/** The result table as text: header cells, then each row's cells. */
const resultTable = () =>
  page.locator(".sql-results table").evaluate((table) => [...table.querySelectorAll("tr")].map((tr) => [...tr.querySelectorAll("th, td")].map((cell) => cell.textContent)));
/** How the page writes a value of POST /sql's answer. */
const shownValue = (value: unknown) => (value === null ? "NULL" : typeof value === "object" ? JSON.stringify(value) : String(value));

async function runStatement(sql: string): Promise<void> {
  await editor().fill(sql);
  await editor().press("Control+Enter");
}

test("the tables and the environment's property columns are listed beside the editor", async () => {
  page = await fixture.open("/sql", "SQL");
  expect(await page.getByRole("link", { name: "SQL" }).getAttribute("aria-current")).toBe("page");
  await page.getByRole("button", { name: "Insert column p_note" }).waitFor();
  // Only the events table is open at first.
  expect(await page.getByRole("button", { name: `Insert column p_${hostile.scriptEnd}` }).count()).toBe(1);
  expect(await page.locator(".schema-table-name").allTextContents()).toEqual(["events30", "stored_events29", "person_overrides2"]);
});

test("a statement run with Ctrl+Enter shows exactly POST /sql's answer for it, and the URL keeps it", async () => {
  await runStatement(formulaSql);
  await page.getByText("4 rows", { exact: false }).waitFor();
  const answer = await fixture.region("POST", "/sql", { sql: formulaSql });
  expect(answer.status).toBe(200);
  expect(await resultTable()).toEqual([answer.body.columns, ...answer.body.rows.map((row: unknown[]) => row.map(shownValue))]);
  expect(answer.body.rows).toEqual([["u1", '=HYPERLINK("http://evil.example","x")', 1], ["u2", '+1,"quoted"\nline', -2], ["u3", "@SUM(A1)", 2.5], ["u4", "-3", null]]);
  await page.waitForFunction((sql) => new URLSearchParams((globalThis as unknown as PageGlobals).location.search).get("sql") === sql, formulaSql);
  await screenshotThemes(page, "sql-results");

  await page.reload();
  await page.getByRole("button", { name: "Insert column p_note" }).waitFor();
  expect(await editor().inputValue()).toBe(formulaSql);
});

test("the CSV download is RFC 4180, with text a spreadsheet would run as a formula neutralised", async () => {
  await runStatement(formulaSql);
  await page.getByText("4 rows", { exact: false }).waitFor();
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^sql-result-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, "utf8");
  expect(csv).toBe(
    "\uFEFFdistinct_id,p_note,p_n\r\n" +
      `u1,"'=HYPERLINK(""http://evil.example"",""x"")",1\r\n` +
      `u2,"'+1,""quoted""\nline",-2\r\n` +
      "u3,'@SUM(A1),2.5\r\n" +
      "u4,'-3,\r\n",
  );
});

test("a syntax error shows DuckDB's message where it occurred, its line marked", async () => {
  const broken = "SELECT event,\n  nope\nFROM events";
  await runStatement(broken);
  const error = page.locator(".sql-error");
  await error.waitFor();
  const answer = await fixture.region("POST", "/sql", { sql: broken });
  expect(answer.status).toBe(400);
  expect(await error.locator(".sql-error-message").textContent()).toBe(answer.body.error.message);
  expect(await error.locator(".sql-error-title").textContent()).toBe("The statement did not run: line 2.Show line 2");
  expect(await page.locator(".sql-line-error").allTextContents()).toEqual(["2"]);
  expect(await editor().getAttribute("aria-invalid")).toBe("true");
  expect(await page.locator(".sql-results").count()).toBe(0);
  await screenshotThemes(page, "sql-error");

  await error.getByRole("button", { name: "Show line 2" }).click();
  const selected = await editor().evaluate((element) => {
    const textarea = element as unknown as { value: string; selectionStart: number; selectionEnd: number };
    return textarea.value.slice(textarea.selectionStart, textarea.selectionEnd);
  });
  expect(selected).toBe("  nope");
});

test("Tab indents with spaces, and a column's name is typed at the cursor", async () => {
  await editor().fill("SELECT");
  await editor().press("End");
  await editor().press("Tab");
  await page.getByRole("button", { name: "Insert column distinct_id" }).first().click();
  await page.getByRole("button", { name: "Insert column $group_0" }).first().click();
  expect(await editor().inputValue()).toBe('SELECT  distinct_id"$group_0"');
  // Escape, then Tab, leaves the editor.
  await editor().press("Escape");
  await editor().press("Tab");
  expect(await editor().evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)).toBe(false);
});

test("hostile event names, property keys and values are shown as text in the results and the tables, and nothing runs", async () => {
  const sql = `SELECT event, distinct_id, "p_${hostile.scriptEnd}" FROM events WHERE event LIKE '<img%'`;
  await runStatement(sql);
  await page.getByText("1 row", { exact: false }).waitFor();
  expect(await resultTable()).toEqual([["event", "distinct_id", `p_${hostile.scriptEnd}`], [hostile.markup, hostile.scriptUrl, hostile.markup]]);
  await expectNothingRan(page);
  // The one refusal is the syntax error's, which the test sent on purpose.
  expect(fixture.tab.problems).toEqual(["console error: Failed to load resource: the server responded with a status of 400 (Bad Request)"]);
});
