// One question's agent loop: the fixed system prompt, the conversation's previous turns
// (bounded), the question, then model calls until the model answers in text. Each tool call
// runs with the caller's claims (ask-tools.ts) and its result goes back as a `role: "tool"`
// message of bounded JSON; arguments that are not JSON, fail their schema or name an unknown
// tool come back as an error result the model can repair. Tool calls and failed calls per
// question are bounded: past either bound the model is asked, without tools, to answer from
// what it has, and the answer says that Ask stopped.
import type { ChatCompletionMessageParam, ChatCompletionMessageToolCall } from "openai/resources/chat/completions";
import { ApiError } from "../../http/errors.ts";
import type { CheckedClaims } from "../region-access.ts";
import { toolResultCharsMax, type AskTools, type Evidence } from "./ask-tools.ts";
import { boundJson } from "./bounded-json.ts";
import type { ChatModel } from "./model-client.ts";
import { askSystemPrompt, stopNote } from "./system-prompt.ts";
import { askQuestionTimeoutMs } from "./ask-settings.ts";

/** Tool calls one question may make. */
export const askToolCallsMax = 8;
/** Failed tool calls (bad arguments, refusals, invalid queries) one question may make before the model must answer. */
export const askToolErrorsMax = 3;
/** A step's `arguments` when they were not JSON: their text, cut to this. */
export const stepArgumentsCharsMax = 2_000;

export interface AskStep {
  tool: string;
  /** The parsed arguments; their raw text (bounded) when they were not JSON. */
  arguments: unknown;
  ok: boolean;
  error: string | null;
}

/** A previous turn, as the model sees it again. */
export interface HistoryTurn {
  role: "user" | "assistant";
  content: string;
}

export interface AskOutcome {
  answer: string;
  query: Record<string, unknown> | null;
  sql: string | null;
  result: unknown;
  resultTruncated: boolean;
  steps: AskStep[];
  model: string;
}

interface FunctionCall {
  id: string;
  name: string;
  rawArguments: string;
}

function functionCalls(toolCalls: ChatCompletionMessageToolCall[] | undefined): FunctionCall[] {
  return (toolCalls ?? []).map((call) =>
    call.type === "function"
      ? { id: call.id, name: call.function.name, rawArguments: call.function.arguments }
      : { id: call.id, name: call.custom.name, rawArguments: call.custom.input },
  );
}

function parseArguments(raw: string): unknown {
  // An empty argument string is how some servers send "no arguments".
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** Room kept under toolResultCharsMax for the `result_truncated` member of a cut result. */
const truncatedMarkChars = 30;

function toolMessage(id: string, body: Record<string, unknown>): ChatCompletionMessageParam {
  const bounded = boundJson(body, toolResultCharsMax - truncatedMarkChars);
  const content = bounded.truncated ? { ...(bounded.value as Record<string, unknown> | null), ok: body.ok, result_truncated: true } : body;
  return { role: "tool", tool_call_id: id, content: JSON.stringify(content) };
}

const questionTimedOut = () =>
  new ApiError(503, "unavailable", `the question took longer than ${askQuestionTimeoutMs / 1000} s, Ask's limit per question; ask a narrower question or configure a faster model`);

export class AskAgent {
  constructor(
    private readonly model: ChatModel,
    private readonly tools: AskTools,
    private readonly modelTimeoutMs: number,
  ) {}

  async answer(question: string, history: HistoryTurn[], claims: CheckedClaims): Promise<AskOutcome> {
    const deadline = Date.now() + askQuestionTimeoutMs;
    const offered = this.tools.offered(claims);
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: askSystemPrompt },
      ...history.map((turn): ChatCompletionMessageParam => ({ role: turn.role, content: turn.content })),
      { role: "user", content: question },
    ];
    const steps: AskStep[] = [];
    let evidence: Evidence | null = null;
    let failed = 0;
    let lastError = "";
    /** Why no more tools run: `model` is what the model is told (never project data), `answer` what the answer says. */
    let stopped: { model: string; answer: string } | null = null;
    for (;;) {
      const toolsAllowed = offered.length > 0 && stopped === null;
      if (stopped !== null) messages.push({ role: "user", content: stopNote(stopped.model) });
      const left = deadline - Date.now();
      if (left <= 0) throw questionTimedOut();
      const turn = await this.model.complete({ messages, tools: offered, toolsAllowed, timeoutMs: Math.min(this.modelTimeoutMs, left) });
      const calls = functionCalls(turn.message.tool_calls);
      // Calls made with no tools offered are still answered: each is refused (ask-tools.ts).
      if (stopped !== null || calls.length === 0) {
        const text = turn.message.content?.trim() || "The model gave no answer text.";
        const note = stopped === null ? "" : `\n\n(${stopped.answer} This answer uses only what the tool calls before it found.)`;
        return {
          answer: text + note,
          query: evidence?.query ?? null,
          sql: evidence?.sql ?? null,
          result: evidence?.result ?? null,
          resultTruncated: evidence?.resultTruncated ?? false,
          steps,
          model: this.model.model,
        };
      }
      messages.push({ role: "assistant", content: turn.message.content ?? null, tool_calls: turn.message.tool_calls });
      for (const call of calls) {
        const parsed = parseArguments(call.rawArguments);
        const shownArguments = parsed === undefined ? call.rawArguments.slice(0, stepArgumentsCharsMax) : parsed;
        if (steps.length >= askToolCallsMax || failed >= askToolErrorsMax) {
          // Every tool call needs an answer, or the endpoint refuses the next request.
          messages.push(toolMessage(call.id, { ok: false, error: "not run: this question's tool-call limit was reached" }));
          continue;
        }
        // A message may carry several calls, each up to a query's time-out: none starts past the
        // question's deadline, so the request ends within its surface's time-out (one tool run past it).
        if (Date.now() >= deadline) throw questionTimedOut();
        const outcome = await this.tools.run(call.name, parsed, claims);
        if (outcome.ok) {
          steps.push({ tool: call.name, arguments: shownArguments, ok: true, error: null });
          if (outcome.evidence !== null) evidence = outcome.evidence;
          messages.push(toolMessage(call.id, { ok: true, ...outcome.content }));
        } else {
          failed++;
          lastError = outcome.error;
          steps.push({ tool: call.name, arguments: shownArguments, ok: false, error: outcome.error });
          messages.push(toolMessage(call.id, { ok: false, error: outcome.error }));
        }
      }
      if (failed >= askToolErrorsMax) {
        const reason = `Ask stopped after ${askToolErrorsMax} failed tool calls, its limit per question`;
        // The last error may quote project data: it goes into the answer, never into a message the model reads as the user's.
        stopped = { model: `${reason}.`, answer: `${reason}; the last error: ${lastError}.` };
      } else if (steps.length >= askToolCallsMax) {
        const reason = `Ask stopped after ${askToolCallsMax} tool calls, its limit per question.`;
        stopped = { model: reason, answer: reason };
      }
    }
  }
}
