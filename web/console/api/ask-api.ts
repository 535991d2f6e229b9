// Ask (docs/ask.md): a question in plain language answered by the region's POST /ask with the
// Query IR it ran, the result, and the SQL it cites (the same SQL include_sql returns), and the
// caller's conversations (GET /ask/conversations, /ask/conversations/{id}); ai:read.
import type { QueryAnswer, QueryIrDocument } from "./query-types.ts";
import { regionJson } from "./region-api.ts";
import type { RegionTokenSource } from "./region-token.ts";
import type { SqlResult } from "./sql.ts";

/** The longest question the region takes (spec 2, POST /ask). */
export const questionCharsMax = 2000;

export interface AskStep {
  tool: string;
  arguments: unknown;
  ok: boolean;
  error: string | null;
}

/** What an answer carries beside its text: what it ran, what that gave, and how it got there. */
export interface AskEvidence {
  query: QueryIrDocument | null;
  sql: string | null;
  /** The /query answer's result (or the SQL tool's rows), bounded. */
  result: unknown;
  result_truncated: boolean;
  steps: AskStep[];
}

export interface AskAnswer extends AskEvidence {
  conversation_id: string;
  message_id: string;
  answer: string;
  model: string;
  created_at: string;
}

export interface ConversationSummary {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  message_count: number;
}

export interface ConversationMessage extends AskEvidence {
  id: string;
  role: "user" | "assistant";
  content: string;
  created_at: string;
}

export interface Conversation {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  messages: ConversationMessage[];
}

export const ask = (tokens: RegionTokenSource, question: string, conversationId: string | null) =>
  regionJson<AskAnswer>(tokens, "POST", "/ask", conversationId === null ? { question } : { question, conversation_id: conversationId });
export const listConversations = (tokens: RegionTokenSource) => regionJson<{ conversations: ConversationSummary[] }>(tokens, "GET", "/ask/conversations");
export const getConversation = (tokens: RegionTokenSource, id: string) => regionJson<Conversation>(tokens, "GET", `/ask/conversations/${encodeURIComponent(id)}`);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The result as the chart component takes it: a /query answer. Ask hands back the answer's
 * `result` (an insight result with its `kind`); a whole answer is taken as it is.
 */
export function queryAnswerOf(result: unknown, computedAt: string): QueryAnswer | null {
  if (!isObject(result)) return null;
  if (typeof result.kind === "string") return { result: result as unknown as QueryAnswer["result"], cached: false, computed_at: computedAt, rows_read: 0 };
  if (isObject(result.result) && typeof result.result.kind === "string") return result as unknown as QueryAnswer;
  return null;
}

/** The result as rows of a table, when it is the SQL tool's answer (columns and rows). */
export function sqlRowsOf(result: unknown): Pick<SqlResult, "columns" | "rows"> | null {
  if (!isObject(result) || !Array.isArray(result.columns) || !Array.isArray(result.rows)) return null;
  if (!result.columns.every((column) => typeof column === "string") || !result.rows.every(Array.isArray)) return null;
  return { columns: result.columns as string[], rows: result.rows as SqlResult["rows"] };
}
