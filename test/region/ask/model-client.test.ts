// The model client on its own: an endpoint that cannot be reached is 503, one that answers
// without a message 502, each naming what to check and never the API key.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ApiError } from "../../../server/http/errors.ts";
import { OpenAiChatModel } from "../../../server/region/ask/model-client.ts";
import { startFakeChatModel, type FakeChatModel } from "../../helpers/fake-chat-model.ts";

const apiKey = "sk-model-client-secret";
let fake: FakeChatModel;

beforeAll(async () => {
  fake = await startFakeChatModel();
});

afterAll(async () => {
  await fake.close();
});

const request = { messages: [{ role: "user" as const, content: "hi" }], tools: [], toolsAllowed: true, timeoutMs: 5_000 };

async function failure(model: OpenAiChatModel): Promise<{ status: number; code: string; message: string }> {
  try {
    await model.complete(request);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error("the call succeeded");
}

test("an endpoint that cannot be reached is 503 unavailable naming ASK_BASE_URL", async () => {
  const closed = await startFakeChatModel();
  const url = closed.url;
  await closed.close();
  const model = new OpenAiChatModel({ baseUrl: url, model: "m", apiKey, timeoutMs: 5_000 });
  const { status, code, message } = await failure(model);
  expect([status, code]).toEqual([503, "unavailable"]);
  expect(message).toStartWith("the language model endpoint (ASK_BASE_URL) could not be reached: ");
  expect(message).not.toContain(apiKey);
});

test("an answer without a message is 502; a body that is not an error object still names the status", async () => {
  const model = new OpenAiChatModel({ baseUrl: fake.url, model: "m", apiKey, timeoutMs: 5_000 });
  fake.script([{ status: 200, body: { id: "x", object: "chat.completion", choices: [] } }]);
  expect(await failure(model)).toEqual({ status: 502, code: "unavailable", message: "the language model endpoint answered without a message (model m)" });
  fake.script([{ status: 503, body: "overloaded" }]);
  expect(await failure(model)).toEqual({ status: 502, code: "unavailable", message: "the language model endpoint answered 503: 503 status code (no body)" });
});

test("a successful call sends the model and the messages, and no tools or tool_choice when none are offered", async () => {
  const model = new OpenAiChatModel({ baseUrl: fake.url, model: "m", apiKey, timeoutMs: 5_000 });
  fake.script([{ content: "hello" }]);
  const turn = await model.complete(request);
  expect(turn as unknown).toEqual({ message: { role: "assistant", content: "hello" }, finishReason: "stop" });
  expect(fake.requests.map((recorded) => [recorded.path, recorded.headers.authorization, recorded.body])).toEqual([
    ["/v1/chat/completions", `Bearer ${apiKey}`, { model: "m", messages: [{ role: "user", content: "hi" }] }],
  ]);
});
