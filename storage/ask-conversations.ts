// Ask's conversations (region.sqlite; docs/ask.md): per project, environment and user (the
// region token's subject), each a list of messages, a user's question and Ask's answer in
// turns. A question and its answer are stored together once the answer exists, so a failed
// model call leaves nothing half-written. The tables are created here, if missing: nothing
// else refers to them.
import type { Database, Statement } from "bun:sqlite";

/** Messages one conversation holds at most (a question and its answer are two). */
export const askMessagesPerConversationMax = 40;
/** Conversations the list returns at most, most recently updated first. */
export const askConversationsListedMax = 100;
/** A conversation's title: its first question, cut to this many characters. */
export const askTitleCharsMax = 80;

const schema = `
CREATE TABLE IF NOT EXISTS ask_conversations (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  environment TEXT NOT NULL,
  user_id TEXT NOT NULL,
  title TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  message_count INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ask_conversations_owner ON ask_conversations (project_id, environment, user_id, updated_at);
CREATE TABLE IF NOT EXISTS ask_messages (
  id TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  query TEXT,
  sql TEXT,
  result TEXT,
  result_truncated INTEGER NOT NULL,
  steps TEXT NOT NULL,
  model TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (conversation_id, seq)
) WITHOUT ROWID;
`;

/** Whose conversations: every read and write is scoped to these three. */
export interface AskOwner {
  projectId: string;
  environment: string;
  userId: string;
}

export interface AskConversationSummary {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  message_count: number;
}

export interface AskMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
  query: Record<string, unknown> | null;
  sql: string | null;
  result: unknown;
  result_truncated: boolean;
  steps: unknown[];
  created_at: string;
}

export interface AskConversation extends Omit<AskConversationSummary, "message_count"> {
  messages: AskMessage[];
}

/** The answer half of a turn, as stored. */
export interface AskAnswerRecord {
  content: string;
  query: Record<string, unknown> | null;
  sql: string | null;
  result: unknown;
  resultTruncated: boolean;
  steps: unknown[];
  model: string;
}

interface ConversationRow {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  message_count: number;
}

interface MessageRow {
  id: string;
  role: "user" | "assistant";
  content: string;
  query: string | null;
  sql: string | null;
  result: string | null;
  result_truncated: number;
  steps: string;
  created_at: string;
}

/** Refused because the conversation already holds askMessagesPerConversationMax messages. */
export class ConversationFullError extends Error {}

export const askTitle = (question: string): string => {
  const flat = question.replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length > askTitleCharsMax ? `${chars.slice(0, askTitleCharsMax - 1).join("")}…` : flat;
};

export class AskConversationStore {
  private readonly findStatement: Statement<ConversationRow, [string, string, string, string]>;
  private readonly listStatement: Statement<ConversationRow, [string, string, string, number]>;
  private readonly messagesStatement: Statement<MessageRow, [string]>;
  private readonly insertMessage: Statement;

  constructor(private readonly db: Database) {
    db.exec(schema);
    const owned = "project_id = ? AND environment = ? AND user_id = ?";
    this.findStatement = db.query(`SELECT id, title, created_at, updated_at, message_count FROM ask_conversations WHERE id = ? AND ${owned}`);
    this.listStatement = db.query(`SELECT id, title, created_at, updated_at, message_count FROM ask_conversations WHERE ${owned} ORDER BY updated_at DESC, id DESC LIMIT ?`);
    this.messagesStatement = db.query("SELECT id, role, content, query, sql, result, result_truncated, steps, created_at FROM ask_messages WHERE conversation_id = ? ORDER BY seq");
    this.insertMessage = db.query(
      "INSERT INTO ask_messages (id, conversation_id, seq, role, content, query, sql, result, result_truncated, steps, model, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
  }

  /** The owner's conversations, most recently updated first (at most askConversationsListedMax). */
  /**
   * Deletes every conversation of a project (an erasure in it: answers are copies of what queries
   * read, and a person's mentions in free text cannot be found reliably); how many messages went.
   */
  deleteProject(projectId: string): number {
    return this.db.transaction(() => {
      const { changes } = this.db.run("DELETE FROM ask_messages WHERE conversation_id IN (SELECT id FROM ask_conversations WHERE project_id = ?)", [projectId]);
      this.db.run("DELETE FROM ask_conversations WHERE project_id = ?", [projectId]);
      return changes;
    })();
  }

  list(owner: AskOwner): AskConversationSummary[] {
    return this.listStatement.all(owner.projectId, owner.environment, owner.userId, askConversationsListedMax).map((row) => ({ ...row }));
  }

  /** The owner's conversation with its messages, or null (another user's, project's or environment's is null too). */
  get(owner: AskOwner, id: string): AskConversation | null {
    const row = this.findStatement.get(id, owner.projectId, owner.environment, owner.userId);
    if (!row) return null;
    return { id: row.id, title: row.title, created_at: row.created_at, updated_at: row.updated_at, messages: this.messagesStatement.all(id).map(messageOf) };
  }

  /** The owner's conversation's size, or null when it is not theirs. */
  messageCount(owner: AskOwner, id: string): number | null {
    return this.findStatement.get(id, owner.projectId, owner.environment, owner.userId)?.message_count ?? null;
  }

  /**
   * Stores a question and its answer, in a new conversation when `conversationId` is null.
   * Throws ConversationFullError when the conversation has no room for two more messages, and
   * returns null when it is not the owner's (it may have been asked for by another user).
   */
  addTurn(owner: AskOwner, conversationId: string | null, question: string, answer: AskAnswerRecord, at: Date): { conversationId: string; messageId: string; createdAt: string } | null {
    const createdAt = at.toISOString();
    return this.db.transaction(() => {
      let id = conversationId;
      let seq = 0;
      if (id === null) {
        id = crypto.randomUUID();
        this.db.run(
          "INSERT INTO ask_conversations (id, project_id, environment, user_id, title, created_at, updated_at, message_count) VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
          [id, owner.projectId, owner.environment, owner.userId, askTitle(question), createdAt, createdAt],
        );
      } else {
        const count = this.messageCount(owner, id);
        if (count === null) return null;
        if (count + 2 > askMessagesPerConversationMax) throw new ConversationFullError();
        seq = count;
      }
      const messageId = crypto.randomUUID();
      this.insertMessage.run(crypto.randomUUID(), id, seq, "user", question, null, null, null, 0, "[]", null, createdAt);
      this.insertMessage.run(
        messageId, id, seq + 1, "assistant", answer.content,
        answer.query === null ? null : JSON.stringify(answer.query), answer.sql,
        answer.result === null ? null : JSON.stringify(answer.result), answer.resultTruncated ? 1 : 0,
        JSON.stringify(answer.steps), answer.model, createdAt,
      );
      this.db.run("UPDATE ask_conversations SET message_count = message_count + 2, updated_at = ? WHERE id = ?", [createdAt, id]);
      return { conversationId: id, messageId, createdAt };
    })();
  }
}

function messageOf(row: MessageRow): AskMessage {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    query: row.query === null ? null : (JSON.parse(row.query) as Record<string, unknown>),
    sql: row.sql,
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    result_truncated: row.result_truncated === 1,
    steps: JSON.parse(row.steps) as unknown[],
    created_at: row.created_at,
  };
}
