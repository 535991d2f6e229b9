// Ask's conversations over HTTP: continuing one sends its previous turns (bounded), the list
// and the conversation as stored, someone else's or another project's conversation is 404,
// and the question and conversation limits at their edges.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { askSystemPrompt } from "../../../server/region/ask/system-prompt.ts";
import { askHistoryMessagesMax, askQuestionCharsMax } from "../../../server/region/ask/ask-routes.ts";
import { askMessagesPerConversationMax, askTitleCharsMax } from "../../../storage/ask-conversations.ts";
import { addMember, createToken, regionTokenFor } from "../../helpers/accounts.ts";
import { aTime, anId, ask, createProjectWithKey, pageViewsIr, regionGet, startAskFixture, type AskFixture } from "./ask-fixture.ts";

let fixture: AskFixture;
let token: string;

beforeAll(async () => {
  fixture = await startAskFixture();
  token = await fixture.tokenFor(["ai:read", "query:read"]);
});

afterAll(async () => {
  await fixture.close();
});

const answerOnly = (content: string) => [{ content }];

describe("conversations", () => {
  let conversationId: string;
  let first: any;
  let second: any;

  test("a question starts a conversation; conversation_id continues it with the previous turns sent to the model", async () => {
    fixture.model.script([{ toolCalls: [{ name: "run_query", arguments: { query: pageViewsIr } }] }, { content: "3 page views." }]);
    first = (await ask(fixture, token, { question: "How many\npage views?" })).body;
    conversationId = first.conversation_id;
    fixture.model.script(answerOnly("Up from 1 the week before."));
    const reply = await ask(fixture, token, { question: "And the week before?", conversation_id: conversationId });
    expect(reply.status).toBe(200);
    second = reply.body;
    expect(second.conversation_id).toBe(conversationId);
    expect(fixture.model.requests[0]!.body.messages).toEqual([
      { role: "system", content: askSystemPrompt },
      { role: "user", content: "How many\npage views?" },
      { role: "assistant", content: `3 page views.\n\nQuery IR it ran: ${JSON.stringify(pageViewsIr)}` },
      { role: "user", content: "And the week before?" },
    ]);
  });

  test("the list and the conversation, as stored", async () => {
    const list = await regionGet(fixture, token, "/ask/conversations");
    const conversation = await regionGet(fixture, token, `/ask/conversations/${conversationId}`);
    expect([list.status, list.body]).toEqual([200, {
      conversations: [{ id: conversationId, title: "How many page views?", created_at: first.created_at, updated_at: second.created_at, message_count: 4 }],
    }]);
    const question = (content: string, createdAt: string) => ({ id: anId, role: "user", content, query: null, sql: null, result: null, result_truncated: false, steps: [], created_at: createdAt });
    expect([conversation.status, conversation.body]).toEqual([200, {
      id: conversationId, title: "How many page views?", created_at: first.created_at, updated_at: second.created_at,
      messages: [
        question("How many\npage views?", first.created_at),
        { id: first.message_id, role: "assistant", content: "3 page views.", query: pageViewsIr, sql: first.sql, result: first.result, result_truncated: false, steps: first.steps, created_at: first.created_at },
        question("And the week before?", second.created_at),
        { id: second.message_id, role: "assistant", content: "Up from 1 the week before.", query: null, sql: null, result: null, result_truncated: false, steps: [], created_at: second.created_at },
      ],
    }]);
    expect(first.sql).toEqual(expect.any(String));
  });

  test("another member's, another project's, a malformed or an unknown conversation is 404, and nothing is asked of the model", async () => {
    const member = await addMember(fixture.service, fixture.owner, "member");
    const memberSecret = (await createToken(member, ["query:read", "ai:read"])).secret;
    const memberToken = await regionTokenFor(fixture.service, memberSecret, fixture.projectId, ["ai:read", "query:read"]);
    const other = await createProjectWithKey(fixture.owner, "Other");
    const otherProjectToken = await fixture.tokenFor(["ai:read", "query:read"], other.projectId);
    const notFound = { error: { code: "not_found", message: "conversation not found" } };
    fixture.model.script(answerOnly("never sent"));
    for (const [who, id] of [[memberToken, conversationId], [otherProjectToken, conversationId], [token, "not-a-uuid"], [token, crypto.randomUUID()]] as const) {
      const got = await regionGet(fixture, who, `/ask/conversations/${id}`);
      expect([got.status, got.body]).toEqual([404, notFound]);
      const continued = await ask(fixture, who, { question: "More?", conversation_id: id });
      expect([continued.status, continued.body]).toEqual([404, notFound]);
    }
    expect(fixture.model.requests).toEqual([]);
    expect((await regionGet(fixture, memberToken, "/ask/conversations")).body).toEqual({ conversations: [] });
    expect((await regionGet(fixture, otherProjectToken, "/ask/conversations")).body).toEqual({ conversations: [] });
  });

  test("the most recently updated conversation is listed first; the title is the first question cut to its limit", async () => {
    const long = "x".repeat(askTitleCharsMax + 20);
    fixture.model.script(answerOnly("ok"));
    const reply = await ask(fixture, token, { question: long });
    const list = (await regionGet(fixture, token, "/ask/conversations")).body.conversations;
    expect(list.map((entry: any) => [entry.id, entry.title, entry.message_count])).toEqual([
      [reply.body.conversation_id, `${"x".repeat(askTitleCharsMax - 1)}…`, 2],
      [conversationId, "How many page views?", 4],
    ]);
  });
});

