// Ask without a model (503 saying how to configure one; the conversation routes still work),
// with a model that never answers (503 after ASK_TIMEOUT_MS), and the settings themselves.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../../server/config.ts";
import { askConfigureHint, askTimeoutMsDefault } from "../../../server/region/ask/ask-settings.ts";
import { aTime, anId, ask, regionGet, startAskFixture, testModel, type AskFixture } from "./ask-fixture.ts";

let withoutModel: AskFixture;
let slowModel: AskFixture;
const timeoutMs = 300;

beforeAll(async () => {
  [withoutModel, slowModel] = await Promise.all([
    startAskFixture({ ASK_BASE_URL: "", ASK_MODEL: "", ASK_API_KEY: "" }),
    startAskFixture({ ASK_TIMEOUT_MS: String(timeoutMs), ASK_API_KEY: "" }),
  ]);
});

afterAll(async () => {
  await Promise.all([withoutModel.close(), slowModel.close()]);
});

test("without a model POST /ask is 503 saying how to configure one; the conversation routes still answer", async () => {
  const token = await withoutModel.tokenFor(["ai:read", "query:read"]);
  const reply = await ask(withoutModel, token, { question: "How many page views?" });
  expect([reply.status, reply.body]).toEqual([503, { error: { code: "unavailable", message: `Ask has no language model configured: ${askConfigureHint}` } }]);
  expect(reply.body.error.message).toContain("ASK_BASE_URL");
  const list = await regionGet(withoutModel, token, "/ask/conversations");
  expect([list.status, list.body]).toEqual([200, { conversations: [] }]);
  const missing = await regionGet(withoutModel, token, `/ask/conversations/${crypto.randomUUID()}`);
  expect([missing.status, missing.body]).toEqual([404, { error: { code: "not_found", message: "conversation not found" } }]);
});

test(`a model that never answers is 503 after ASK_TIMEOUT_MS (${timeoutMs} ms here), and nothing is stored`, async () => {
  const token = await slowModel.tokenFor(["ai:read", "query:read"]);
  slowModel.model.script([{ hang: true }]);
  const started = performance.now();
  const reply = await ask(slowModel, token, { question: "How many page views?" });
  expect(performance.now() - started).toBeGreaterThanOrEqual(timeoutMs);
  expect([reply.status, reply.body]).toEqual([503, {
    error: { code: "unavailable", message: `the language model (${testModel}) did not answer within ${timeoutMs} ms (ASK_TIMEOUT_MS); try again, or configure a faster model` },
  }]);
  expect(slowModel.model.requests.length).toBe(1);
  expect((await regionGet(slowModel, token, "/ask/conversations")).body).toEqual({ conversations: [] });
});

test("without ASK_API_KEY no Authorization header is sent (local servers need none)", async () => {
  const token = await slowModel.tokenFor(["ai:read"]);
  slowModel.model.script([{ content: "Hello." }]);
  const reply = await ask(slowModel, token, { question: "hi" });
  expect([reply.status, reply.body]).toEqual([200, {
    conversation_id: anId, message_id: anId, answer: "Hello.", query: null, sql: null, result: null, result_truncated: false, steps: [], model: testModel, created_at: aTime,
  }]);
  expect(slowModel.model.requests[0]!.headers.authorization).toBeUndefined();
});

describe("settings", () => {
  const base = { DATA_DIR: "/tmp/unused" };
  test("none: Ask off; both: on with the default time-out; the key and time-out optional", () => {
    expect(loadConfig(base).ask).toBeNull();
    expect(loadConfig({ ...base, ASK_BASE_URL: "http://localhost:11434/v1/", ASK_MODEL: "qwen2.5:7b" }).ask).toEqual({
      baseUrl: "http://localhost:11434/v1", model: "qwen2.5:7b", apiKey: null, timeoutMs: askTimeoutMsDefault,
    });
    expect(loadConfig({ ...base, ASK_BASE_URL: "https://api.example.com/v1", ASK_MODEL: "m", ASK_API_KEY: "k", ASK_TIMEOUT_MS: "100" }).ask).toEqual({
      baseUrl: "https://api.example.com/v1", model: "m", apiKey: "k", timeoutMs: 100,
    });
    expect(loadConfig({ ...base, ASK_BASE_URL: "http://x/v1", ASK_MODEL: "m", ASK_TIMEOUT_MS: "210000" }).ask?.timeoutMs).toBe(210_000);
  });

  test("one without the other, a URL that is not http(s), or a time-out out of range stops start-up", () => {
    const refused = (env: Record<string, string>, message: string) => expect(() => loadConfig({ ...base, ...env })).toThrow(new ConfigError(message));
    refused({ ASK_MODEL: "m" }, `Ask needs both ASK_BASE_URL and ASK_MODEL: ${askConfigureHint}`);
    refused({ ASK_BASE_URL: "http://x/v1" }, `Ask needs both ASK_BASE_URL and ASK_MODEL: ${askConfigureHint}`);
    refused({ ASK_API_KEY: "k" }, `ASK_API_KEY is set but Ask has no model: ${askConfigureHint}`);
    refused({ ASK_BASE_URL: "ftp://x/v1", ASK_MODEL: "m" }, 'ASK_BASE_URL must be an http(s) URL such as http://localhost:11434/v1, got "ftp://x/v1"');
    refused({ ASK_BASE_URL: "localhost:11434", ASK_MODEL: "m" }, 'ASK_BASE_URL must be an http(s) URL such as http://localhost:11434/v1, got "localhost:11434"');
    refused({ ASK_BASE_URL: "http://x/v1", ASK_MODEL: "m", ASK_TIMEOUT_MS: "99" }, 'ASK_TIMEOUT_MS must be an integer from 100 to 210000, got "99"');
    refused({ ASK_BASE_URL: "http://x/v1", ASK_MODEL: "m", ASK_TIMEOUT_MS: "210001" }, 'ASK_TIMEOUT_MS must be an integer from 100 to 210000, got "210001"');
  });
});
