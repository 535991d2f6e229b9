// POST /ask, GET /ask/conversations and GET /ask/conversations/{id} (scope ai:read;
// docs/ask.md): questions in plain language answered by a language model that runs the
// region's own read tools with the caller's token, and the caller's stored conversations.
// Conversations belong to the token's project, environment and user: anyone else's is 404.
import { Elysia, t } from "elysia";
import { ApiError, jsonResponse } from "../../http/errors.ts";
import { readJsonBody } from "../../http/body.ts";
import { validateBody } from "../../http/validate.ts";
import { badRequest, regionAccess, type CheckedClaims, type RegionTokenCheck } from "../region-access.ts";
import { askMessagesPerConversationMax, ConversationFullError, type AskConversation, type AskConversationStore, type AskOwner } from "../../../storage/ask-conversations.ts";
import type { AskAgent, HistoryTurn } from "./ask-agent.ts";
import { askConfigureHint } from "./ask-settings.ts";

/** Where POST /ask is mounted in the region app (the service gives it a longer request time-out). */
export const askPath = "/ask";
export const askQuestionCharsMax = 2_000;
const askBodyBytesMax = 64 * 1024;
/** Previous messages sent to the model with a question (the most recent ones). */
export const askHistoryMessagesMax = 10;
/** Each previous message is cut to this many characters before it is sent again. */
export const askHistoryMessageCharsMax = 4_000;

const AskBody = t.Object(
  { question: t.String(), conversation_id: t.Optional(t.String()) },
  { additionalProperties: false },
);

const idPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const conversationNotFound = () => new ApiError(404, "not_found", "conversation not found");
const ownerOf = (claims: CheckedClaims): AskOwner => ({ projectId: claims.projectId, environment: claims.environment, userId: claims.userId });

function checkedQuestion(question: string): string {
  const chars = [...question].length;
  if (chars < 1 || chars > askQuestionCharsMax) throw badRequest(`question must be 1 to ${askQuestionCharsMax} characters, got ${chars}`);
  if (question.trim() === "") throw badRequest("question must not be blank");
  return question;
}

const cut = (text: string) => (text.length > askHistoryMessageCharsMax ? `${text.slice(0, askHistoryMessageCharsMax)}…` : text);

/** The conversation's last messages as the model sees them again: questions, and answers with the Query IR or SQL they ran. */
function historyOf(conversation: AskConversation): HistoryTurn[] {
  return conversation.messages.slice(-askHistoryMessagesMax).map((message) => {
    if (message.role === "user") return { role: "user", content: cut(message.content) };
    const evidence = message.query !== null ? `\n\nQuery IR it ran: ${JSON.stringify(message.query)}` : message.sql !== null ? `\n\nSQL it ran: ${message.sql}` : "";
    return { role: "assistant", content: cut(message.content + evidence) };
  });
}

export interface AskRoutesOptions {
  /** null: no model configured, POST /ask answers 503. */
  agent: AskAgent | null;
  conversations: AskConversationStore;
  check: RegionTokenCheck;
}

export function askRoutes({ agent, conversations, check }: AskRoutesOptions) {
  return new Elysia({ name: `region-ask-${check.region}` })
    .post(askPath, async ({ request }) => {
      const claims = await regionAccess(request, check, "ai:read");
      if (agent === null) throw new ApiError(503, "unavailable", `Ask has no language model configured: ${askConfigureHint}`);
      const body = validateBody<typeof AskBody.static>(AskBody, await readJsonBody(request, askBodyBytesMax));
      const question = checkedQuestion(body.question);
      const owner = ownerOf(claims);
      let history: HistoryTurn[] = [];
      const conversationId = body.conversation_id ?? null;
      if (conversationId !== null) {
        const conversation = idPattern.test(conversationId) ? conversations.get(owner, conversationId) : null;
        if (conversation === null) throw conversationNotFound();
        if (conversation.messages.length + 2 > askMessagesPerConversationMax) throw conversationFull();
        history = historyOf(conversation);
      }
      const outcome = await agent.answer(question, history, claims);
      let stored;
      try {
        stored = conversations.addTurn(owner, conversationId, question, { content: outcome.answer, ...outcome }, new Date());
      } catch (error) {
        if (error instanceof ConversationFullError) throw conversationFull();
        throw error;
      }
      if (stored === null) throw conversationNotFound();
      return jsonResponse(200, {
        conversation_id: stored.conversationId,
        message_id: stored.messageId,
        answer: outcome.answer,
        query: outcome.query,
        sql: outcome.sql,
        result: outcome.result,
        result_truncated: outcome.resultTruncated,
        steps: outcome.steps,
        model: outcome.model,
        created_at: stored.createdAt,
      });
    }, { parse: "none" })
    .get(`${askPath}/conversations`, async ({ request }) => {
      const claims = await regionAccess(request, check, "ai:read");
      return jsonResponse(200, { conversations: conversations.list(ownerOf(claims)) });
    })
    .get(`${askPath}/conversations/:id`, async ({ request, params }) => {
      const claims = await regionAccess(request, check, "ai:read");
      const conversation = idPattern.test(params.id) ? conversations.get(ownerOf(claims), params.id) : null;
      if (conversation === null) throw conversationNotFound();
      return jsonResponse(200, conversation);
    });
}

const conversationFull = () =>
  new ApiError(409, "conflict", `a conversation holds at most ${askMessagesPerConversationMax} messages (${askMessagesPerConversationMax / 2} questions and their answers); start a new conversation`);
