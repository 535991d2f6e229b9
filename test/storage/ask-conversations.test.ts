// The conversation store on its own: the list's bound at its edge, owners kept apart by
// project, environment and user, the per-conversation bound, and titles.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import {
  askConversationsListedMax, askMessagesPerConversationMax, askTitle, askTitleCharsMax, AskConversationStore, ConversationFullError, type AskOwner,
} from "../../storage/ask-conversations.ts";

const owner: AskOwner = { projectId: "p1", environment: "production", userId: "u1" };
const answer = { content: "an answer", query: null, sql: null, result: null, resultTruncated: false, steps: [], model: "m" };
const store = () => new AskConversationStore(new Database(":memory:", { strict: true }));
const at = (second: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, second));

describe("AskConversationStore", () => {
  test(`the list holds the ${askConversationsListedMax} most recently updated conversations`, () => {
    const conversations = store();
    const ids: string[] = [];
    for (let index = 0; index < askConversationsListedMax; index++) ids.push(conversations.addTurn(owner, null, `question ${index}`, answer, at(index))!.conversationId);
    expect(conversations.list(owner).map((entry) => entry.id)).toEqual(ids.toReversed());
    const newest = conversations.addTurn(owner, null, "one more", answer, at(askConversationsListedMax))!.conversationId;
    const listed = conversations.list(owner);
    expect(listed.length).toBe(askConversationsListedMax);
    expect(listed.map((entry) => entry.id)).toEqual([newest, ...ids.toReversed().slice(0, askConversationsListedMax - 1)]);
    // Continuing the oldest brings it back to the top.
    conversations.addTurn(owner, ids[0]!, "again", answer, at(askConversationsListedMax + 1));
    expect(conversations.list(owner)[0]).toEqual({ id: ids[0]!, title: "question 0", created_at: at(0).toISOString(), updated_at: at(askConversationsListedMax + 1).toISOString(), message_count: 4 });
  });

  test("owners are kept apart by project, environment and user", () => {
    const conversations = store();
    const id = conversations.addTurn(owner, null, "mine", answer, at(0))!.conversationId;
    for (const other of [{ ...owner, projectId: "p2" }, { ...owner, environment: "staging" }, { ...owner, userId: "u2" }]) {
      expect(conversations.list(other)).toEqual([]);
      expect(conversations.get(other, id)).toBeNull();
      expect(conversations.addTurn(other, id, "theirs", answer, at(1))).toBeNull();
    }
    expect(conversations.get(owner, id)!.messages.length).toBe(2);
  });

  test(`a conversation takes turns until it holds ${askMessagesPerConversationMax} messages`, () => {
    const conversations = store();
    const id = conversations.addTurn(owner, null, "first", answer, at(0))!.conversationId;
    for (let turn = 2; turn <= askMessagesPerConversationMax / 2; turn++) conversations.addTurn(owner, id, `turn ${turn}`, answer, at(turn));
    expect(conversations.messageCount(owner, id)).toBe(askMessagesPerConversationMax);
    expect(() => conversations.addTurn(owner, id, "too many", answer, at(99))).toThrow(ConversationFullError);
    expect(conversations.messageCount(owner, id)).toBe(askMessagesPerConversationMax);
  });

  test(`titles: whitespace folded, cut to ${askTitleCharsMax} characters (code points)`, () => {
    expect(askTitle("  How many\n\tsign-ups?  ")).toBe("How many sign-ups?");
    expect(askTitle("🙂".repeat(askTitleCharsMax))).toBe("🙂".repeat(askTitleCharsMax));
    expect(askTitle("🙂".repeat(askTitleCharsMax + 1))).toBe(`${"🙂".repeat(askTitleCharsMax - 1)}…`);
  });
});
