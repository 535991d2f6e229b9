// Ask's language model: one chat-completions call (non-streaming, tool calling) through the
// official `openai` client against any OpenAI-compatible endpoint (Ollama, llama.cpp's server,
// hosted providers). Failures become the region's error bodies: a call that runs past
// ASK_TIMEOUT_MS or an endpoint that cannot be reached is 503 `unavailable`; an endpoint that
// answers with an error status is 502 `unavailable` naming that status. The API key never
// appears in a message: endpoint messages are passed on only with the key cut out.
import OpenAI from "openai";
import type { ChatCompletionMessage, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { ApiError } from "../../http/errors.ts";
import type { AskSettings } from "./ask-settings.ts";

/** How much of an endpoint's own error message a 502 passes on. */
export const modelErrorMessageCharsMax = 300;

export interface ModelTurn {
  message: ChatCompletionMessage;
  finishReason: string;
}

export interface ModelRequest {
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  /** false: tools stay declared (the history refers to them) but the model must answer in text. */
  toolsAllowed: boolean;
  timeoutMs: number;
}

export interface ChatModel {
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelTurn>;
}

export class OpenAiChatModel implements ChatModel {
  readonly model: string;
  private readonly client: OpenAI;

  constructor(private readonly settings: AskSettings) {
    this.model = settings.model;
    this.client = new OpenAI({
      baseURL: settings.baseUrl,
      // The client insists on a key; local servers need none, so without ASK_API_KEY no
      // Authorization header is sent at all (the null header below removes it).
      apiKey: settings.apiKey ?? "unused",
      ...(settings.apiKey === null ? { defaultHeaders: { Authorization: null } } : {}),
      // Never read OPENAI_* from the environment: Ask's settings are ASK_* alone.
      organization: null,
      project: null,
      // A retry would multiply ASK_TIMEOUT_MS; the caller decides whether to ask again.
      maxRetries: 0,
      timeout: settings.timeoutMs,
    });
  }

  async complete({ messages, tools, toolsAllowed, timeoutMs }: ModelRequest): Promise<ModelTurn> {
    let completion;
    try {
      completion = await this.client.chat.completions.create(
        {
          model: this.model,
          messages,
          ...(tools.length > 0 ? { tools, tool_choice: toolsAllowed ? "auto" as const : "none" as const } : {}),
        },
        { timeout: timeoutMs, maxRetries: 0 },
      );
    } catch (error) {
      throw this.apiError(error, timeoutMs);
    }
    const choice = completion.choices?.[0];
    if (!choice?.message) throw new ApiError(502, "unavailable", `the language model endpoint answered without a message (model ${this.model})`);
    return { message: choice.message, finishReason: choice.finish_reason ?? "stop" };
  }

  private apiError(error: unknown, timeoutMs: number): ApiError {
    if (error instanceof OpenAI.APIConnectionTimeoutError) {
      const bound = timeoutMs < this.settings.timeoutMs ? "what was left of Ask's time per question" : "ASK_TIMEOUT_MS";
      return new ApiError(503, "unavailable", `the language model (${this.model}) did not answer within ${timeoutMs} ms (${bound}); try again, or configure a faster model`);
    }
    if (error instanceof OpenAI.APIConnectionError) {
      return new ApiError(503, "unavailable", `the language model endpoint (ASK_BASE_URL) could not be reached: ${this.redacted(error.message)}`);
    }
    if (error instanceof OpenAI.APIError && typeof error.status === "number") {
      const hint = error.status === 401 || error.status === 403 ? "; check ASK_API_KEY" : error.status === 404 ? "; check ASK_BASE_URL and ASK_MODEL" : "";
      const said = error.status === 401 || error.status === 403 ? "" : `: ${this.redacted(endpointMessage(error))}`;
      return new ApiError(502, "unavailable", `the language model endpoint answered ${error.status}${said}${hint}`);
    }
    return new ApiError(502, "unavailable", `the language model call failed: ${this.redacted(error instanceof Error ? error.message : String(error))}`);
  }

  private redacted(text: string): string {
    const key = this.settings.apiKey;
    const cut = key ? text.split(key).join("[ASK_API_KEY]") : text;
    return cut.length > modelErrorMessageCharsMax ? `${cut.slice(0, modelErrorMessageCharsMax)}…` : cut;
  }
}

/** The endpoint's own message (`{error: {message}}` in OpenAI's shape), else the client's text. */
function endpointMessage(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === "string" ? body.message : error.message;
}