describe("limits", () => {
  test(`a question is 1 to ${askQuestionCharsMax} characters (code points), not blank`, async () => {
    const bad = (message: string) => [400, { error: { code: "bad_request", message } }];
    fixture.model.script(answerOnly("fits"));
    const atLimit = await ask(fixture, token, { question: "🙂".repeat(askQuestionCharsMax) });
    expect([atLimit.status, atLimit.body.answer]).toEqual([200, "fits"]);
    const over = await ask(fixture, token, { question: "a".repeat(askQuestionCharsMax + 1) });
    expect([over.status, over.body]).toEqual(bad(`question must be 1 to ${askQuestionCharsMax} characters, got ${askQuestionCharsMax + 1}`));
    const empty = await ask(fixture, token, { question: "" });
    expect([empty.status, empty.body]).toEqual(bad("question must be 1 to 2000 characters, got 0"));
    const blank = await ask(fixture, token, { question: " \n\t" });
    expect([blank.status, blank.body]).toEqual(bad("question must not be blank"));
    const missing = await ask(fixture, token, { conversation_id: crypto.randomUUID() });
    expect([missing.status, missing.body]).toEqual(bad("body /question: Expected required property"));
    const extra = await ask(fixture, token, { question: "hi", project_id: crypto.randomUUID() });
    expect([extra.status, extra.body]).toEqual(bad("body /project_id: Unexpected property"));
  });

  test(`a conversation holds ${askMessagesPerConversationMax} messages; the model sees the last ${askHistoryMessagesMax} of them`, async () => {
    let id: string | undefined;
    for (let turn = 1; turn <= askMessagesPerConversationMax / 2; turn++) {
      fixture.model.script(answerOnly(`answer ${turn}`));
      const reply = await ask(fixture, token, { question: `question ${turn}`, ...(id ? { conversation_id: id } : {}) });
      expect(reply.status).toBe(200);
      id = reply.body.conversation_id;
    }
    const messages = fixture.model.requests[0]!.body.messages;
    expect(messages.length).toBe(1 + askHistoryMessagesMax + 1);
    expect(messages.slice(1, 3)).toEqual([{ role: "user", content: `question ${askMessagesPerConversationMax / 2 - askHistoryMessagesMax / 2}` }, { role: "assistant", content: `answer ${askMessagesPerConversationMax / 2 - askHistoryMessagesMax / 2}` }]);
    fixture.model.script(answerOnly("never sent"));
    const full = await ask(fixture, token, { question: "one more", conversation_id: id });
    expect([full.status, full.body]).toEqual([409, { error: { code: "conflict", message: `a conversation holds at most ${askMessagesPerConversationMax} messages (${askMessagesPerConversationMax / 2} questions and their answers); start a new conversation` } }]);
    expect(fixture.model.requests).toEqual([]);
    const stored = (await regionGet(fixture, token, `/ask/conversations/${id}`)).body;
    expect(stored.messages.length).toBe(askMessagesPerConversationMax);
    expect(stored.messages.at(-1)).toEqual({ id: anId, role: "assistant", content: `answer ${askMessagesPerConversationMax / 2}`, query: null, sql: null, result: null, result_truncated: false, steps: [], created_at: aTime });
  });
});
