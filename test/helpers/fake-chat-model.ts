// A local stand-in for a language model: an HTTP server speaking the OpenAI chat-completions
// protocol (POST /v1/chat/completions, non-streaming, `tool_calls` in the assistant message,
// `finish_reason`). Each test scripts its replies in order and reads back every request it got
// (headers and body), so what Ask sends the model can be asserted whole.
import type { Server } from "bun";

export interface ScriptedToolCall {
  name: string;
  /** Sent as-is when a string (so tests can send text that is not JSON), else as its JSON. */
  arguments: unknown;
}

export type ScriptedReply =
  | { content: string }
  | { toolCalls: ScriptedToolCall[]; content?: string }
  /** The endpoint answers with this error status and body. */
  | { status: number; body: unknown }
  /** The endpoint never answers (until the fake is closed). */
  | { hang: true };

export interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: any;
}

export interface FakeChatModel {
  /** The base URL to give as ASK_BASE_URL (ends in /v1). */
  url: string;
  requests: RecordedRequest[];
  /** Replaces the script and forgets the requests received so far. */
  script(replies: ScriptedReply[]): void;
  /** Scripted replies not used yet. */
  left(): number;
  close(): Promise<void>;
}

export async function startFakeChatModel(): Promise<FakeChatModel> {
  let replies: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const hanging: (() => void)[] = [];
  let callCounter = 0;
  const server: Server<unknown> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      const body: any = await request.json().catch(() => null);
      requests.push({ path, headers: Object.fromEntries(request.headers), body });
      if (request.method !== "POST" || path !== "/v1/chat/completions") return Response.json({ error: { message: `no route ${request.method} ${path}` } }, { status: 404 });
      const reply = replies.shift();
      if (reply === undefined) return Response.json({ error: { message: "fake chat model: no scripted reply left" } }, { status: 500 });
      if ("hang" in reply) return new Promise<Response>((resolve) => hanging.push(() => resolve(new Response(null, { status: 503 }))));
      if ("status" in reply) return Response.json(reply.body, { status: reply.status });
      const toolCalls = "toolCalls" in reply
        ? reply.toolCalls.map((call) => ({
            id: `call_${++callCounter}`,
            type: "function",
            function: { name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments) },
          }))
        : undefined;
      return Response.json({
        id: `chatcmpl-${requests.length}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body?.model ?? "unknown",
        choices: [{
          index: 0,
          message: { role: "assistant", content: reply.content ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
          finish_reason: toolCalls ? "tool_calls" : "stop",
        }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    script(next) {
      replies = [...next];
      requests.length = 0;
    },
    left: () => replies.length,
    async close() {
      for (const release of hanging.splice(0)) release();
      await server.stop(true);
    },
  };
}
