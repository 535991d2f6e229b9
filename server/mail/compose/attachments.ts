import { detectMimeType } from "nodemailer/lib/mime-funcs";
import { refuseForbiddenCharacters } from "./characters.ts";
import { ComposeError, quotedKey } from "./errors.ts";

// Attachments arrive as base64 (`content`) with a filename, an optional content type (else
// guessed from the filename's extension) and an optional content id, which makes the
// attachment inline: the html shows it with <img src="cid:...">. Only content in the request
// is supported (no `path` or URL to fetch: the service must not read its own files or reach
// into the network on a sender's behalf).

export interface Attachment {
  filename: string;
  content: Buffer;
  /** Lower-case type/subtype. */
  contentType: string;
  /** Without angle brackets; null for an ordinary (not inline) attachment. */
  contentId: string | null;
}

export const attachmentsMax = 50;
export const attachmentFilenameLengthMax = 255;
export const contentIdLengthMax = 255;

// RFC 6838 restricted names; parameters are not accepted (the builder adds the ones it needs).
const mimeTypePattern = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
// RFC 2392: the id-left "@" id-right of a msg-id, here as dot-atom text on both sides (a bare
// "logo" is accepted too, as most senders write it).
const contentIdPattern = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+(?:@[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+)?$/;
const attachmentFields = new Set(["filename", "content", "content_type", "content_id"]);

export function parseAttachments(input: unknown, field = "attachments"): Attachment[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) throw new ComposeError(field, "invalid_type", "must be an array");
  if (input.length > attachmentsMax) {
    throw new ComposeError(field, "too_many", `at most ${attachmentsMax} attachments; got ${input.length}`);
  }
  const contentIds = new Set<string>();
  return input.map((item: unknown, index) => {
    const attachment = parseAttachment(item, `${field}[${index}]`);
    if (attachment.contentId !== null) {
      if (contentIds.has(attachment.contentId)) {
        throw new ComposeError(`${field}[${index}].content_id`, "duplicate", "another attachment has the same content id");
      }
      contentIds.add(attachment.contentId);
    }
    return attachment;
  });
}

function parseAttachment(item: unknown, field: string): Attachment {
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    throw new ComposeError(field, "invalid_type", "must be an object {filename, content, content_type?, content_id?}");
  }
  const record = item as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !attachmentFields.has(key));
  if (unknown !== undefined) throw new ComposeError(`${field}[${quotedKey(unknown)}]`, "unknown_field", "is not an attachment field");
  const filename = parseFilename(record.filename, `${field}.filename`);
  return {
    filename,
    content: parseBase64(record.content, `${field}.content`),
    contentType: parseContentType(record.content_type, `${field}.content_type`) ?? detectMimeType(filename).toLowerCase(),
    contentId: parseContentId(record.content_id, `${field}.content_id`),
  };
}

function parseFilename(input: unknown, field: string): string {
  if (input === undefined || input === null) throw new ComposeError(field, "missing_field", "is required");
  if (typeof input !== "string") throw new ComposeError(field, "invalid_type", "must be a string");
  refuseForbiddenCharacters(input, field, { allowTab: false });
  if (input.trim() === "") throw new ComposeError(field, "invalid_value", "must not be empty");
  if (input.length > attachmentFilenameLengthMax) {
    throw new ComposeError(field, "too_long", `must be at most ${attachmentFilenameLengthMax} characters`);
  }
  if (/[/\\]/.test(input)) throw new ComposeError(field, "invalid_value", "must be a file name, without / or \\");
  if (input === "." || input === "..") throw new ComposeError(field, "invalid_value", "must be a file name");
  return input;
}

/** Strict base64: the standard alphabet, padded, no whitespace, no stray bits. */
function parseBase64(input: unknown, field: string): Buffer {
  if (input === undefined || input === null) throw new ComposeError(field, "missing_field", "is required");
  if (typeof input !== "string") throw new ComposeError(field, "invalid_type", "must be a base64 string");
  const content = Buffer.from(input, "base64");
  // Node's decoder skips what it does not understand; re-encoding shows whether it had to.
  if (content.toString("base64") !== input) {
    throw new ComposeError(field, "invalid_value", "must be strict base64 (standard alphabet, padded, no whitespace)");
  }
  return content;
}

function parseContentType(input: unknown, field: string): string | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== "string") throw new ComposeError(field, "invalid_type", "must be a string");
  refuseForbiddenCharacters(input, field, { allowTab: false });
  if (!mimeTypePattern.test(input)) {
    throw new ComposeError(field, "invalid_value", "must be a MIME type such as image/png, without parameters");
  }
  return input.toLowerCase();
}

function parseContentId(input: unknown, field: string): string | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== "string") throw new ComposeError(field, "invalid_type", "must be a string");
  refuseForbiddenCharacters(input, field, { allowTab: false });
  if (input.length > contentIdLengthMax) throw new ComposeError(field, "too_long", `must be at most ${contentIdLengthMax} characters`);
  if (!contentIdPattern.test(input)) {
    throw new ComposeError(field, "invalid_value", 'must be an id such as "logo" or "logo@acme.com", without angle brackets');
  }
  return input;
}

/** What an attachment weighs in the message: the length of its base64 form. */
export const base64LengthOf = (attachment: Attachment): number => 4 * Math.ceil(attachment.content.length / 3);
